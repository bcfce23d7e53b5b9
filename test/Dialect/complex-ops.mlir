// Round-trip of complex values: constants (nested, hex and splat forms),
// the ops that take complex values apart and build them, and the ops that
// accept complex operands, in the custom syntax and in the generic form.
// RUN: hlo-opt %s | hlo-opt | FileCheck %s
// RUN: hlo-opt %s --mlir-print-op-generic | hlo-opt | FileCheck %s

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<3xcomplex<f64>>) {
  // CHECK: hlo.constant dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,-4.000000e+00)]> : tensor<2xcomplex<f32>>
  %0 = hlo.constant dense<[(1.0,2.0), (3.0,-4.0)]> : tensor<2xcomplex<f32>>
  // Little-endian (re, im) pairs: (1, 2), (3, 4).
  // CHECK: hlo.constant dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,4.000000e+00)]> : tensor<2xcomplex<f32>>
  %1 = hlo.constant dense<"0x0000803F000000400000404000008040"> : tensor<2xcomplex<f32>>
  // CHECK: hlo.constant dense<(1.000000e+00,-1.000000e+00)> : tensor<3xcomplex<f64>>
  %2 = hlo.constant dense<(1.0,-1.0)> : tensor<3xcomplex<f64>>
  return %0, %1, %2 : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<3xcomplex<f64>>
}

// CHECK-LABEL: func.func @parts
func.func @parts(%z: tensor<4xcomplex<f32>>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: hlo.real %{{.*}} : tensor<4xcomplex<f32>> -> tensor<4xf32>
  %0 = hlo.real %z : tensor<4xcomplex<f32>> -> tensor<4xf32>
  // CHECK: hlo.imag %{{.*}} : tensor<4xcomplex<f32>> -> tensor<4xf32>
  %1 = hlo.imag %z : tensor<4xcomplex<f32>> -> tensor<4xf32>
  // CHECK: hlo.complex %{{.*}}, %{{.*}} : tensor<4xf32> -> tensor<4xcomplex<f32>>
  %2 = hlo.complex %0, %1 : tensor<4xf32> -> tensor<4xcomplex<f32>>
  // CHECK: hlo.conj %{{.*}} : tensor<4xcomplex<f32>>
  %3 = hlo.conj %2 : tensor<4xcomplex<f32>>
  // CHECK: hlo.abs %{{.*}} : tensor<4xcomplex<f32>> -> tensor<4xf32>
  %4 = hlo.abs %3 : tensor<4xcomplex<f32>> -> tensor<4xf32>
  // The real form writes its type once.
  // CHECK: hlo.abs %{{.*}} : tensor<4xf32>{{$}}
  %5 = hlo.abs %x : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @arithmetic
func.func @arithmetic(%a: tensor<4xcomplex<f64>>, %b: tensor<4xcomplex<f64>>) -> (tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>) {
  // CHECK: hlo.add %{{.*}}, %{{.*}} : tensor<4xcomplex<f64>>
  %0 = hlo.add %a, %b : tensor<4xcomplex<f64>>
  // CHECK: hlo.subtract
  %1 = hlo.subtract %0, %b : tensor<4xcomplex<f64>>
  // CHECK: hlo.multiply
  %2 = hlo.multiply %1, %a : tensor<4xcomplex<f64>>
  // CHECK: hlo.divide
  %3 = hlo.divide %2, %b : tensor<4xcomplex<f64>>
  // CHECK: hlo.negate
  %4 = hlo.negate %3 : tensor<4xcomplex<f64>>
  // CHECK: hlo.power
  %5 = hlo.power %4, %a : tensor<4xcomplex<f64>>
  // CHECK: hlo.exp
  %6 = hlo.exp %5 : tensor<4xcomplex<f64>>
  // CHECK: hlo.log
  %7 = hlo.log %6 : tensor<4xcomplex<f64>>
  // CHECK: hlo.log_plus_one
  %8 = hlo.log_plus_one %7 : tensor<4xcomplex<f64>>
  // CHECK: hlo.exponential_minus_one
  %9 = hlo.exponential_minus_one %8 : tensor<4xcomplex<f64>>
  // CHECK: hlo.sqrt
  %10 = hlo.sqrt %9 : tensor<4xcomplex<f64>>
  // CHECK: hlo.rsqrt
  %11 = hlo.rsqrt %10 : tensor<4xcomplex<f64>>
  // CHECK: hlo.sin
  %12 = hlo.sin %11 : tensor<4xcomplex<f64>>
  // CHECK: hlo.cos
  %13 = hlo.cos %12 : tensor<4xcomplex<f64>>
  // CHECK: hlo.tan
  %14 = hlo.tan %13 : tensor<4xcomplex<f64>>
  // CHECK: hlo.tanh
  %15 = hlo.tanh %14 : tensor<4xcomplex<f64>>
  // CHECK: hlo.sign %{{.*}} : tensor<4xcomplex<f64>>
  %16 = hlo.sign %15 : tensor<4xcomplex<f64>>
  return %0, %5, %16 : tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>
}

// CHECK-LABEL: func.func @hyperbolic_and_inverse
func.func @hyperbolic_and_inverse(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // CHECK: hlo.sinh %{{.*}} : tensor<4xcomplex<f32>>
  %0 = hlo.sinh %a : tensor<4xcomplex<f32>>
  // CHECK: hlo.cosh
  %1 = hlo.cosh %0 : tensor<4xcomplex<f32>>
  // CHECK: hlo.asin
  %2 = hlo.asin %1 : tensor<4xcomplex<f32>>
  // CHECK: hlo.acos
  %3 = hlo.acos %2 : tensor<4xcomplex<f32>>
  // CHECK: hlo.atan
  %4 = hlo.atan %3 : tensor<4xcomplex<f32>>
  // CHECK: hlo.asinh
  %5 = hlo.asinh %4 : tensor<4xcomplex<f32>>
  // CHECK: hlo.acosh
  %6 = hlo.acosh %5 : tensor<4xcomplex<f32>>
  // CHECK: hlo.atanh
  %7 = hlo.atanh %6 : tensor<4xcomplex<f32>>
  // CHECK: hlo.logistic %{{.*}} : tensor<4xcomplex<f32>>
  %8 = hlo.logistic %7 : tensor<4xcomplex<f32>>
  return %8 : tensor<4xcomplex<f32>>
}

// CHECK-LABEL: func.func @compare_select_convert
func.func @compare_select_convert(%a: tensor<4xcomplex<f32>>, %b: tensor<4xcomplex<f32>>, %x: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<4xcomplex<f64>>) {
  // CHECK: hlo.compare EQ, %{{.*}}, %{{.*}} : tensor<4xcomplex<f32>> -> tensor<4xi1>
  %0 = hlo.compare EQ, %a, %b : tensor<4xcomplex<f32>> -> tensor<4xi1>
  // CHECK: hlo.compare NE
  %1 = hlo.compare NE, %a, %b : tensor<4xcomplex<f32>> -> tensor<4xi1>
  // CHECK: hlo.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xcomplex<f32>>
  %2 = hlo.select %1, %a, %b : tensor<4xi1>, tensor<4xcomplex<f32>>
  // CHECK: hlo.convert %{{.*}} : tensor<4xf32> -> tensor<4xcomplex<f32>>
  %3 = hlo.convert %x : tensor<4xf32> -> tensor<4xcomplex<f32>>
  // CHECK: hlo.convert %{{.*}} : tensor<4xcomplex<f32>> -> tensor<4xf32>
  %4 = hlo.convert %a : tensor<4xcomplex<f32>> -> tensor<4xf32>
  // CHECK: hlo.convert %{{.*}} : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f64>>
  %5 = hlo.convert %a : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f64>>
  return %0, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<4xcomplex<f64>>
}

// CHECK-LABEL: func.func @shape_ops
func.func @shape_ops(%a: tensor<2x3xcomplex<f32>>, %p: tensor<complex<f32>>, %i: tensor<i32>) -> (tensor<4x2x3xcomplex<f32>>, tensor<6xcomplex<f32>>, tensor<3x2xcomplex<f32>>, tensor<1x3xcomplex<f32>>, tensor<4x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>, tensor<1x2xcomplex<f32>>, tensor<2x3xcomplex<f32>>) {
  // CHECK: hlo.broadcast_in_dim %{{.*}}, dims = [1, 2] : tensor<2x3xcomplex<f32>> -> tensor<4x2x3xcomplex<f32>>
  %0 = hlo.broadcast_in_dim %a, dims = [1, 2] : tensor<2x3xcomplex<f32>> -> tensor<4x2x3xcomplex<f32>>
  // CHECK: hlo.reshape
  %1 = hlo.reshape %a : tensor<2x3xcomplex<f32>> -> tensor<6xcomplex<f32>>
  // CHECK: hlo.transpose
  %2 = hlo.transpose %a, dims = [1, 0] : tensor<2x3xcomplex<f32>> -> tensor<3x2xcomplex<f32>>
  // CHECK: hlo.slice
  %3 = hlo.slice %a, start = [1, 0], limit = [2, 3], strides = [1, 1] : tensor<2x3xcomplex<f32>> -> tensor<1x3xcomplex<f32>>
  // CHECK: hlo.concatenate
  %4 = hlo.concatenate dim = 0, %a, %a : tensor<2x3xcomplex<f32>>, tensor<2x3xcomplex<f32>> -> tensor<4x3xcomplex<f32>>
  // CHECK: hlo.pad
  %5 = hlo.pad %a, %p, low = [1, 0], high = [0, 0], interior = [0, 0] : tensor<2x3xcomplex<f32>>, tensor<complex<f32>> -> tensor<3x3xcomplex<f32>>
  // CHECK: hlo.reverse
  %6 = hlo.reverse %a, dims = [0] : tensor<2x3xcomplex<f32>>
  // CHECK: hlo.dynamic_slice
  %7 = hlo.dynamic_slice %a[%i, %i], sizes = [1, 2] : tensor<2x3xcomplex<f32>>[tensor<i32>, tensor<i32>] -> tensor<1x2xcomplex<f32>>
  // CHECK: hlo.dynamic_update_slice
  %8 = hlo.dynamic_update_slice %a[%i, %i], %7 : tensor<2x3xcomplex<f32>>[tensor<i32>, tensor<i32>], tensor<1x2xcomplex<f32>>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4x2x3xcomplex<f32>>, tensor<6xcomplex<f32>>, tensor<3x2xcomplex<f32>>, tensor<1x3xcomplex<f32>>, tensor<4x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>, tensor<1x2xcomplex<f32>>, tensor<2x3xcomplex<f32>>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%a: tensor<2x3xcomplex<f64>>, %b: tensor<3x4xcomplex<f64>>) -> (tensor<2xcomplex<f64>>, tensor<3xcomplex<f64>>, tensor<2x3xcomplex<f64>>, tensor<2x4xcomplex<f64>>) {
  // CHECK: hlo.reduce sum %{{.*}}, dims = [1] : tensor<2x3xcomplex<f64>> -> tensor<2xcomplex<f64>>
  %0 = hlo.reduce sum %a, dims = [1] : tensor<2x3xcomplex<f64>> -> tensor<2xcomplex<f64>>
  // CHECK: hlo.reduce prod
  %1 = hlo.reduce prod %a, dims = [0] : tensor<2x3xcomplex<f64>> -> tensor<3xcomplex<f64>>
  // CHECK: hlo.cumulative sum
  %2 = hlo.cumulative sum %a, dim = 1, reverse = false : tensor<2x3xcomplex<f64>>
  // CHECK: hlo.dot_general %{{.*}}, %{{.*}}, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<2x3xcomplex<f64>>, tensor<3x4xcomplex<f64>> -> tensor<2x4xcomplex<f64>>
  %3 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<2x3xcomplex<f64>>, tensor<3x4xcomplex<f64>> -> tensor<2x4xcomplex<f64>>
  return %0, %1, %2, %3 : tensor<2xcomplex<f64>>, tensor<3xcomplex<f64>>, tensor<2x3xcomplex<f64>>, tensor<2x4xcomplex<f64>>
}

// CHECK-LABEL: func.func @control_flow
func.func @control_flow(%p: tensor<i1>, %a: tensor<2xcomplex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) {
  // CHECK: hlo.if
  %0 = hlo.if %p -> (tensor<2xcomplex<f32>>) {
    hlo.return %a : tensor<2xcomplex<f32>>
  } else {
    %n = hlo.negate %a : tensor<2xcomplex<f32>>
    hlo.return %n : tensor<2xcomplex<f32>>
  }
  // CHECK: hlo.optimization_barrier
  %1 = hlo.optimization_barrier %0 : tensor<2xcomplex<f32>>
  return %0, %1 : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
}
