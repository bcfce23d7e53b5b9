// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @constant
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: return %[[C]]
func.func @constant() -> tensor<2x2xf32> {
  %0 = hlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @constant_scalar_pred
// CHECK: arith.constant dense<true> : tensor<i1>
func.func @constant_scalar_pred() -> tensor<i1> {
  %0 = hlo.constant dense<true> : tensor<i1>
  return %0 : tensor<i1>
}

// -----

// CHECK-LABEL: func.func @constant_unsigned
// CHECK: arith.constant dense<[0, -1]> : tensor<2xi64>
func.func @constant_unsigned() -> tensor<2xui64> {
  %0 = hlo.constant dense<[0, 18446744073709551615]> : tensor<2xui64>
  return %0 : tensor<2xui64>
}

// -----

// iota is a generic with no inputs that casts linalg.index of its dimension.
// CHECK: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @iota_i32
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x3xi32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]]], iterator_types = ["parallel", "parallel"]} outs(%[[INIT]] : tensor<2x3xi32>)
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[V:.*]] = arith.index_castui %[[I]] : index to i32
// CHECK: linalg.yield %[[V]] : i32
// CHECK: return %[[R]]
func.func @iota_i32() -> tensor<2x3xi32> {
  %0 = hlo.iota dim = 1 : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @iota_f16
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[N:.*]] = arith.index_castui %[[I]] : index to i64
// CHECK: %[[V:.*]] = arith.uitofp %[[N]] : i64 to f16
// CHECK: linalg.yield %[[V]] : f16
func.func @iota_f16() -> tensor<5xf16> {
  %0 = hlo.iota dim = 0 : tensor<5xf16>
  return %0 : tensor<5xf16>
}

// -----

// CHECK-LABEL: func.func @iota_ui8
// CHECK-SAME: -> tensor<4xi8>
// CHECK: arith.index_castui %{{.*}} : index to i8
func.func @iota_ui8() -> tensor<4xui8> {
  %0 = hlo.iota dim = 0 : tensor<4xui8>
  return %0 : tensor<4xui8>
}
