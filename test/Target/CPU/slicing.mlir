// RUN: hlo-opt %s --hlo-to-cpu --split-input-file | FileCheck %s
// RUN: hlo-opt %s --hlo-to-cpu --split-input-file | FileCheck %s --check-prefix=LLVM-ONLY

// The slicing ops lower to the LLVM dialect with no call into MLIR's
// runtime helpers: strided copies become loops (not memrefCopy), and the
// function arguments are never written in place.
// LLVM-ONLY-NOT: {{ (hlo|linalg|memref|tensor|bufferization|arith|math|scf|cf|func|affine)\.}}
// LLVM-ONLY-NOT: unrealized_conversion_cast
// LLVM-ONLY-NOT: memrefCopy

// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("f32[4,4];i32[];ui8[];f32[2,2];f32[]->f32[2,2];f32[2,2];f32[4,4];f32[8,4];f32[4,8];f32[4,4]\00")
func.func @main(%a: tensor<4x4xf32>, %i: tensor<i32>, %j: tensor<ui8>, %u: tensor<2x2xf32>, %v: tensor<f32>)
    -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<4x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>, tensor<4x4xf32>) {
  %0 = hlo.slice %a, start = [1, 0], limit = [3, 4], strides = [1, 2] : tensor<4x4xf32> -> tensor<2x2xf32>
  %1 = hlo.dynamic_slice %a[%j, %j], sizes = [2, 2] : tensor<4x4xf32>[tensor<ui8>, tensor<ui8>] -> tensor<2x2xf32>
  %2 = hlo.dynamic_update_slice %a[%i, %i], %u : tensor<4x4xf32>[tensor<i32>, tensor<i32>], tensor<2x2xf32>
  %3 = hlo.concatenate dim = 0, %a, %2 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %4 = hlo.pad %a, %v, low = [1, -1], high = [-1, 2], interior = [0, 1] : tensor<4x4xf32>, tensor<f32> -> tensor<4x8xf32>
  %5 = hlo.reverse %a, dims = [0, 1] : tensor<4x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<4x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>, tensor<4x4xf32>
}

// -----

// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("f32[5,3];i64[2,1];f32[2,3]->f32[2,3];f32[5,3]\00")
func.func @main(%a: tensor<5x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<5x3xf32>) {
  %0 = hlo.gather %a[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x1xi64>] -> tensor<2x3xf32>
  %1 = hlo.scatter add %a[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi64>], tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<5x3xf32>
}
