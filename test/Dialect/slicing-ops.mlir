// Every slicing op parses and prints back in its custom syntax.
// RUN: hlo-opt %s | hlo-opt | FileCheck %s

// CHECK-LABEL: func.func @slices
// CHECK: hlo.slice %{{.*}}, start = [1, 0], limit = [3, 4], strides = [1, 2] : tensor<4x4xf32> -> tensor<2x2xf32>
// CHECK: hlo.dynamic_slice %{{.*}}[%{{.*}}, %{{.*}}], sizes = [2, 2] : tensor<4x4xf32>[tensor<i32>, tensor<i32>] -> tensor<2x2xf32>
// CHECK: hlo.dynamic_update_slice %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : tensor<4x4xf32>[tensor<i32>, tensor<i32>], tensor<2x2xf32>
// CHECK: hlo.dynamic_slice %{{.*}}[], sizes = [] : tensor<f32> -> tensor<f32>
func.func @slices(%a: tensor<4x4xf32>, %i: tensor<i32>, %u: tensor<2x2xf32>, %s: tensor<f32>)
    -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<4x4xf32>, tensor<f32>) {
  %0 = hlo.slice %a, start = [1, 0], limit = [3, 4], strides = [1, 2] : tensor<4x4xf32> -> tensor<2x2xf32>
  %1 = hlo.dynamic_slice %a[%i, %i], sizes = [2, 2] : tensor<4x4xf32>[tensor<i32>, tensor<i32>] -> tensor<2x2xf32>
  %2 = hlo.dynamic_update_slice %a[%i, %i], %u : tensor<4x4xf32>[tensor<i32>, tensor<i32>], tensor<2x2xf32>
  %3 = hlo.dynamic_slice %s[], sizes = [] : tensor<f32> -> tensor<f32>
  return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<4x4xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @join_pad_reverse
// CHECK: hlo.concatenate dim = 0, %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<3x3xf32>
// CHECK: hlo.pad %{{.*}}, %{{.*}}, low = [1, -1], high = [0, 2], interior = [0, 1] : tensor<2x3xf32>, tensor<f32> -> tensor<3x6xf32>
// CHECK: hlo.reverse %{{.*}}, dims = [1, 0] : tensor<2x3xf32>
func.func @join_pad_reverse(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>, %v: tensor<f32>)
    -> (tensor<3x3xf32>, tensor<3x6xf32>, tensor<2x3xf32>) {
  %0 = hlo.concatenate dim = 0, %a, %b : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<3x3xf32>
  %1 = hlo.pad %a, %v, low = [1, -1], high = [0, 2], interior = [0, 1] : tensor<2x3xf32>, tensor<f32> -> tensor<3x6xf32>
  %2 = hlo.reverse %a, dims = [1, 0] : tensor<2x3xf32>
  return %0, %1, %2 : tensor<3x3xf32>, tensor<3x6xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @gather_scatter
// CHECK: hlo.gather %{{.*}}[%{{.*}}], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
// CHECK: hlo.scatter add %{{.*}}[%{{.*}}], %{{.*}}, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
// CHECK: hlo.scatter set
// CHECK: hlo.scatter mul
// CHECK: hlo.scatter min
// CHECK: hlo.scatter max
func.func @gather_scatter(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<5x3xf32>) {
  %0 = hlo.gather %a[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
  %1 = hlo.scatter add %a[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  %2 = hlo.scatter set %1[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  %3 = hlo.scatter mul %2[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  %4 = hlo.scatter min %3[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  %5 = hlo.scatter max %4[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  return %0, %5 : tensor<2x3xf32>, tensor<5x3xf32>
}
