// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// Operand dimension i is read at result dimension dims[i].
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<3xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[IN]], #[[OUT]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[A]] : tensor<3xf32>) outs(%[[INIT]] : tensor<4x3xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: linalg.yield %[[X]] : f32
// CHECK: return %[[R]]
func.func @broadcast(%a: tensor<3xf32>) -> tensor<4x3xf32> {
  %0 = hlo.broadcast_in_dim %a, dims = [1] : tensor<3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A size-1 operand dimension stretched to a larger one is read at index 0.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (0, d2)>
// CHECK-LABEL: func.func @broadcast_stretch
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.*}}]
func.func @broadcast_stretch(%a: tensor<1x3xf32>) -> tensor<2x4x3xf32> {
  %0 = hlo.broadcast_in_dim %a, dims = [1, 2] : tensor<1x3xf32> -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @broadcast_scalar
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}} : tensor<f32>)
func.func @broadcast_scalar(%a: tensor<f32>) -> tensor<2x3xf32> {
  %0 = hlo.broadcast_in_dim %a, dims = [] : tensor<f32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_collapse
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: return %[[R]]
func.func @reshape_collapse(%a: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = hlo.reshape %a : tensor<2x3x4xf32> -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_expand
// CHECK-SAME: (%[[A:.*]]: tensor<12xf32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[A]] {{\[}}[0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
// CHECK: return %[[R]]
func.func @reshape_expand(%a: tensor<12xf32>) -> tensor<3x4xf32> {
  %0 = hlo.reshape %a : tensor<12xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Without a direct reassociation, go through rank 1.
// CHECK-LABEL: func.func @reshape_general
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK: return %[[R]]
func.func @reshape_general(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = hlo.reshape %a : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Rank 0 relates to any all-ones shape by an empty reassociation.
// CHECK-LABEL: func.func @reshape_rank0
// CHECK: %[[E1:.*]] = tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK: %[[C1:.*]] = tensor.collapse_shape %[[E1]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK: %[[E2:.*]] = tensor.expand_shape %[[C1]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: tensor.collapse_shape %[[E2]] [] : tensor<1xf32> into tensor<f32>
func.func @reshape_rank0(%a: tensor<f32>) -> tensor<f32> {
  %0 = hlo.reshape %a : tensor<f32> -> tensor<1x1xf32>
  %1 = hlo.reshape %0 : tensor<1x1xf32> -> tensor<f32>
  %2 = hlo.reshape %1 : tensor<f32> -> tensor<1xf32>
  %3 = hlo.reshape %2 : tensor<1xf32> -> tensor<f32>
  return %3 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @reshape_size0
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<0x3xf32> into tensor<0xf32>
// CHECK: tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [3, 0] : tensor<0xf32> into tensor<3x0xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<0x3xf32> into tensor<0xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2]] output_shape [2, 0, 5] : tensor<0xf32> into tensor<2x0x5xf32>
func.func @reshape_size0(%a: tensor<0x3xf32>) -> (tensor<3x0xf32>, tensor<0xf32>, tensor<2x0x5xf32>) {
  %0 = hlo.reshape %a : tensor<0x3xf32> -> tensor<3x0xf32>
  %1 = hlo.reshape %a : tensor<0x3xf32> -> tensor<0xf32>
  %2 = hlo.reshape %a : tensor<0x3xf32> -> tensor<2x0x5xf32>
  return %0, %1, %2 : tensor<3x0xf32>, tensor<0xf32>, tensor<2x0x5xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: %[[R:.*]] = linalg.transpose ins(%[[A]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK: return %[[R]]
func.func @transpose(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = hlo.transpose %a, dims = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}
