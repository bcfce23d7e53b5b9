// RUN: hlo-opt %s --hlo-cpu-to-linalg --split-input-file | FileCheck %s

// The CPU pipeline splits lhs-dilated convolutions into phases before
// lowering: a 2-D stride-2 transposed convolution is four undilated
// convolution generics, and no generic reads a zero-interleaved input.
// CHECK-LABEL: func.func @main
// CHECK-COUNT-4: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-NOT: tensor<2x13x13x3xf32>
func.func @main(%x: tensor<2x7x7x3xf32>, %k: tensor<5x5x3x4xf32>) -> tensor<2x14x14x4xf32> {
  %0 = hlo.convolution %x, %k, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], padding = [[3, 2], [3, 2]], lhs_dilation = [2, 2] : tensor<2x7x7x3xf32>, tensor<5x5x3x4xf32> -> tensor<2x14x14x4xf32>
  return %0 : tensor<2x14x14x4xf32>
}

// -----

// A phase without taps is zeros, made by a generic and not by a splat
// constant of its size: upstream folds enumerate a constant's elements,
// and 2^32 of them aborted hlo-opt (found by make fuzz-hlo-opt).
// CHECK-LABEL: func.func @main
// CHECK-NOT: dense<0> : tensor<1x4294967296
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4294967296x1x1xi32>)
// CHECK-NEXT: ^bb0(%{{.*}}: i32):
// CHECK-NEXT: linalg.yield %c0_i32 : i32
func.func @main(%x: tensor<1x4294967296x1xi32>, %k: tensor<1x1x1xi32>) -> tensor<1x8589934592x1xi32> {
  %0 = hlo.convolution %x, %k, dims = [b, 0, f]x[0, i, o]->[b, 0, f], padding = [[0, 1]], lhs_dilation = [2] : tensor<1x4294967296x1xi32>, tensor<1x1x1xi32> -> tensor<1x8589934592x1xi32>
  return %0 : tensor<1x8589934592x1xi32>
}
