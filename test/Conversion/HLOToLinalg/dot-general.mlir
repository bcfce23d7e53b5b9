// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// [M,K] x [K,N] is a linalg.matmul into a zero-filled init.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<2x4xf32>)
// CHECK: %[[R:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK: return %[[R]]
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @batch_matmul_i32
// CHECK-SAME: (%[[A:.*]]: tensor<5x2x3xi32>, %[[B:.*]]: tensor<5x3x4xi32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : i32)
// CHECK: linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<5x2x3xi32>, tensor<5x3x4xi32>) outs(%[[INIT]] : tensor<5x2x4xi32>)
func.func @batch_matmul_i32(%a: tensor<5x2x3xi32>, %b: tensor<5x3x4xi32>) -> tensor<5x2x4xi32> {
  %0 = hlo.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [2] x [1] : tensor<5x2x3xi32>, tensor<5x3x4xi32> -> tensor<5x2x4xi32>
  return %0 : tensor<5x2x4xi32>
}

// -----

// Any other numbering is a generic over (batch, lhs free, rhs free,
// contracting) loops. Here lhs is [K,B,M] and rhs [N,K,B].
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d0, d1)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, d0)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @general
// CHECK-SAME: (%[[A:.*]]: tensor<3x5x2xf32>, %[[B:.*]]: tensor<4x3x5xf32>)
// CHECK: %[[INIT:.*]] = linalg.fill
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<3x5x2xf32>, tensor<4x3x5xf32>) outs(%[[INIT]] : tensor<5x2x4xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @general(%a: tensor<3x5x2xf32>, %b: tensor<4x3x5xf32>) -> tensor<5x2x4xf32> {
  %0 = hlo.dot_general %a, %b, batch_dims = [1] x [2], contracting_dims = [0] x [1] : tensor<3x5x2xf32>, tensor<4x3x5xf32> -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

// -----

// Matrix-vector product: no named op, a generic with one reduction loop.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @matvec_i8
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]]
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: arith.muli {{.*}} : i8
// CHECK: arith.addi {{.*}} : i8
func.func @matvec_i8(%a: tensor<2x3xi8>, %b: tensor<3xi8>) -> tensor<2xi8> {
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<2x3xi8>, tensor<3xi8> -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

// Outer product: no contracting dimension.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @outer
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[LHS]], #[[RHS]], #
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
func.func @outer(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [] x [] : tensor<2xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A full contraction to a scalar indexes the result with an empty map.
// CHECK-DAG: #[[VEC:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @dot_vectors_to_scalar
// CHECK: linalg.generic {indexing_maps = [#[[VEC]], #[[VEC]], #[[SCALAR]]], iterator_types = ["reduction"]}
func.func @dot_vectors_to_scalar(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [0] x [0] : tensor<3xf32>, tensor<3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Without contracting dimensions every element is one product, written into
// an empty tensor: the generic must not read its init, or elementwise fusion
// would accumulate it inside a consumer's loops.
// CHECK-LABEL: func.func @dot_without_contraction
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[EMPTY]] : tensor<2xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[P]] : f32
func.func @dot_without_contraction(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = hlo.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [] x [] : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
