// Round-trip of every hlo op and every element-type family, in the custom
// syntax and in the generic form.
// RUN: hlo-opt %s | hlo-opt | FileCheck %s
// RUN: hlo-opt %s --mlir-print-op-generic | hlo-opt | FileCheck %s

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xf32>, tensor<i32>, tensor<0x3xf32>, tensor<2xi1>, tensor<2xui8>) {
  // CHECK: hlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = hlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: hlo.constant dense<7> : tensor<i32>
  %1 = hlo.constant dense<7> : tensor<i32>
  // CHECK: hlo.constant dense<> : tensor<0x3xf32>
  %2 = hlo.constant dense<> : tensor<0x3xf32>
  // CHECK: hlo.constant dense<[true, false]> : tensor<2xi1>
  %3 = hlo.constant dense<[true, false]> : tensor<2xi1>
  // CHECK: hlo.constant dense<[0, 255]> : tensor<2xui8>
  %4 = hlo.constant dense<[0, 255]> : tensor<2xui8>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<i32>, tensor<0x3xf32>, tensor<2xi1>, tensor<2xui8>
}

// CHECK-LABEL: func.func @iota
func.func @iota() -> (tensor<2x3xi32>, tensor<4xf16>, tensor<0xui32>) {
  // CHECK: hlo.iota dim = 1 : tensor<2x3xi32>
  %0 = hlo.iota dim = 1 : tensor<2x3xi32>
  // CHECK: hlo.iota dim = 0 : tensor<4xf16>
  %1 = hlo.iota dim = 0 : tensor<4xf16>
  // CHECK: hlo.iota dim = 0 : tensor<0xui32>
  %2 = hlo.iota dim = 0 : tensor<0xui32>
  return %0, %1, %2 : tensor<2x3xi32>, tensor<4xf16>, tensor<0xui32>
}

// CHECK-LABEL: func.func @float_unary
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @float_unary(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[A:.*]] = hlo.negate %[[X]] : tensor<4xf32>
  // CHECK: %[[B:.*]] = hlo.abs %[[A]] : tensor<4xf32>
  // CHECK: %[[C:.*]] = hlo.sign %[[B]] : tensor<4xf32>
  // CHECK: %[[D:.*]] = hlo.exp %[[C]] : tensor<4xf32>
  // CHECK: %[[E:.*]] = hlo.log %[[D]] : tensor<4xf32>
  // CHECK: %[[F:.*]] = hlo.tanh %[[E]] : tensor<4xf32>
  // CHECK: %[[G:.*]] = hlo.logistic %[[F]] : tensor<4xf32>
  // CHECK: %[[H:.*]] = hlo.sqrt %[[G]] : tensor<4xf32>
  // CHECK: %[[I:.*]] = hlo.rsqrt %[[H]] : tensor<4xf32>
  // CHECK: %[[J:.*]] = hlo.sin %[[I]] : tensor<4xf32>
  // CHECK: %[[K:.*]] = hlo.cos %[[J]] : tensor<4xf32>
  // CHECK: %[[L:.*]] = hlo.floor %[[K]] : tensor<4xf32>
  // CHECK: %[[M:.*]] = hlo.ceil %[[L]] : tensor<4xf32>
  // CHECK: return %[[M]]
  %0 = hlo.negate %x : tensor<4xf32>
  %1 = hlo.abs %0 : tensor<4xf32>
  %2 = hlo.sign %1 : tensor<4xf32>
  %3 = hlo.exp %2 : tensor<4xf32>
  %4 = hlo.log %3 : tensor<4xf32>
  %5 = hlo.tanh %4 : tensor<4xf32>
  %6 = hlo.logistic %5 : tensor<4xf32>
  %7 = hlo.sqrt %6 : tensor<4xf32>
  %8 = hlo.rsqrt %7 : tensor<4xf32>
  %9 = hlo.sin %8 : tensor<4xf32>
  %10 = hlo.cos %9 : tensor<4xf32>
  %11 = hlo.floor %10 : tensor<4xf32>
  %12 = hlo.ceil %11 : tensor<4xf32>
  return %12 : tensor<4xf32>
}

// CHECK-LABEL: func.func @float_types
func.func @float_types(%a: tensor<2xf16>, %b: tensor<2xbf16>, %c: tensor<f64>) -> (tensor<2xf16>, tensor<2xbf16>, tensor<f64>) {
  // CHECK: hlo.exp %{{.*}} : tensor<2xf16>
  %0 = hlo.exp %a : tensor<2xf16>
  // CHECK: hlo.multiply %{{.*}}, %{{.*}} : tensor<2xbf16>
  %1 = hlo.multiply %b, %b : tensor<2xbf16>
  // CHECK: hlo.power %{{.*}}, %{{.*}} : tensor<f64>
  %2 = hlo.power %c, %c : tensor<f64>
  return %0, %1, %2 : tensor<2xf16>, tensor<2xbf16>, tensor<f64>
}

// CHECK-LABEL: func.func @int_unary
func.func @int_unary(%a: tensor<3xi8>, %b: tensor<3xui32>, %p: tensor<3xi1>) -> (tensor<3xi8>, tensor<3xui32>, tensor<3xi1>) {
  // CHECK: hlo.negate %{{.*}} : tensor<3xi8>
  %0 = hlo.negate %a : tensor<3xi8>
  // CHECK: hlo.abs %{{.*}} : tensor<3xi8>
  %1 = hlo.abs %0 : tensor<3xi8>
  // CHECK: hlo.sign %{{.*}} : tensor<3xi8>
  %2 = hlo.sign %1 : tensor<3xi8>
  // CHECK: hlo.not %{{.*}} : tensor<3xui32>
  %3 = hlo.not %b : tensor<3xui32>
  // CHECK: hlo.not %{{.*}} : tensor<3xi1>
  %4 = hlo.not %p : tensor<3xi1>
  return %2, %3, %4 : tensor<3xi8>, tensor<3xui32>, tensor<3xi1>
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xi32>, %[[B:.*]]: tensor<2x3xi32>
func.func @binary(%a: tensor<2x3xi32>, %b: tensor<2x3xi32>, %p: tensor<i1>, %u: tensor<ui8>) -> (tensor<2x3xi32>, tensor<i1>, tensor<ui8>) {
  // CHECK: hlo.add %[[A]], %[[B]] : tensor<2x3xi32>
  %0 = hlo.add %a, %b : tensor<2x3xi32>
  // CHECK: hlo.subtract
  %1 = hlo.subtract %0, %b : tensor<2x3xi32>
  // CHECK: hlo.multiply
  %2 = hlo.multiply %1, %b : tensor<2x3xi32>
  // CHECK: hlo.divide
  %3 = hlo.divide %2, %b : tensor<2x3xi32>
  // CHECK: hlo.remainder
  %4 = hlo.remainder %3, %b : tensor<2x3xi32>
  // CHECK: hlo.maximum
  %5 = hlo.maximum %4, %b : tensor<2x3xi32>
  // CHECK: hlo.minimum
  %6 = hlo.minimum %5, %b : tensor<2x3xi32>
  // CHECK: hlo.power
  %7 = hlo.power %6, %b : tensor<2x3xi32>
  // CHECK: hlo.and
  %8 = hlo.and %7, %b : tensor<2x3xi32>
  // CHECK: hlo.or
  %9 = hlo.or %8, %b : tensor<2x3xi32>
  // CHECK: hlo.xor
  %10 = hlo.xor %9, %b : tensor<2x3xi32>
  // CHECK: hlo.and %{{.*}}, %{{.*}} : tensor<i1>
  %11 = hlo.and %p, %p : tensor<i1>
  // CHECK: hlo.maximum %{{.*}}, %{{.*}} : tensor<i1>
  %12 = hlo.maximum %11, %p : tensor<i1>
  // CHECK: hlo.divide %{{.*}}, %{{.*}} : tensor<ui8>
  %13 = hlo.divide %u, %u : tensor<ui8>
  return %10, %12, %13 : tensor<2x3xi32>, tensor<i1>, tensor<ui8>
}

// CHECK-LABEL: func.func @compare_select
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>
func.func @compare_select(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<ui32>) -> (tensor<4xf32>, tensor<i1>) {
  // CHECK: %[[P:.*]] = hlo.compare LT, %[[A]], %[[B]] : tensor<4xf32> -> tensor<4xi1>
  %p = hlo.compare LT, %a, %b : tensor<4xf32> -> tensor<4xi1>
  // CHECK: hlo.select %[[P]], %[[A]], %[[B]] : tensor<4xi1>, tensor<4xf32>
  %0 = hlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>
  // CHECK: hlo.compare EQ, %{{.*}}, %{{.*}} : tensor<ui32> -> tensor<i1>
  %1 = hlo.compare EQ, %i, %i : tensor<ui32> -> tensor<i1>
  // CHECK: hlo.compare NE,
  %2 = hlo.compare NE, %i, %i : tensor<ui32> -> tensor<i1>
  // CHECK: hlo.compare LE,
  %3 = hlo.compare LE, %i, %i : tensor<ui32> -> tensor<i1>
  // CHECK: hlo.compare GT,
  %4 = hlo.compare GT, %i, %i : tensor<ui32> -> tensor<i1>
  // CHECK: hlo.compare GE,
  %5 = hlo.compare GE, %i, %i : tensor<ui32> -> tensor<i1>
  %6 = hlo.and %1, %2 : tensor<i1>
  %7 = hlo.and %3, %4 : tensor<i1>
  %8 = hlo.and %5, %6 : tensor<i1>
  %9 = hlo.and %7, %8 : tensor<i1>
  return %0, %9 : tensor<4xf32>, tensor<i1>
}

// CHECK-LABEL: func.func @convert
func.func @convert(%a: tensor<4xf32>, %p: tensor<4xi1>) -> (tensor<4xi64>, tensor<4xbf16>) {
  // CHECK: hlo.convert %{{.*}} : tensor<4xf32> -> tensor<4xi64>
  %0 = hlo.convert %a : tensor<4xf32> -> tensor<4xi64>
  // CHECK: hlo.convert %{{.*}} : tensor<4xi1> -> tensor<4xbf16>
  %1 = hlo.convert %p : tensor<4xi1> -> tensor<4xbf16>
  return %0, %1 : tensor<4xi64>, tensor<4xbf16>
}

// CHECK-LABEL: func.func @shape_ops
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>
func.func @shape_ops(%x: tensor<3xf32>, %s: tensor<f64>, %e: tensor<0x3xf32>) -> (tensor<4x3xf32>, tensor<3x1xf32>, tensor<1x3xf32>, tensor<2x2xf64>, tensor<3x0xf32>) {
  // CHECK: %[[B:.*]] = hlo.broadcast_in_dim %[[X]], dims = [1] : tensor<3xf32> -> tensor<4x3xf32>
  %0 = hlo.broadcast_in_dim %x, dims = [1] : tensor<3xf32> -> tensor<4x3xf32>
  // CHECK: %[[R:.*]] = hlo.reshape %[[X]] : tensor<3xf32> -> tensor<3x1xf32>
  %1 = hlo.reshape %x : tensor<3xf32> -> tensor<3x1xf32>
  // CHECK: hlo.transpose %[[R]], dims = [1, 0] : tensor<3x1xf32> -> tensor<1x3xf32>
  %2 = hlo.transpose %1, dims = [1, 0] : tensor<3x1xf32> -> tensor<1x3xf32>
  // CHECK: hlo.broadcast_in_dim %{{.*}}, dims = [] : tensor<f64> -> tensor<2x2xf64>
  %3 = hlo.broadcast_in_dim %s, dims = [] : tensor<f64> -> tensor<2x2xf64>
  // CHECK: hlo.transpose %{{.*}}, dims = [1, 0] : tensor<0x3xf32> -> tensor<3x0xf32>
  %4 = hlo.transpose %e, dims = [1, 0] : tensor<0x3xf32> -> tensor<3x0xf32>
  return %0, %1, %2, %3, %4 : tensor<4x3xf32>, tensor<3x1xf32>, tensor<1x3xf32>, tensor<2x2xf64>, tensor<3x0xf32>
}

// CHECK-LABEL: func.func @reduce
func.func @reduce(%x: tensor<4x3xf32>, %p: tensor<4x3xi1>, %i: tensor<4x3xui8>, %e: tensor<0x3xf32>) -> (tensor<4xf32>, tensor<f32>, tensor<3xi1>, tensor<4xi1>, tensor<4xui8>, tensor<4x3xui8>, tensor<3xf32>) {
  // CHECK: hlo.reduce sum %{{.*}}, dims = [1] : tensor<4x3xf32> -> tensor<4xf32>
  %0 = hlo.reduce sum %x, dims = [1] : tensor<4x3xf32> -> tensor<4xf32>
  // CHECK: hlo.reduce max %{{.*}}, dims = [0, 1] : tensor<4x3xf32> -> tensor<f32>
  %1 = hlo.reduce max %x, dims = [0, 1] : tensor<4x3xf32> -> tensor<f32>
  // CHECK: hlo.reduce and %{{.*}}, dims = [0] : tensor<4x3xi1> -> tensor<3xi1>
  %2 = hlo.reduce and %p, dims = [0] : tensor<4x3xi1> -> tensor<3xi1>
  // CHECK: hlo.reduce or %{{.*}}, dims = [1] : tensor<4x3xi1> -> tensor<4xi1>
  %3 = hlo.reduce or %p, dims = [1] : tensor<4x3xi1> -> tensor<4xi1>
  // CHECK: hlo.reduce prod %{{.*}}, dims = [1] : tensor<4x3xui8> -> tensor<4xui8>
  %4 = hlo.reduce prod %i, dims = [1] : tensor<4x3xui8> -> tensor<4xui8>
  // CHECK: hlo.reduce min %{{.*}}, dims = [] : tensor<4x3xui8> -> tensor<4x3xui8>
  %5 = hlo.reduce min %i, dims = [] : tensor<4x3xui8> -> tensor<4x3xui8>
  // CHECK: hlo.reduce sum %{{.*}}, dims = [0] : tensor<0x3xf32> -> tensor<3xf32>
  %6 = hlo.reduce sum %e, dims = [0] : tensor<0x3xf32> -> tensor<3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<f32>, tensor<3xi1>, tensor<4xi1>, tensor<4xui8>, tensor<4x3xui8>, tensor<3xf32>
}

// CHECK-LABEL: func.func @dot_general
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<2x4x5xf32>
func.func @dot_general(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %m: tensor<3x4xi64>, %n: tensor<4xi64>) -> (tensor<2x3x5xf32>, tensor<3xi64>) {
  // CHECK: hlo.dot_general %[[A]], %[[B]], batch_dims = [0] x [0], contracting_dims = [2] x [1] : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  %0 = hlo.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [2] x [1]
       : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  // CHECK: hlo.dot_general %{{.*}}, %{{.*}}, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<3x4xi64>, tensor<4xi64> -> tensor<3xi64>
  %1 = hlo.dot_general %m, %n, batch_dims = [] x [], contracting_dims = [1] x [0]
       : tensor<3x4xi64>, tensor<4xi64> -> tensor<3xi64>
  return %0, %1 : tensor<2x3x5xf32>, tensor<3xi64>
}
