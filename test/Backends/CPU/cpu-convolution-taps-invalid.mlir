// RUN: not hlo-opt %s --pass-pipeline='builtin.module(func.func(cpu-convolution-taps{tile-bytes=-1}))' 2>&1 | FileCheck %s

// CHECK: error: cpu-convolution-taps: tile-bytes must be 0 or positive, got -1
func.func @f() {
  return
}
