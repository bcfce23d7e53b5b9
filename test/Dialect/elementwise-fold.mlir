// Constant folding of the bit ops, bitcast_convert, clamp, the extra float
// math and cumulative.
// RUN: hlo-opt %s --canonicalize --split-input-file | FileCheck %s

// Shifts by at least the bit width give 0 (or all sign bits); negative
// amounts are huge unsigned amounts.
// CHECK-LABEL: func.func @fold_shifts
// CHECK-DAG: hlo.constant dense<[2, 0, 0, 0]> : tensor<4xi8>
// CHECK-DAG: hlo.constant dense<0> : tensor<4xi8>
// CHECK-DAG: hlo.constant dense<[0, -1, -1, -1]> : tensor<4xi8>
// CHECK-NOT: hlo.shift
func.func @fold_shifts() -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>) {
  %a = hlo.constant dense<[1, -128, -1, -7]> : tensor<4xi8>
  %b = hlo.constant dense<[1, 8, 100, -1]> : tensor<4xi8>
  %0 = hlo.shift_left %a, %b : tensor<4xi8>
  %1 = hlo.shift_right_logical %a, %b : tensor<4xi8>
  %2 = hlo.shift_right_arithmetic %a, %b : tensor<4xi8>
  return %0, %1, %2 : tensor<4xi8>, tensor<4xi8>, tensor<4xi8>
}

// -----

// CHECK-LABEL: func.func @fold_bit_counts
// CHECK-DAG: hlo.constant dense<[0, 1, 8, 4]> : tensor<4xui8>
// CHECK-DAG: hlo.constant dense<[8, 7, 0, 0]> : tensor<4xui8>
func.func @fold_bit_counts() -> (tensor<4xui8>, tensor<4xui8>) {
  %a = hlo.constant dense<[0, 1, 255, 240]> : tensor<4xui8>
  %0 = hlo.popcnt %a : tensor<4xui8>
  %1 = hlo.count_leading_zeros %a : tensor<4xui8>
  return %0, %1 : tensor<4xui8>, tensor<4xui8>
}

// -----

// CHECK-LABEL: func.func @fold_bitcast_convert
// CHECK: hlo.constant dense<[1065353216, -1073741824]> : tensor<2xi32>
func.func @fold_bitcast_convert() -> tensor<2xi32> {
  %a = hlo.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %0 = hlo.bitcast_convert %a : tensor<2xf32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @bitcast_convert_same_type_folds_away
// CHECK-SAME: (%[[X:.*]]: tensor<2xi32>)
// CHECK: return %[[X]]
func.func @bitcast_convert_same_type_folds_away(%x: tensor<2xi32>) -> tensor<2xi32> {
  %0 = hlo.bitcast_convert %x : tensor<2xi32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @fold_clamp
// CHECK-DAG: hlo.constant dense<[0.000000e+00, 5.000000e-01, 1.000000e+00]> : tensor<3xf32>
// CHECK-DAG: hlo.constant dense<[200, 10, 20]> : tensor<3xui8>
func.func @fold_clamp() -> (tensor<3xf32>, tensor<3xui8>) {
  %lo = hlo.constant dense<0.0> : tensor<f32>
  %hi = hlo.constant dense<1.0> : tensor<f32>
  %x = hlo.constant dense<[-3.0, 0.5, 7.0]> : tensor<3xf32>
  %0 = hlo.clamp %lo, %x, %hi : tensor<f32>, tensor<3xf32>, tensor<f32>
  %ulo = hlo.constant dense<[200, 0, 20]> : tensor<3xui8>
  %uhi = hlo.constant dense<250> : tensor<ui8>
  %u = hlo.constant dense<[100, 10, 1]> : tensor<3xui8>
  %1 = hlo.clamp %ulo, %u, %uhi : tensor<3xui8>, tensor<3xui8>, tensor<ui8>
  return %0, %1 : tensor<3xf32>, tensor<3xui8>
}

// -----

// CHECK-LABEL: func.func @fold_float_math
// CHECK-DAG: hlo.constant dense<[0.000000e+00, 2.000000e+00, -2.000000e+00, 3.000000e+00]> : tensor<4xf32>
// CHECK-DAG: hlo.constant dense<[0.000000e+00, 3.000000e+00, -3.000000e+00, 3.000000e+00]> : tensor<4xf32>
// CHECK-DAG: hlo.constant dense<[false, false, false, true]> : tensor<4xi1>
// CHECK-DAG: hlo.constant dense<9.9999999995000007E-11> : tensor<f64>
// CHECK-DAG: hlo.constant dense<1.401300e-45> : tensor<f32>
// CHECK-NOT: hlo.round
// CHECK-NOT: hlo.log_plus_one
func.func @fold_float_math() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<f64>, tensor<f32>) {
  %x = hlo.constant dense<[0.4, 2.5, -2.5, 3.0]> : tensor<4xf32>
  %0 = hlo.round_nearest_even %x : tensor<4xf32>
  %1 = hlo.round_nearest_afz %x : tensor<4xf32>
  // -inf, +inf, NaN, 0.0
  %special = hlo.constant dense<"0x000080FF0000807F0000C07F00000000"> : tensor<4xf32>
  %2 = hlo.is_finite %special : tensor<4xf32> -> tensor<4xi1>
  %tiny = hlo.constant dense<1.0e-10> : tensor<f64>
  %3 = hlo.log_plus_one %tiny : tensor<f64>
  %zero = hlo.constant dense<0.0> : tensor<f32>
  %one = hlo.constant dense<1.0> : tensor<f32>
  %4 = hlo.next_after %zero, %one : tensor<f32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<f64>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @cumulative_over_size_one_folds_away
// CHECK-SAME: (%[[X:.*]]: tensor<1x3xf32>)
// CHECK: return %[[X]]
func.func @cumulative_over_size_one_folds_away(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %0 = hlo.cumulative sum %x, dim = 0, reverse = false : tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}
