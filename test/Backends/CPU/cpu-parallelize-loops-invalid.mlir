// RUN: not hlo-opt %s --pass-pipeline='builtin.module(func.func(cpu-parallelize-loops{threads=-2}))' 2>&1 | FileCheck %s

// CHECK: error: cpu-parallelize-loops needs threads >= 0 and min-iterations >= 1, got threads=-2 min-iterations=131072
func.func @f() {
  return
}
