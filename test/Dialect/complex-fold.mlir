// Folders on complex values: ops on complex constants stay as they are
// (the folders compute on real elements), identity folds still apply, and
// an empty complex reduction folds to its identity.
// RUN: hlo-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @no_constant_folding
// CHECK: hlo.add
// CHECK: hlo.negate
// CHECK: hlo.exp
// CHECK: hlo.power
// CHECK: hlo.sign
// CHECK: hlo.abs
// CHECK: hlo.compare
// CHECK: hlo.convert
// CHECK: hlo.convert
// CHECK: hlo.reshape
// CHECK: hlo.slice
// CHECK: hlo.concatenate
// CHECK: hlo.pad
// CHECK: hlo.reverse
func.func @no_constant_folding() -> (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xf32>, tensor<2xi1>, tensor<2xf32>, tensor<2xcomplex<f32>>, tensor<1x2xcomplex<f32>>, tensor<1xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<3xcomplex<f32>>, tensor<2xcomplex<f32>>) {
  %c = hlo.constant dense<[(1.0,2.0), (3.0,-4.0)]> : tensor<2xcomplex<f32>>
  %p = hlo.constant dense<(0.0,1.0)> : tensor<complex<f32>>
  %f = hlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = hlo.add %c, %c : tensor<2xcomplex<f32>>
  %1 = hlo.negate %c : tensor<2xcomplex<f32>>
  %2 = hlo.exp %c : tensor<2xcomplex<f32>>
  %3 = hlo.power %c, %c : tensor<2xcomplex<f32>>
  %4 = hlo.sign %c : tensor<2xcomplex<f32>>
  %5 = hlo.abs %c : tensor<2xcomplex<f32>> -> tensor<2xf32>
  %6 = hlo.compare EQ, %c, %c : tensor<2xcomplex<f32>> -> tensor<2xi1>
  %7 = hlo.convert %c : tensor<2xcomplex<f32>> -> tensor<2xf32>
  %8 = hlo.convert %f : tensor<2xf32> -> tensor<2xcomplex<f32>>
  %9 = hlo.reshape %c : tensor<2xcomplex<f32>> -> tensor<1x2xcomplex<f32>>
  %10 = hlo.slice %c, start = [1], limit = [2], strides = [1] : tensor<2xcomplex<f32>> -> tensor<1xcomplex<f32>>
  %11 = hlo.concatenate dim = 0, %c, %c : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>> -> tensor<4xcomplex<f32>>
  %12 = hlo.pad %c, %p, low = [1], high = [0], interior = [0] : tensor<2xcomplex<f32>>, tensor<complex<f32>> -> tensor<3xcomplex<f32>>
  %13 = hlo.reverse %c, dims = [0] : tensor<2xcomplex<f32>>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13 : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xf32>, tensor<2xi1>, tensor<2xf32>, tensor<2xcomplex<f32>>, tensor<1x2xcomplex<f32>>, tensor<1xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<3xcomplex<f32>>, tensor<2xcomplex<f32>>
}

// -----

// CHECK-LABEL: func.func @identity_folds
// CHECK-SAME: (%[[Z:.*]]: tensor<2x3xcomplex<f64>>, %[[P:.*]]: tensor<2x3xi1>)
// CHECK-NEXT: return %[[Z]], %[[Z]], %[[Z]], %[[Z]]
func.func @identity_folds(%z: tensor<2x3xcomplex<f64>>, %p: tensor<2x3xi1>) -> (tensor<2x3xcomplex<f64>>, tensor<2x3xcomplex<f64>>, tensor<2x3xcomplex<f64>>, tensor<2x3xcomplex<f64>>) {
  %0 = hlo.convert %z : tensor<2x3xcomplex<f64>> -> tensor<2x3xcomplex<f64>>
  %1 = hlo.reshape %z : tensor<2x3xcomplex<f64>> -> tensor<2x3xcomplex<f64>>
  %2 = hlo.transpose %z, dims = [0, 1] : tensor<2x3xcomplex<f64>> -> tensor<2x3xcomplex<f64>>
  %3 = hlo.reduce sum %z, dims = [] : tensor<2x3xcomplex<f64>> -> tensor<2x3xcomplex<f64>>
  return %0, %1, %2, %3 : tensor<2x3xcomplex<f64>>, tensor<2x3xcomplex<f64>>, tensor<2x3xcomplex<f64>>, tensor<2x3xcomplex<f64>>
}

// -----

// CHECK-LABEL: func.func @empty_reductions
// CHECK-DAG: hlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<3xcomplex<f32>>
// CHECK-DAG: hlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<2xcomplex<f64>>
// CHECK-NOT: hlo.reduce
func.func @empty_reductions(%a: tensor<3x0xcomplex<f32>>, %b: tensor<0x2xcomplex<f64>>) -> (tensor<3xcomplex<f32>>, tensor<2xcomplex<f64>>) {
  %0 = hlo.reduce sum %a, dims = [1] : tensor<3x0xcomplex<f32>> -> tensor<3xcomplex<f32>>
  %1 = hlo.reduce prod %b, dims = [0] : tensor<0x2xcomplex<f64>> -> tensor<2xcomplex<f64>>
  return %0, %1 : tensor<3xcomplex<f32>>, tensor<2xcomplex<f64>>
}
