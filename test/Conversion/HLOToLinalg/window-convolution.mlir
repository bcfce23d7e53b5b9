// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// One linalg.generic: loops (batch, out feature, out spatial...) are
// parallel, (in feature, kernel spatial...) are reductions; the lhs map is
// `out * stride + kernel * rhs_dilation` in each spatial dimension.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 * 2 + d5 * 2, d3 * 2 + d6, d4)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d5, d6, d4, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @nhwc
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x8x3xf32>, %[[W:.*]]: tensor<3x3x3x16xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<1x2x3x16xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<1x2x3x16xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[W]] : tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) outs(%[[INIT]] : tensor<1x2x3x16xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x16xf32>) -> tensor<1x2x3x16xf32> {
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], strides = [2, 2], rhs_dilation = [2, 1] : tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32> -> tensor<1x2x3x16xf32>
  return %0 : tensor<1x2x3x16xf32>
}

// -----

// Feature groups: the lhs feature dim, the kernel output feature dim and
// the result feature dim are split into (group, size per group), and the
// group is one more parallel loop.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3 + d5)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @feature_groups
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x5xi32>, %[[W:.*]]: tensor<6x2x3xi32>)
// CHECK: %[[XG:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2], [3]] output_shape [2, 2, 2, 5]
// CHECK: %[[WG:.*]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 2, 3]
// CHECK: %[[INIT:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3]] output_shape [2, 2, 3, 3]
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[XG]], %[[WG]] : tensor<2x2x2x5xi32>, tensor<2x3x2x3xi32>) outs(%[[INIT]] : tensor<2x2x3x3xi32>)
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2], [3]] : tensor<2x2x3x3xi32> into tensor<2x6x3xi32>
// CHECK: return %[[C]]
func.func @feature_groups(%x: tensor<2x4x5xi32>, %w: tensor<6x2x3xi32>) -> tensor<2x6x3xi32> {
  %0 = hlo.convolution %x, %w, dims = [b, f, 0]x[o, i, 0]->[b, f, 0], feature_group_count = 2 : tensor<2x4x5xi32>, tensor<6x2x3xi32> -> tensor<2x6x3xi32>
  return %0 : tensor<2x6x3xi32>
}

// -----

// Batch groups split the lhs batch instead of its features.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d0, d4, d3 + d5)>
// CHECK-LABEL: func.func @batch_groups
// CHECK: %[[XG:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [2, 2, 3, 5]
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], {{.*}}]
// CHECK-SAME: ins(%[[XG]], %{{.*}} : tensor<2x2x3x5xf32>, tensor<2x3x3x2xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3]] : tensor<2x2x3x4xf32> into tensor<2x6x4xf32>
func.func @batch_groups(%x: tensor<4x3x5xf32>, %w: tensor<6x3x2xf32>) -> tensor<2x6x4xf32> {
  %0 = hlo.convolution %x, %w, dims = [b, f, 0]x[o, i, 0]->[b, f, 0], batch_group_count = 2 : tensor<4x3x5xf32>, tensor<6x3x2xf32> -> tensor<2x6x4xf32>
  return %0 : tensor<2x6x4xf32>
}

// -----

// Padding and lhs dilation materialize a zero-filled lhs first.
// CHECK-LABEL: func.func @padded
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4xf64>, %[[W:.*]]: tensor<1x2x2xf64>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[PADDED:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x9xf64>)
// CHECK: tensor.extract %[[X]]
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[ZERO]] : f64
// CHECK: linalg.generic {{.*}} ins(%[[PADDED]], %[[W]] : tensor<1x2x9xf64>, tensor<1x2x2xf64>)
func.func @padded(%x: tensor<1x2x4xf64>, %w: tensor<1x2x2xf64>) -> tensor<1x1x8xf64> {
  %0 = hlo.convolution %x, %w, dims = [b, f, 0]x[o, i, 0]->[b, f, 0], padding = [[1, 1]], lhs_dilation = [2] : tensor<1x2x4xf64>, tensor<1x2x2xf64> -> tensor<1x1x8xf64>
  return %0 : tensor<1x1x8xf64>
}

// -----

// CHECK-LABEL: func.func @empty_result
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<0x4x6x6xf32>
// CHECK-NEXT: return %[[E]]
func.func @empty_result(%x: tensor<0x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<0x4x6x6xf32> {
  %0 = hlo.convolution %x, %w, dims = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1] : tensor<0x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<0x4x6x6xf32>
  return %0 : tensor<0x4x6x6xf32>
}
