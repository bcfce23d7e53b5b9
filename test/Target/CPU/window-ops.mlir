// RUN: hlo-opt %s --hlo-to-cpu --split-input-file | FileCheck %s
// RUN: hlo-opt %s --hlo-to-cpu --split-input-file | FileCheck %s --check-prefix=LLVM-ONLY

// reduce_window and convolution go through the full CPU pipeline to the
// LLVM dialect, with no runtime helper calls (the padded operand is built by
// a generic, not by a strided copy). Inputs are function arguments, so
// nothing folds away before the lowering runs.
// LLVM-ONLY-NOT: {{ (hlo|linalg|memref|tensor|bufferization|arith|math|scf|cf|func|affine)\.}}
// LLVM-ONLY-NOT: unrealized_conversion_cast
// LLVM-ONLY-NOT: memrefCopy

// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("f32[2,5,6,3];ui8[7];i1[4,3]->f32[2,3,3,3];ui8[5];i1[2,2]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%x: tensor<2x5x6x3xf32>, %u: tensor<7xui8>, %p: tensor<4x3xi1>) -> (tensor<2x3x3x3xf32>, tensor<5xui8>, tensor<2x2xi1>) {
  %0 = hlo.reduce_window max %x, window = [1, 2, 2, 1], strides = [1, 2, 2, 1], padding = [[0, 0], [0, 1], [0, 0], [0, 0]] : tensor<2x5x6x3xf32> -> tensor<2x3x3x3xf32>
  %1 = hlo.reduce_window min %u, window = [3], strides = [2], padding = [[1, -1]], base_dilations = [2], window_dilations = [2] : tensor<7xui8> -> tensor<5xui8>
  %2 = hlo.reduce_window and %p, window = [3, 2], strides = [1, 1] : tensor<4x3xi1> -> tensor<2x2xi1>
  return %0, %1, %2 : tensor<2x3x3x3xf32>, tensor<5xui8>, tensor<2x2xi1>
}

// -----

// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("f32[2,4,8,8];f32[6,2,3,3];i32[4,5,5,3];i32[2,2,3,6]->f32[2,6,4,4];i32[2,4,4,6]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %y: tensor<4x5x5x3xi32>, %v: tensor<2x2x3x6xi32>) -> (tensor<2x6x4x4xf32>, tensor<2x4x4x6xi32>) {
  %0 = hlo.convolution %x, %w, dims = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], strides = [2, 2], padding = [[1, 1], [1, 1]], lhs_dilation = [1, 1], rhs_dilation = [1, 1], feature_group_count = 2 : tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x4x4xf32>
  %1 = hlo.convolution %y, %v, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], batch_group_count = 2 : tensor<4x5x5x3xi32>, tensor<2x2x3x6xi32> -> tensor<2x4x4x6xi32>
  return %0, %1 : tensor<2x6x4x4xf32>, tensor<2x4x4x6xi32>
}

// -----

// A 3-D convolution with lhs dilation (transposed-convolution style).
// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("f64[1,3,3,3,2];f64[2,2,2,2,4]->f64[1,6,6,6,4]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%x: tensor<1x3x3x3x2xf64>, %w: tensor<2x2x2x2x4xf64>) -> tensor<1x6x6x6x4xf64> {
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f], padding = [[1, 1], [1, 1], [1, 1]], lhs_dilation = [2, 2, 2] : tensor<1x3x3x3x2xf64>, tensor<2x2x2x2x4xf64> -> tensor<1x6x6x6x4xf64>
  return %0 : tensor<1x6x6x6x4xf64>
}
