// RUN: hlo-translate --hlo-to-stablehlo --split-input-file %s | FileCheck %s

// Most elementwise ops keep their names; exp, sin and cos take StableHLO's;
// the functions StableHLO lacks are CHLO's.
// CHECK-LABEL: sym_name = "elementwise"
// CHECK: "stablehlo.exponential"(%arg0)
// CHECK: "stablehlo.sine"
// CHECK: "stablehlo.cosine"
// CHECK: "stablehlo.log_plus_one"
// CHECK: "stablehlo.round_nearest_afz"
// CHECK: "chlo.erf"
// CHECK: "chlo.lgamma"
// CHECK: "chlo.next_after"
// CHECK: "stablehlo.atan2"
// CHECK: "stablehlo.shift_right_logical"
// CHECK: "stablehlo.clamp"(%arg0, %arg1, %arg0)
// CHECK-NOT: "hlo.
func.func @elementwise(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = hlo.exp %x : tensor<4xf32>
  %1 = hlo.sin %0 : tensor<4xf32>
  %2 = hlo.cos %1 : tensor<4xf32>
  %3 = hlo.log_plus_one %2 : tensor<4xf32>
  %4 = hlo.round_nearest_afz %3 : tensor<4xf32>
  %5 = hlo.erf %4 : tensor<4xf32>
  %6 = hlo.lgamma %5 : tensor<4xf32>
  %7 = hlo.next_after %6, %y : tensor<4xf32>
  %8 = hlo.atan2 %7, %y : tensor<4xf32>
  %9 = hlo.shift_right_logical %i, %i : tensor<4xi32>
  %10 = hlo.clamp %x, %y, %x : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  %11 = hlo.add %8, %10 : tensor<4xf32>
  return %11, %9 : tensor<4xf32>, tensor<4xi32>
}

// -----

// compare takes its compare_type from the element type: IEEE for floats and
// complex numbers, unsigned for bool and unsigned integers.
// CHECK-LABEL: sym_name = "compare_types"
// CHECK: "stablehlo.compare"(%arg0, %arg0) {compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction LT>}
// CHECK: {compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction GE>}
// CHECK: {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction EQ>}
// CHECK: {compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction NE>}
// CHECK: {compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction EQ>}
func.func @compare_types(%f: tensor<2xf32>, %i: tensor<2xi32>, %u: tensor<2xui8>, %b: tensor<2xi1>, %z: tensor<2xcomplex<f32>>)
    -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %0 = hlo.compare LT, %f, %f : tensor<2xf32> -> tensor<2xi1>
  %1 = hlo.compare GE, %i, %i : tensor<2xi32> -> tensor<2xi1>
  %2 = hlo.compare EQ, %u, %u : tensor<2xui8> -> tensor<2xi1>
  %3 = hlo.compare NE, %b, %b : tensor<2xi1> -> tensor<2xi1>
  %4 = hlo.compare EQ, %z, %z : tensor<2xcomplex<f32>> -> tensor<2xi1>
  return %0, %1, %2, %3, %4 : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// -----

// A complex number converts to a real or integer type by its real part: XLA
// has no complex-to-real convert (its constant folder crashes on one), so the
// translation takes stablehlo.real first. Complex to complex stays a convert.
// CHECK-LABEL: sym_name = "complex_to_real"
// CHECK: %[[RE:.*]] = "stablehlo.real"(%arg0) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK: "stablehlo.convert"(%[[RE]]) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK: %[[RE2:.*]] = "stablehlo.real"(%arg0) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK: "stablehlo.convert"(%[[RE2]]) : (tensor<2xf32>) -> tensor<2xi32>
// CHECK: "stablehlo.convert"(%arg0) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f64>>
func.func @complex_to_real(%c: tensor<2xcomplex<f32>>) -> (tensor<2xf32>, tensor<2xi32>, tensor<2xcomplex<f64>>) {
  %0 = hlo.convert %c : tensor<2xcomplex<f32>> -> tensor<2xf32>
  %1 = hlo.convert %c : tensor<2xcomplex<f32>> -> tensor<2xi32>
  %2 = hlo.convert %c : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f64>>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xi32>, tensor<2xcomplex<f64>>
}

// -----

// A bool, integer or float converts to a complex type as its real part:
// stablehlo.complex of the value in the part's type and a zero, since XLA's
// TPU compiler aborts on converts to complex<f64> (from pred and from f64).
// CHECK-LABEL: sym_name = "real_to_complex"
// CHECK: %[[B:.*]] = "stablehlo.convert"(%arg0) : (tensor<2xi1>) -> tensor<2xf64>
// CHECK: %[[Z:.*]] = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<2xf64>}
// CHECK: "stablehlo.complex"(%[[B]], %[[Z]]) : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xcomplex<f64>>
// CHECK: %[[U:.*]] = "stablehlo.convert"(%arg1) : (tensor<2xui32>) -> tensor<2xf32>
// CHECK: %[[Z2:.*]] = "stablehlo.constant"
// CHECK: "stablehlo.complex"(%[[U]], %[[Z2]]) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xcomplex<f32>>
// CHECK: %[[F:.*]] = "stablehlo.convert"(%arg2) : (tensor<2xf32>) -> tensor<2xf64>
// CHECK: %[[Z3:.*]] = "stablehlo.constant"
// CHECK: "stablehlo.complex"(%[[F]], %[[Z3]])
// CHECK-NOT: "stablehlo.convert"(%arg3)
// CHECK: %[[Z4:.*]] = "stablehlo.constant"
// CHECK: "stablehlo.complex"(%arg3, %[[Z4]]) : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xcomplex<f64>>
func.func @real_to_complex(%b: tensor<2xi1>, %u: tensor<2xui32>, %f: tensor<2xf32>, %d: tensor<2xf64>) -> (tensor<2xcomplex<f64>>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>) {
  %0 = hlo.convert %b : tensor<2xi1> -> tensor<2xcomplex<f64>>
  %1 = hlo.convert %u : tensor<2xui32> -> tensor<2xcomplex<f32>>
  %2 = hlo.convert %f : tensor<2xf32> -> tensor<2xcomplex<f64>>
  %3 = hlo.convert %d : tensor<2xf64> -> tensor<2xcomplex<f64>>
  return %0, %1, %2, %3 : tensor<2xcomplex<f64>>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>
}
