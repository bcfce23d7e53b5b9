// RUN: not hlo-opt %s --pass-pipeline='builtin.module(func.func(cpu-split-reductions{ratio=1}))' 2>&1 | FileCheck %s

// CHECK: error: cpu-split-reductions needs ratio >= 2, min-reduction >= 1 and max-outputs >= 1, got ratio=1 min-reduction=131072 max-outputs=16
func.func @f() {
  return
}
