// Folders of the slicing ops: no-op forms fold to the operand, constants
// are evaluated.
// RUN: hlo-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @noops
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xf32>, %[[I:.*]]: tensor<i32>, %[[V:.*]]: tensor<f32>, %[[U:.*]]: tensor<4x3xf32>, %[[E:.*]]: tensor<0x3xf32>, %[[X:.*]]: tensor<2x1xi32>, %[[EU:.*]]: tensor<2x0xf32>)
// CHECK-NEXT: return %[[A]], %[[A]], %[[U]], %[[A]], %[[A]], %[[A]], %[[A]], %[[A]]
func.func @noops(%a: tensor<4x3xf32>, %i: tensor<i32>, %v: tensor<f32>, %u: tensor<4x3xf32>, %e: tensor<0x3xf32>, %x: tensor<2x1xi32>, %eu: tensor<2x0xf32>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %0 = hlo.slice %a, start = [0, 0], limit = [4, 3], strides = [1, 1] : tensor<4x3xf32> -> tensor<4x3xf32>
  %1 = hlo.dynamic_slice %a[%i, %i], sizes = [4, 3] : tensor<4x3xf32>[tensor<i32>, tensor<i32>] -> tensor<4x3xf32>
  %2 = hlo.dynamic_update_slice %a[%i, %i], %u : tensor<4x3xf32>[tensor<i32>, tensor<i32>], tensor<4x3xf32>
  %3 = hlo.dynamic_update_slice %a[%i, %i], %e : tensor<4x3xf32>[tensor<i32>, tensor<i32>], tensor<0x3xf32>
  %4 = hlo.concatenate dim = 0, %a : tensor<4x3xf32> -> tensor<4x3xf32>
  %5 = hlo.pad %a, %v, low = [0, 0], high = [0, 0], interior = [0, 0] : tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
  %6 = hlo.reverse %a, dims = [] : tensor<4x3xf32>
  %7 = hlo.scatter add %a[%x], %eu, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<4x3xf32>[tensor<2x1xi32>], tensor<2x0xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// A reverse of size-1 dims changes nothing.
// CHECK-LABEL: func.func @reverse_size_one
// CHECK-SAME: (%[[A:.*]]: tensor<1x3xf32>)
// CHECK-NEXT: return %[[A]]
func.func @reverse_size_one(%a: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %0 = hlo.reverse %a, dims = [0] : tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

// CHECK-LABEL: func.func @constants
// CHECK-DAG: hlo.constant dense<{{\[}}[4, 6], [8, 10]]> : tensor<2x2xi32>
// CHECK-DAG: hlo.constant dense<{{\[}}[11, 10, 9, 8], [3, 2, 1, 0]]> : tensor<2x4xi32>
// CHECK-DAG: hlo.constant dense<[0, 1, 2, 3, 0, 1]> : tensor<6xi32>
// CHECK-DAG: hlo.constant dense<[-1, 1, -1, 2, -1, 3]> : tensor<6xi32>
// CHECK-DAG: hlo.constant dense<[-1, 1, -1]> : tensor<3xi32>
// CHECK-DAG: hlo.constant dense<7> : tensor<2x2xi32>
// CHECK-NOT: hlo.slice
// CHECK-NOT: hlo.reverse
// CHECK-NOT: hlo.concatenate
// CHECK-NOT: hlo.pad
// CHECK-NOT: hlo.dynamic_slice
func.func @constants(%i: tensor<i32>) -> (tensor<2x2xi32>, tensor<2x4xi32>, tensor<6xi32>, tensor<6xi32>, tensor<3xi32>, tensor<2x2xi32>) {
  %m = hlo.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]> : tensor<3x4xi32>
  %r = hlo.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
  %s = hlo.constant dense<[0, 1]> : tensor<2xi32>
  %v = hlo.constant dense<-1> : tensor<i32>
  %seven = hlo.constant dense<7> : tensor<3x4xi32>
  %0 = hlo.slice %m, start = [1, 0], limit = [3, 4], strides = [1, 2] : tensor<3x4xi32> -> tensor<2x2xi32>
  %1 = hlo.reverse %m, dims = [1, 0] : tensor<3x4xi32>
  %2 = hlo.slice %1, start = [0, 0], limit = [3, 4], strides = [2, 1] : tensor<3x4xi32> -> tensor<2x4xi32>
  %3 = hlo.concatenate dim = 0, %r, %s : tensor<4xi32>, tensor<2xi32> -> tensor<6xi32>
  %5 = hlo.pad %r, %v, low = [-1], high = [0], interior = [1] : tensor<4xi32>, tensor<i32> -> tensor<6xi32>
  %7 = hlo.pad %s, %v, low = [-1], high = [1], interior = [1] : tensor<2xi32>, tensor<i32> -> tensor<3xi32>
  %8 = hlo.dynamic_slice %seven[%i, %i], sizes = [2, 2] : tensor<3x4xi32>[tensor<i32>, tensor<i32>] -> tensor<2x2xi32>
  return %0, %2, %3, %5, %7, %8 : tensor<2x2xi32>, tensor<2x4xi32>, tensor<6xi32>, tensor<6xi32>, tensor<3xi32>, tensor<2x2xi32>
}
