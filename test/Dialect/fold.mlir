// Constant folding and identity folds of hlo ops.
// RUN: hlo-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @fold_unary_int
func.func @fold_unary_int() -> (tensor<3xi8>, tensor<3xi8>, tensor<3xi8>, tensor<2xui8>, tensor<2xui8>, tensor<2xui8>, tensor<2xi1>) {
  %i = hlo.constant dense<[-128, -5, 0]> : tensor<3xi8>
  %u = hlo.constant dense<[0, 200]> : tensor<2xui8>
  %p = hlo.constant dense<[true, false]> : tensor<2xi1>
  // Negation and abs wrap at INT_MIN (both give the same constant).
  // CHECK-DAG: %[[NEG:.*]] = hlo.constant dense<[-128, 5, 0]> : tensor<3xi8>
  %0 = hlo.negate %i : tensor<3xi8>
  %1 = hlo.abs %i : tensor<3xi8>
  // CHECK-DAG: %[[SIGN:.*]] = hlo.constant dense<[-1, -1, 0]> : tensor<3xi8>
  %2 = hlo.sign %i : tensor<3xi8>
  // Unsigned: negate wraps, sign is 0 or 1.
  // CHECK-DAG: %[[UNEG:.*]] = hlo.constant dense<[0, 56]> : tensor<2xui8>
  %3 = hlo.negate %u : tensor<2xui8>
  // CHECK-DAG: %[[USIGN:.*]] = hlo.constant dense<[0, 1]> : tensor<2xui8>
  %4 = hlo.sign %u : tensor<2xui8>
  // CHECK-DAG: %[[UNOT:.*]] = hlo.constant dense<[255, 55]> : tensor<2xui8>
  %5 = hlo.not %u : tensor<2xui8>
  // CHECK-DAG: %[[PNOT:.*]] = hlo.constant dense<[false, true]> : tensor<2xi1>
  %6 = hlo.not %p : tensor<2xi1>
  // CHECK: return %[[NEG]], %[[NEG]], %[[SIGN]], %[[UNEG]], %[[USIGN]], %[[UNOT]], %[[PNOT]]
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xi8>, tensor<3xi8>, tensor<3xi8>, tensor<2xui8>, tensor<2xui8>, tensor<2xui8>, tensor<2xi1>
}

// -----

// CHECK-LABEL: func.func @fold_unary_float
func.func @fold_unary_float() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %x = hlo.constant dense<[-1.5, -0.0, 0x7FC00000, 2.5]> : tensor<4xf32>
  // CHECK-DAG: hlo.constant dense<[1.500000e+00, 0.000000e+00, 0xFFC00000, -2.500000e+00]>
  %0 = hlo.negate %x : tensor<4xf32>
  // CHECK-DAG: hlo.constant dense<[1.500000e+00, 0.000000e+00, 0x7FC00000, 2.500000e+00]>
  %1 = hlo.abs %x : tensor<4xf32>
  // sign keeps -0.0 and NaN.
  // CHECK-DAG: hlo.constant dense<[-1.000000e+00, -0.000000e+00, 0x7FC00000, 1.000000e+00]>
  %2 = hlo.sign %x : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_transcendental
func.func @fold_transcendental() -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f64>, tensor<f32>, tensor<f16>, tensor<bf16>, tensor<2xf32>, tensor<2xf32>) {
  %zero = hlo.constant dense<0.0> : tensor<f32>
  %one = hlo.constant dense<1.0> : tensor<f32>
  %four = hlo.constant dense<4.0> : tensor<f64>
  %h = hlo.constant dense<4.0> : tensor<f16>
  %b = hlo.constant dense<0.0> : tensor<bf16>
  %r = hlo.constant dense<[-1.5, 2.5]> : tensor<2xf32>
  // CHECK-DAG: %[[ONE:.*]] = hlo.constant dense<1.000000e+00> : tensor<f32>
  %0 = hlo.exp %zero : tensor<f32>
  // CHECK-DAG: %[[ZERO:.*]] = hlo.constant dense<0.000000e+00> : tensor<f32>
  %1 = hlo.log %one : tensor<f32>
  %2 = hlo.tanh %zero : tensor<f32>
  // CHECK-DAG: %[[HALF:.*]] = hlo.constant dense<5.000000e-01> : tensor<f32>
  %3 = hlo.logistic %zero : tensor<f32>
  // CHECK-DAG: %[[TWO:.*]] = hlo.constant dense<2.000000e+00> : tensor<f64>
  %4 = hlo.sqrt %four : tensor<f64>
  %5 = hlo.cos %zero : tensor<f32>
  // CHECK-DAG: %[[RS:.*]] = hlo.constant dense<5.000000e-01> : tensor<f16>
  %6 = hlo.rsqrt %h : tensor<f16>
  // CHECK-DAG: %[[SIN:.*]] = hlo.constant dense<0.000000e+00> : tensor<bf16>
  %7 = hlo.sin %b : tensor<bf16>
  // CHECK-DAG: %[[FLOOR:.*]] = hlo.constant dense<[-2.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %8 = hlo.floor %r : tensor<2xf32>
  // CHECK-DAG: %[[CEIL:.*]] = hlo.constant dense<[-1.000000e+00, 3.000000e+00]> : tensor<2xf32>
  %9 = hlo.ceil %r : tensor<2xf32>
  // CHECK: return %[[ONE]], %[[ZERO]], %[[ZERO]], %[[HALF]], %[[TWO]], %[[ONE]], %[[RS]], %[[SIN]], %[[FLOOR]], %[[CEIL]]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f64>, tensor<f32>, tensor<f16>, tensor<bf16>, tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @fold_arith_wraps
func.func @fold_arith_wraps() -> (tensor<2xi8>, tensor<2xi8>, tensor<2xi8>, tensor<2xui8>, tensor<2xui8>) {
  %a = hlo.constant dense<[127, -128]> : tensor<2xi8>
  %one = hlo.constant dense<1> : tensor<2xi8>
  %u = hlo.constant dense<[255, 0]> : tensor<2xui8>
  %uone = hlo.constant dense<1> : tensor<2xui8>
  // CHECK-DAG: hlo.constant dense<[-128, -127]> : tensor<2xi8>
  %0 = hlo.add %a, %one : tensor<2xi8>
  // CHECK-DAG: hlo.constant dense<[126, 127]> : tensor<2xi8>
  %1 = hlo.subtract %a, %one : tensor<2xi8>
  // 127 * 127 = 16129 = 63 * 256 + 1.
  // CHECK-DAG: hlo.constant dense<[1, 0]> : tensor<2xi8>
  %2 = hlo.multiply %a, %a : tensor<2xi8>
  // CHECK-DAG: hlo.constant dense<[0, 1]> : tensor<2xui8>
  %3 = hlo.add %u, %uone : tensor<2xui8>
  // CHECK-DAG: hlo.constant dense<[254, 255]> : tensor<2xui8>
  %4 = hlo.subtract %u, %uone : tensor<2xui8>
  return %0, %1, %2, %3, %4 : tensor<2xi8>, tensor<2xi8>, tensor<2xi8>, tensor<2xui8>, tensor<2xui8>
}

// -----

// XLA semantics: x / 0 = -1 (all ones), x % 0 = x, INT_MIN / -1 = INT_MIN,
// INT_MIN % -1 = 0. Integer division rounds toward zero.
// CHECK-LABEL: func.func @fold_int_division
func.func @fold_int_division() -> (tensor<5xi8>, tensor<5xi8>, tensor<3xui8>, tensor<3xui8>, tensor<i64>, tensor<i64>) {
  %a = hlo.constant dense<[7, -7, 5, -128, -128]> : tensor<5xi8>
  %b = hlo.constant dense<[2, 2, 0, -1, 0]> : tensor<5xi8>
  %u = hlo.constant dense<[7, 5, 255]> : tensor<3xui8>
  %v = hlo.constant dense<[2, 0, 254]> : tensor<3xui8>
  %x = hlo.constant dense<9223372036854775807> : tensor<i64>
  %z = hlo.constant dense<0> : tensor<i64>
  // CHECK-DAG: hlo.constant dense<[3, -3, -1, -128, -1]> : tensor<5xi8>
  %0 = hlo.divide %a, %b : tensor<5xi8>
  // CHECK-DAG: hlo.constant dense<[1, -1, 5, 0, -128]> : tensor<5xi8>
  %1 = hlo.remainder %a, %b : tensor<5xi8>
  // Unsigned: x / 0 is the largest value.
  // CHECK-DAG: hlo.constant dense<[3, 255, 1]> : tensor<3xui8>
  %2 = hlo.divide %u, %v : tensor<3xui8>
  // CHECK-DAG: hlo.constant dense<[1, 5, 1]> : tensor<3xui8>
  %3 = hlo.remainder %u, %v : tensor<3xui8>
  // CHECK-DAG: hlo.constant dense<-1> : tensor<i64>
  %4 = hlo.divide %x, %z : tensor<i64>
  // CHECK-DAG: hlo.constant dense<9223372036854775807> : tensor<i64>
  %5 = hlo.remainder %x, %z : tensor<i64>
  // CHECK-NOT: hlo.divide
  // CHECK-NOT: hlo.remainder
  return %0, %1, %2, %3, %4, %5 : tensor<5xi8>, tensor<5xi8>, tensor<3xui8>, tensor<3xui8>, tensor<i64>, tensor<i64>
}

// -----

// CHECK-LABEL: func.func @fold_float_division
func.func @fold_float_division() -> (tensor<3xf32>, tensor<3xf32>) {
  %a = hlo.constant dense<[1.0, -7.5, 0.0]> : tensor<3xf32>
  %b = hlo.constant dense<[0.0, 2.0, 0.0]> : tensor<3xf32>
  // CHECK-DAG: hlo.constant dense<[0x7F800000, -3.750000e+00, 0x7FC00000]> : tensor<3xf32>
  %0 = hlo.divide %a, %b : tensor<3xf32>
  // The remainder has the sign of the dividend (fmod).
  // CHECK-DAG: hlo.constant dense<[0x7FC00000, -1.500000e+00, 0x7FC00000]> : tensor<3xf32>
  %1 = hlo.remainder %a, %b : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// maximum/minimum propagate NaN and order -0.0 below +0.0.
// CHECK-LABEL: func.func @fold_max_min_float
func.func @fold_max_min_float() -> (tensor<3xf32>, tensor<3xf32>) {
  %a = hlo.constant dense<[0x7FC00000, -0.0, 1.0]> : tensor<3xf32>
  %b = hlo.constant dense<[1.0, 0.0, 0x7FC00000]> : tensor<3xf32>
  // CHECK-DAG: hlo.constant dense<[0x7FC00000, 0.000000e+00, 0x7FC00000]> : tensor<3xf32>
  %0 = hlo.maximum %a, %b : tensor<3xf32>
  // CHECK-DAG: hlo.constant dense<[0x7FC00000, -0.000000e+00, 0x7FC00000]> : tensor<3xf32>
  %1 = hlo.minimum %a, %b : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Signless integers compare signed, ui and i1 unsigned.
// CHECK-LABEL: func.func @fold_max_min_int
func.func @fold_max_min_int() -> (tensor<2xi8>, tensor<2xui8>, tensor<2xi1>, tensor<2xi1>) {
  %a = hlo.constant dense<[-1, 3]> : tensor<2xi8>
  %b = hlo.constant dense<[1, 2]> : tensor<2xi8>
  %u = hlo.constant dense<[255, 3]> : tensor<2xui8>
  %v = hlo.constant dense<[1, 2]> : tensor<2xui8>
  %p = hlo.constant dense<[true, false]> : tensor<2xi1>
  %q = hlo.constant dense<[false, false]> : tensor<2xi1>
  // CHECK-DAG: hlo.constant dense<[1, 3]> : tensor<2xi8>
  %0 = hlo.maximum %a, %b : tensor<2xi8>
  // CHECK-DAG: hlo.constant dense<[1, 2]> : tensor<2xui8>
  %1 = hlo.minimum %u, %v : tensor<2xui8>
  // CHECK-DAG: hlo.constant dense<[true, false]> : tensor<2xi1>
  %2 = hlo.maximum %p, %q : tensor<2xi1>
  // CHECK-DAG: hlo.constant dense<false> : tensor<2xi1>
  %3 = hlo.minimum %p, %q : tensor<2xi1>
  return %0, %1, %2, %3 : tensor<2xi8>, tensor<2xui8>, tensor<2xi1>, tensor<2xi1>
}

// -----

// CHECK-LABEL: func.func @fold_power
func.func @fold_power() -> (tensor<3xi8>, tensor<2xf32>) {
  %a = hlo.constant dense<[3, 2, -2]> : tensor<3xi8>
  %b = hlo.constant dense<[4, 8, 3]> : tensor<3xi8>
  %x = hlo.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %y = hlo.constant dense<[-1.0, 0.5]> : tensor<2xf32>
  // Integer powers wrap: 2^8 = 0 in i8.
  // CHECK-DAG: hlo.constant dense<[81, 0, -8]> : tensor<3xi8>
  %0 = hlo.power %a, %b : tensor<3xi8>
  // CHECK-DAG: hlo.constant dense<[5.000000e-01, 2.000000e+00]> : tensor<2xf32>
  %1 = hlo.power %x, %y : tensor<2xf32>
  // CHECK-NOT: hlo.power
  return %0, %1 : tensor<3xi8>, tensor<2xf32>
}

// -----

// A negative integer exponent is implementation-defined and is not folded.
// CHECK-LABEL: func.func @no_fold_power_negative_exponent
func.func @no_fold_power_negative_exponent() -> tensor<i32> {
  %a = hlo.constant dense<2> : tensor<i32>
  %b = hlo.constant dense<-1> : tensor<i32>
  // CHECK: hlo.power
  %0 = hlo.power %a, %b : tensor<i32>
  return %0 : tensor<i32>
}

// -----

// CHECK-LABEL: func.func @fold_bitwise
func.func @fold_bitwise() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4xi1>) {
  %a = hlo.constant dense<[12, -1]> : tensor<2xi32>
  %b = hlo.constant dense<[10, 0]> : tensor<2xi32>
  %p = hlo.constant dense<[true, true, false, false]> : tensor<4xi1>
  %q = hlo.constant dense<[true, false, true, false]> : tensor<4xi1>
  // CHECK-DAG: hlo.constant dense<[8, 0]> : tensor<2xi32>
  %0 = hlo.and %a, %b : tensor<2xi32>
  // CHECK-DAG: hlo.constant dense<[14, -1]> : tensor<2xi32>
  %1 = hlo.or %a, %b : tensor<2xi32>
  // CHECK-DAG: hlo.constant dense<[6, -1]> : tensor<2xi32>
  %2 = hlo.xor %a, %b : tensor<2xi32>
  // CHECK-DAG: hlo.constant dense<[false, true, true, false]> : tensor<4xi1>
  %3 = hlo.xor %p, %q : tensor<4xi1>
  return %0, %1, %2, %3 : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @fold_compare_int
func.func @fold_compare_int() -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %a = hlo.constant dense<[-1, 2]> : tensor<2xi32>
  %b = hlo.constant dense<[1, 2]> : tensor<2xi32>
  %u = hlo.constant dense<[255, 2]> : tensor<2xui8>
  %v = hlo.constant dense<[1, 2]> : tensor<2xui8>
  // CHECK-DAG: %[[TF:.*]] = hlo.constant dense<[true, false]> : tensor<2xi1>
  %0 = hlo.compare LT, %a, %b : tensor<2xi32> -> tensor<2xi1>
  // CHECK-DAG: %[[FT:.*]] = hlo.constant dense<[false, true]> : tensor<2xi1>
  %1 = hlo.compare LE, %u, %v : tensor<2xui8> -> tensor<2xi1>
  %2 = hlo.compare EQ, %a, %b : tensor<2xi32> -> tensor<2xi1>
  %3 = hlo.compare GT, %u, %v : tensor<2xui8> -> tensor<2xi1>
  // CHECK: return %[[TF]], %[[FT]], %[[FT]], %[[TF]]
  return %0, %1, %2, %3 : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// -----

// Float comparisons are ordered, except NE, which is true for NaN.
// CHECK-LABEL: func.func @fold_compare_float_nan
func.func @fold_compare_float_nan() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %a = hlo.constant dense<[0x7FC00000, 1.0, -0.0]> : tensor<3xf32>
  %b = hlo.constant dense<[0x7FC00000, 2.0, 0.0]> : tensor<3xf32>
  // CHECK-DAG: %[[EQ:.*]] = hlo.constant dense<[false, false, true]> : tensor<3xi1>
  %0 = hlo.compare EQ, %a, %b : tensor<3xf32> -> tensor<3xi1>
  // CHECK-DAG: %[[NE:.*]] = hlo.constant dense<[true, true, false]> : tensor<3xi1>
  %1 = hlo.compare NE, %a, %b : tensor<3xf32> -> tensor<3xi1>
  // CHECK-DAG: %[[LT:.*]] = hlo.constant dense<[false, true, false]> : tensor<3xi1>
  %2 = hlo.compare LT, %a, %b : tensor<3xf32> -> tensor<3xi1>
  %3 = hlo.compare GE, %a, %b : tensor<3xf32> -> tensor<3xi1>
  // CHECK: return %[[EQ]], %[[NE]], %[[LT]], %[[EQ]]
  return %0, %1, %2, %3 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @fold_select
func.func @fold_select() -> (tensor<3xi32>, tensor<3xi32>) {
  %p = hlo.constant dense<[true, false, true]> : tensor<3xi1>
  %t = hlo.constant dense<true> : tensor<3xi1>
  %a = hlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = hlo.constant dense<[4, 5, 6]> : tensor<3xi32>
  // CHECK-DAG: %[[MIX:.*]] = hlo.constant dense<[1, 5, 3]> : tensor<3xi32>
  %0 = hlo.select %p, %a, %b : tensor<3xi1>, tensor<3xi32>
  // CHECK-DAG: %[[A:.*]] = hlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %1 = hlo.select %t, %a, %b : tensor<3xi1>, tensor<3xi32>
  // CHECK: return %[[MIX]], %[[A]]
  return %0, %1 : tensor<3xi32>, tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @fold_convert
func.func @fold_convert() -> (tensor<3xi32>, tensor<3xi1>, tensor<2xf32>, tensor<2xui8>, tensor<2xi32>, tensor<2xi8>, tensor<2xf32>, tensor<f16>, tensor<2xf64>) {
  %f = hlo.constant dense<[-1.7, 0.0, 2.9]> : tensor<3xf32>
  %p = hlo.constant dense<[true, false]> : tensor<2xi1>
  %i = hlo.constant dense<[-1, 300]> : tensor<2xi32>
  %u = hlo.constant dense<[255, 1]> : tensor<2xui8>
  %d = hlo.constant dense<1.0009765625> : tensor<f64>
  %n = hlo.constant dense<[0x7FC00000, -0.5]> : tensor<2xf32>
  // Float to integer rounds toward zero.
  // CHECK-DAG: hlo.constant dense<[-1, 0, 2]> : tensor<3xi32>
  %0 = hlo.convert %f : tensor<3xf32> -> tensor<3xi32>
  // To i1 is `!= 0`.
  // CHECK-DAG: hlo.constant dense<[true, false, true]> : tensor<3xi1>
  %1 = hlo.convert %f : tensor<3xf32> -> tensor<3xi1>
  // CHECK-DAG: hlo.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
  %2 = hlo.convert %p : tensor<2xi1> -> tensor<2xf32>
  // Integer to integer wraps (two's complement), signed sources sign-extend.
  // CHECK-DAG: hlo.constant dense<[255, 44]> : tensor<2xui8>
  %3 = hlo.convert %i : tensor<2xi32> -> tensor<2xui8>
  // Unsigned sources zero-extend.
  // CHECK-DAG: hlo.constant dense<[255, 1]> : tensor<2xi32>
  %4 = hlo.convert %u : tensor<2xui8> -> tensor<2xi32>
  // CHECK-DAG: hlo.constant dense<[-1, 1]> : tensor<2xi8>
  %5 = hlo.convert %u : tensor<2xui8> -> tensor<2xi8>
  // CHECK-DAG: hlo.constant dense<[-1.000000e+00, 3.000000e+02]> : tensor<2xf32>
  %6 = hlo.convert %i : tensor<2xi32> -> tensor<2xf32>
  // Float narrowing rounds to nearest even: 1 + 2^-10 is exact in f16.
  // CHECK-DAG: hlo.constant dense<1.000980e+00> : tensor<f16>
  %7 = hlo.convert %d : tensor<f64> -> tensor<f16>
  // CHECK-DAG: hlo.constant dense<[0x7FF8000000000000, -5.000000e-01]> : tensor<2xf64>
  %8 = hlo.convert %n : tensor<2xf32> -> tensor<2xf64>
  // CHECK-NOT: hlo.convert
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<3xi32>, tensor<3xi1>, tensor<2xf32>, tensor<2xui8>, tensor<2xi32>, tensor<2xi8>, tensor<2xf32>, tensor<f16>, tensor<2xf64>
}

// -----

// NaN and out-of-range floats to integers are implementation-defined.
// CHECK-LABEL: func.func @no_fold_convert_nan_to_int
func.func @no_fold_convert_nan_to_int() -> (tensor<i32>, tensor<ui8>) {
  %n = hlo.constant dense<0x7FC00000> : tensor<f32>
  %big = hlo.constant dense<300.0> : tensor<f32>
  // CHECK: hlo.convert %{{.*}} : tensor<f32> -> tensor<i32>
  %0 = hlo.convert %n : tensor<f32> -> tensor<i32>
  // CHECK: hlo.convert %{{.*}} : tensor<f32> -> tensor<ui8>
  %1 = hlo.convert %big : tensor<f32> -> tensor<ui8>
  return %0, %1 : tensor<i32>, tensor<ui8>
}

// -----

// Splats fold at any size; the result is a splat.
// CHECK-LABEL: func.func @fold_large_splat
func.func @fold_large_splat() -> tensor<1000x1000xf32> {
  %a = hlo.constant dense<1.5> : tensor<1000x1000xf32>
  // CHECK: %[[C:.*]] = hlo.constant dense<3.000000e+00> : tensor<1000x1000xf32>
  // CHECK: return %[[C]]
  %0 = hlo.add %a, %a : tensor<1000x1000xf32>
  return %0 : tensor<1000x1000xf32>
}

// -----

// CHECK-LABEL: func.func @fold_size_zero
func.func @fold_size_zero() -> tensor<0x3xf32> {
  %a = hlo.constant dense<> : tensor<0x3xf32>
  // CHECK: %[[C:.*]] = hlo.constant dense<> : tensor<0x3xf32>
  // CHECK: return %[[C]]
  %0 = hlo.multiply %a, %a : tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// -----

// CHECK-LABEL: func.func @fold_identity_shape_ops
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>)
func.func @fold_identity_shape_ops(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = hlo.reshape %x : tensor<3x4xf32> -> tensor<3x4xf32>
  %1 = hlo.transpose %x, dims = [0, 1] : tensor<3x4xf32> -> tensor<3x4xf32>
  %2 = hlo.broadcast_in_dim %x, dims = [0, 1] : tensor<3x4xf32> -> tensor<3x4xf32>
  %3 = hlo.convert %x : tensor<3x4xf32> -> tensor<3x4xf32>
  %4 = hlo.reduce sum %x, dims = [] : tensor<3x4xf32> -> tensor<3x4xf32>
  // CHECK-NOT: hlo.
  // CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
  return %0, %1, %2, %3, %4 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// A transpose that keeps the type but moves elements is not the identity.
// CHECK-LABEL: func.func @no_fold_square_transpose
func.func @no_fold_square_transpose(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  // CHECK: hlo.transpose %{{.*}}, dims = [1, 0]
  %0 = hlo.transpose %x, dims = [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// CHECK-LABEL: func.func @fold_shape_ops_of_constants
func.func @fold_shape_ops_of_constants() -> (tensor<2x2xi32>, tensor<3x4xf32>, tensor<2x3xf32>) {
  %a = hlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %s = hlo.constant dense<2.0> : tensor<f32>
  %t = hlo.constant dense<7.0> : tensor<3x2xf32>
  // CHECK-DAG: %[[R:.*]] = hlo.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
  %0 = hlo.reshape %a : tensor<4xi32> -> tensor<2x2xi32>
  // CHECK-DAG: %[[B:.*]] = hlo.constant dense<2.000000e+00> : tensor<3x4xf32>
  %1 = hlo.broadcast_in_dim %s, dims = [] : tensor<f32> -> tensor<3x4xf32>
  // CHECK-DAG: %[[T:.*]] = hlo.constant dense<7.000000e+00> : tensor<2x3xf32>
  %2 = hlo.transpose %t, dims = [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  // CHECK: return %[[R]], %[[B]], %[[T]]
  return %0, %1, %2 : tensor<2x2xi32>, tensor<3x4xf32>, tensor<2x3xf32>
}

// -----

// Reducing zero elements gives the identity of the combiner.
// CHECK-LABEL: func.func @fold_reduce_of_empty
func.func @fold_reduce_of_empty(%f: tensor<0x3xf32>, %i: tensor<2x0xi32>, %u: tensor<0xui8>, %p: tensor<0xi1>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xi32>, tensor<2xi32>, tensor<ui8>, tensor<i1>, tensor<i1>) {
  // CHECK-DAG: %[[SUM:.*]] = hlo.constant dense<0.000000e+00> : tensor<3xf32>
  %0 = hlo.reduce sum %f, dims = [0] : tensor<0x3xf32> -> tensor<3xf32>
  // CHECK-DAG: %[[MAX:.*]] = hlo.constant dense<0xFF800000> : tensor<3xf32>
  %1 = hlo.reduce max %f, dims = [0] : tensor<0x3xf32> -> tensor<3xf32>
  // CHECK-DAG: %[[PROD:.*]] = hlo.constant dense<1.000000e+00> : tensor<3xf32>
  %2 = hlo.reduce prod %f, dims = [0] : tensor<0x3xf32> -> tensor<3xf32>
  // CHECK-DAG: %[[MIN:.*]] = hlo.constant dense<2147483647> : tensor<2xi32>
  %3 = hlo.reduce min %i, dims = [1] : tensor<2x0xi32> -> tensor<2xi32>
  // CHECK-DAG: %[[IMAX:.*]] = hlo.constant dense<-2147483648> : tensor<2xi32>
  %4 = hlo.reduce max %i, dims = [1] : tensor<2x0xi32> -> tensor<2xi32>
  // CHECK-DAG: %[[UMIN:.*]] = hlo.constant dense<255> : tensor<ui8>
  %5 = hlo.reduce min %u, dims = [0] : tensor<0xui8> -> tensor<ui8>
  // CHECK-DAG: %[[AND:.*]] = hlo.constant dense<true> : tensor<i1>
  %6 = hlo.reduce and %p, dims = [0] : tensor<0xi1> -> tensor<i1>
  // CHECK-DAG: %[[OR:.*]] = hlo.constant dense<false> : tensor<i1>
  %7 = hlo.reduce or %p, dims = [0] : tensor<0xi1> -> tensor<i1>
  // CHECK: return %[[SUM]], %[[MAX]], %[[PROD]], %[[MIN]], %[[IMAX]], %[[UMIN]], %[[AND]], %[[OR]]
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xi32>, tensor<2xi32>, tensor<ui8>, tensor<i1>, tensor<i1>
}

// -----

// Elementwise ops on non-constant operands are left alone.
// CHECK-LABEL: func.func @no_fold_non_constant
func.func @no_fold_non_constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = hlo.constant dense<1.0> : tensor<4xf32>
  // CHECK: hlo.add
  %0 = hlo.add %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}
