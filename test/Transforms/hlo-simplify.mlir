// Algebraic simplification of hlo ops, and identities that must not fire.
// RUN: hlo-opt %s --hlo-simplify --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @add_int_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
func.func @add_int_zero(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %zero = hlo.constant dense<0> : tensor<4xi32>
  %0 = hlo.add %x, %zero : tensor<4xi32>
  %1 = hlo.add %zero, %x : tensor<4xi32>
  // CHECK-NOT: hlo.add
  // CHECK: return %[[X]], %[[X]]
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// Only -0.0 is neutral for float addition: -0.0 + 0.0 is +0.0.
// CHECK-LABEL: func.func @add_float_negative_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @add_float_negative_zero(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = hlo.constant dense<-0.0> : tensor<4xf32>
  %0 = hlo.add %x, %zero : tensor<4xf32>
  %1 = hlo.add %zero, %x : tensor<4xf32>
  // CHECK-NOT: hlo.add
  // CHECK: return %[[X]], %[[X]]
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @no_add_float_positive_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @no_add_float_positive_zero(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = hlo.constant dense<0.0> : tensor<4xf32>
  // CHECK: %[[A:.*]] = hlo.add %[[X]], %{{.*}}
  %0 = hlo.add %x, %zero : tensor<4xf32>
  // CHECK: %[[B:.*]] = hlo.add %{{.*}}, %[[X]]
  %1 = hlo.add %zero, %x : tensor<4xf32>
  // CHECK: return %[[A]], %[[B]]
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @subtract_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xui8>, %[[Y:.*]]: tensor<4xbf16>)
func.func @subtract_zero(%x: tensor<4xui8>, %y: tensor<4xbf16>) -> (tensor<4xui8>, tensor<4xbf16>) {
  %zero = hlo.constant dense<0> : tensor<4xui8>
  %fzero = hlo.constant dense<0.0> : tensor<4xbf16>
  %0 = hlo.subtract %x, %zero : tensor<4xui8>
  %1 = hlo.subtract %y, %fzero : tensor<4xbf16>
  // CHECK-NOT: hlo.subtract
  // CHECK: return %[[X]], %[[Y]]
  return %0, %1 : tensor<4xui8>, tensor<4xbf16>
}

// -----

// x - (-0.0) is x + 0.0, which turns -0.0 into +0.0; 0 - x is a negation.
// CHECK-LABEL: func.func @no_subtract_negative_zero_or_from_zero
func.func @no_subtract_negative_zero_or_from_zero(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %zero = hlo.constant dense<-0.0> : tensor<4xf32>
  %izero = hlo.constant dense<0> : tensor<4xi32>
  // CHECK: hlo.subtract
  %0 = hlo.subtract %x, %zero : tensor<4xf32>
  // CHECK: hlo.subtract
  %1 = hlo.subtract %izero, %i : tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @multiply_one
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf16>, %[[I:.*]]: tensor<i64>)
func.func @multiply_one(%x: tensor<2x3xf16>, %i: tensor<i64>) -> (tensor<2x3xf16>, tensor<2x3xf16>, tensor<i64>) {
  %one = hlo.constant dense<1.0> : tensor<2x3xf16>
  %ione = hlo.constant dense<1> : tensor<i64>
  %0 = hlo.multiply %x, %one : tensor<2x3xf16>
  %1 = hlo.multiply %one, %x : tensor<2x3xf16>
  %2 = hlo.multiply %ione, %i : tensor<i64>
  // CHECK-NOT: hlo.multiply
  // CHECK: return %[[X]], %[[X]], %[[I]]
  return %0, %1, %2 : tensor<2x3xf16>, tensor<2x3xf16>, tensor<i64>
}

// -----

// CHECK-LABEL: func.func @no_multiply_zero_or_non_splat_one
func.func @no_multiply_zero_or_non_splat_one(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %zero = hlo.constant dense<0.0> : tensor<2xf32>
  %c = hlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // x * 0.0 is not 0.0 for NaN, inf or negative x.
  // CHECK: hlo.multiply
  %0 = hlo.multiply %x, %zero : tensor<2xf32>
  // CHECK: hlo.multiply
  %1 = hlo.multiply %x, %c : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @divide_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf64>, %[[I:.*]]: tensor<4xi8>)
func.func @divide_one(%x: tensor<4xf64>, %i: tensor<4xi8>) -> (tensor<4xf64>, tensor<4xi8>) {
  %one = hlo.constant dense<1.0> : tensor<4xf64>
  %ione = hlo.constant dense<1> : tensor<4xi8>
  %0 = hlo.divide %x, %one : tensor<4xf64>
  %1 = hlo.divide %i, %ione : tensor<4xi8>
  // CHECK-NOT: hlo.divide
  // CHECK: return %[[X]], %[[I]]
  return %0, %1 : tensor<4xf64>, tensor<4xi8>
}

// -----

// CHECK-LABEL: func.func @no_divide_into_one
func.func @no_divide_into_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = hlo.constant dense<1.0> : tensor<4xf32>
  // CHECK: hlo.divide
  %0 = hlo.divide %one, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @negate_negate
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
func.func @negate_negate(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = hlo.negate %x : tensor<4xf32>
  %1 = hlo.negate %0 : tensor<4xf32>
  %2 = hlo.negate %i : tensor<4xi32>
  %3 = hlo.negate %2 : tensor<4xi32>
  // CHECK-NOT: hlo.negate
  // CHECK: return %[[X]], %[[I]]
  return %1, %3 : tensor<4xf32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @reshape_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<12xf32>)
func.func @reshape_reshape(%x: tensor<12xf32>) -> (tensor<2x6xf32>, tensor<12xf32>) {
  %0 = hlo.reshape %x : tensor<12xf32> -> tensor<3x4xf32>
  // CHECK: %[[R:.*]] = hlo.reshape %[[X]] : tensor<12xf32> -> tensor<2x6xf32>
  %1 = hlo.reshape %0 : tensor<3x4xf32> -> tensor<2x6xf32>
  // Back to the original type: no reshape is left.
  %2 = hlo.reshape %0 : tensor<3x4xf32> -> tensor<12xf32>
  // CHECK-NOT: hlo.reshape
  // CHECK: return %[[R]], %[[X]]
  return %1, %2 : tensor<2x6xf32>, tensor<12xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> (tensor<3x4x2xf32>, tensor<2x3x4xf32>) {
  %0 = hlo.transpose %x, dims = [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  // CHECK: %[[T:.*]] = hlo.transpose %[[X]], dims = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = hlo.transpose %0, dims = [0, 2, 1] : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  // A transpose followed by its inverse disappears.
  %2 = hlo.transpose %x, dims = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %3 = hlo.transpose %2, dims = [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  // CHECK-NOT: hlo.transpose
  // CHECK: return %[[T]], %[[X]]
  return %1, %3 : tensor<3x4x2xf32>, tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<1xi32>)
func.func @broadcast_broadcast(%x: tensor<3xf32>, %y: tensor<1xi32>) -> (tensor<2x4x3xf32>, tensor<5x4xi32>) {
  %0 = hlo.broadcast_in_dim %x, dims = [1] : tensor<3xf32> -> tensor<4x3xf32>
  // CHECK: %[[A:.*]] = hlo.broadcast_in_dim %[[X]], dims = [2] : tensor<3xf32> -> tensor<2x4x3xf32>
  %1 = hlo.broadcast_in_dim %0, dims = [1, 2] : tensor<4x3xf32> -> tensor<2x4x3xf32>
  %2 = hlo.broadcast_in_dim %y, dims = [0] : tensor<1xi32> -> tensor<1x4xi32>
  // CHECK: %[[B:.*]] = hlo.broadcast_in_dim %[[Y]], dims = [0] : tensor<1xi32> -> tensor<5x4xi32>
  %3 = hlo.broadcast_in_dim %2, dims = [0, 1] : tensor<1x4xi32> -> tensor<5x4xi32>
  // CHECK: return %[[A]], %[[B]]
  return %1, %3 : tensor<2x4x3xf32>, tensor<5x4xi32>
}

// -----

// A lossless widening and back is the identity.
// CHECK-LABEL: func.func @convert_round_trip
// CHECK-SAME: (%[[F:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi8>, %[[U:.*]]: tensor<4xui8>, %[[P:.*]]: tensor<4xi1>, %[[H:.*]]: tensor<4xbf16>, %[[S:.*]]: tensor<4xi16>)
func.func @convert_round_trip(%f: tensor<4xf32>, %i: tensor<4xi8>, %u: tensor<4xui8>, %p: tensor<4xi1>, %h: tensor<4xbf16>, %s: tensor<4xi16>) -> (tensor<4xf32>, tensor<4xi8>, tensor<4xui8>, tensor<4xi1>, tensor<4xbf16>, tensor<4xi16>) {
  %0 = hlo.convert %f : tensor<4xf32> -> tensor<4xf64>
  %1 = hlo.convert %0 : tensor<4xf64> -> tensor<4xf32>
  %2 = hlo.convert %i : tensor<4xi8> -> tensor<4xi32>
  %3 = hlo.convert %2 : tensor<4xi32> -> tensor<4xi8>
  %4 = hlo.convert %u : tensor<4xui8> -> tensor<4xi16>
  %5 = hlo.convert %4 : tensor<4xi16> -> tensor<4xui8>
  %6 = hlo.convert %p : tensor<4xi1> -> tensor<4xf16>
  %7 = hlo.convert %6 : tensor<4xf16> -> tensor<4xi1>
  %8 = hlo.convert %h : tensor<4xbf16> -> tensor<4xf32>
  %9 = hlo.convert %8 : tensor<4xf32> -> tensor<4xbf16>
  %10 = hlo.convert %s : tensor<4xi16> -> tensor<4xf32>
  %11 = hlo.convert %10 : tensor<4xf32> -> tensor<4xi16>
  // CHECK-NOT: hlo.convert
  // CHECK: return %[[F]], %[[I]], %[[U]], %[[P]], %[[H]], %[[S]]
  return %1, %3, %5, %7, %9, %11 : tensor<4xf32>, tensor<4xi8>, tensor<4xui8>, tensor<4xi1>, tensor<4xbf16>, tensor<4xi16>
}

// -----

// A real value converts to complex as its real part: widening to complex
// and back is the identity where widening to the part type is.
// CHECK-LABEL: func.func @convert_complex_round_trip
// CHECK-SAME: (%[[F:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi8>, %[[Z:.*]]: tensor<4xcomplex<f32>>)
func.func @convert_complex_round_trip(%f: tensor<4xf32>, %i: tensor<4xi8>, %z: tensor<4xcomplex<f32>>) -> (tensor<4xf32>, tensor<4xi8>, tensor<4xcomplex<f32>>) {
  %0 = hlo.convert %f : tensor<4xf32> -> tensor<4xcomplex<f64>>
  %1 = hlo.convert %0 : tensor<4xcomplex<f64>> -> tensor<4xf32>
  %2 = hlo.convert %i : tensor<4xi8> -> tensor<4xcomplex<f32>>
  %3 = hlo.convert %2 : tensor<4xcomplex<f32>> -> tensor<4xi8>
  %4 = hlo.convert %z : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f64>>
  %5 = hlo.convert %4 : tensor<4xcomplex<f64>> -> tensor<4xcomplex<f32>>
  // CHECK-NOT: hlo.convert
  // CHECK: return %[[F]], %[[I]], %[[Z]]
  return %1, %3, %5 : tensor<4xf32>, tensor<4xi8>, tensor<4xcomplex<f32>>
}

// -----

// Complex to real drops the imaginary part, and complex<f64> to
// complex<f32> rounds: these stay. Complex constants are no identities.
// CHECK-LABEL: func.func @no_convert_complex_round_trip
func.func @no_convert_complex_round_trip(%z: tensor<4xcomplex<f32>>, %w: tensor<4xcomplex<f64>>, %i: tensor<4xi32>) -> (tensor<4xcomplex<f32>>, tensor<4xcomplex<f64>>, tensor<4xi32>, tensor<4xcomplex<f32>>) {
  // CHECK-COUNT-6: hlo.convert
  %0 = hlo.convert %z : tensor<4xcomplex<f32>> -> tensor<4xf32>
  %1 = hlo.convert %0 : tensor<4xf32> -> tensor<4xcomplex<f32>>
  %2 = hlo.convert %w : tensor<4xcomplex<f64>> -> tensor<4xcomplex<f32>>
  %3 = hlo.convert %2 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f64>>
  %4 = hlo.convert %i : tensor<4xi32> -> tensor<4xcomplex<f32>>
  %5 = hlo.convert %4 : tensor<4xcomplex<f32>> -> tensor<4xi32>
  // CHECK: hlo.multiply
  %one = hlo.constant dense<(1.0, 0.0)> : tensor<4xcomplex<f32>>
  %6 = hlo.multiply %z, %one : tensor<4xcomplex<f32>>
  return %1, %3, %5, %6 : tensor<4xcomplex<f32>>, tensor<4xcomplex<f64>>, tensor<4xi32>, tensor<4xcomplex<f32>>
}

// -----

// Lossy inner conversions, and conversions that do not return to the
// original type, stay.
// CHECK-LABEL: func.func @no_convert_round_trip
func.func @no_convert_round_trip(%d: tensor<4xf64>, %i: tensor<4xi32>, %s: tensor<4xi8>, %h: tensor<4xf16>, %f: tensor<4xf32>) -> (tensor<4xf64>, tensor<4xi32>, tensor<4xi8>, tensor<4xf16>, tensor<4xf32>, tensor<4xi16>) {
  // CHECK-COUNT-12: hlo.convert
  %0 = hlo.convert %d : tensor<4xf64> -> tensor<4xf32>
  %1 = hlo.convert %0 : tensor<4xf32> -> tensor<4xf64>
  %2 = hlo.convert %i : tensor<4xi32> -> tensor<4xf32>
  %3 = hlo.convert %2 : tensor<4xf32> -> tensor<4xi32>
  %4 = hlo.convert %s : tensor<4xi8> -> tensor<4xui16>
  %5 = hlo.convert %4 : tensor<4xui16> -> tensor<4xi8>
  %6 = hlo.convert %h : tensor<4xf16> -> tensor<4xbf16>
  %7 = hlo.convert %6 : tensor<4xbf16> -> tensor<4xf16>
  %8 = hlo.convert %f : tensor<4xf32> -> tensor<4xi32>
  %9 = hlo.convert %8 : tensor<4xi32> -> tensor<4xf32>
  %10 = hlo.convert %s : tensor<4xi8> -> tensor<4xi32>
  %11 = hlo.convert %10 : tensor<4xi32> -> tensor<4xi16>
  return %1, %3, %5, %7, %9, %11 : tensor<4xf64>, tensor<4xi32>, tensor<4xi8>, tensor<4xf16>, tensor<4xf32>, tensor<4xi16>
}

// -----

// CHECK-LABEL: func.func @select_constant_pred
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[P:.*]]: tensor<4xi1>)
func.func @select_constant_pred(%a: tensor<4xf32>, %b: tensor<4xf32>, %p: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = hlo.constant dense<true> : tensor<4xi1>
  %f = hlo.constant dense<false> : tensor<4xi1>
  %0 = hlo.select %t, %a, %b : tensor<4xi1>, tensor<4xf32>
  %1 = hlo.select %f, %a, %b : tensor<4xi1>, tensor<4xf32>
  %2 = hlo.select %p, %a, %a : tensor<4xi1>, tensor<4xf32>
  // CHECK-NOT: hlo.select
  // CHECK: return %[[A]], %[[B]], %[[A]]
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @no_select_mixed_pred
func.func @no_select_mixed_pred(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %p = hlo.constant dense<[true, false]> : tensor<2xi1>
  // CHECK: hlo.select
  %0 = hlo.select %p, %a, %b : tensor<2xi1>, tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @compare_int_with_itself
func.func @compare_int_with_itself(%x: tensor<3xi32>, %u: tensor<3xui8>) -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  // CHECK-DAG: %[[T:.*]] = hlo.constant dense<true> : tensor<3xi1>
  // CHECK-DAG: %[[F:.*]] = hlo.constant dense<false> : tensor<3xi1>
  %0 = hlo.compare EQ, %x, %x : tensor<3xi32> -> tensor<3xi1>
  %1 = hlo.compare LT, %x, %x : tensor<3xi32> -> tensor<3xi1>
  %2 = hlo.compare GE, %u, %u : tensor<3xui8> -> tensor<3xi1>
  %3 = hlo.compare NE, %u, %u : tensor<3xui8> -> tensor<3xi1>
  // CHECK-NOT: hlo.compare
  // CHECK: return %[[T]], %[[F]], %[[T]], %[[F]]
  return %0, %1, %2, %3 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// NaN is not equal to itself, so float self-comparisons stay.
// CHECK-LABEL: func.func @no_compare_float_with_itself
func.func @no_compare_float_with_itself(%x: tensor<3xf32>) -> tensor<3xi1> {
  // CHECK: hlo.compare EQ
  %0 = hlo.compare EQ, %x, %x : tensor<3xf32> -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// The pass also runs the folders.
// CHECK-LABEL: func.func @folds_constants
func.func @folds_constants() -> tensor<2xi32> {
  %a = hlo.constant dense<[1, 2]> : tensor<2xi32>
  // CHECK: %[[C:.*]] = hlo.constant dense<[2, 4]> : tensor<2xi32>
  // CHECK: return %[[C]]
  %0 = hlo.add %a, %a : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// A weight gradient (dy^T x)^T is x^T dy: the transpose swaps the dot's free
// dimensions, and the swapped "TN" product reads its operands as the original did.
// CHECK-LABEL: func.func @transpose_of_tn_dot_swaps_the_operands
// CHECK-SAME: (%[[DY:.*]]: tensor<8x5xf32>, %[[X:.*]]: tensor<8x3xf32>)
func.func @transpose_of_tn_dot_swaps_the_operands(%dy: tensor<8x5xf32>, %x: tensor<8x3xf32>) -> tensor<3x5xf32> {
  %0 = hlo.dot_general %dy, %x, batch_dims = [] x [], contracting_dims = [0] x [0] : tensor<8x5xf32>, tensor<8x3xf32> -> tensor<5x3xf32>
  %1 = hlo.transpose %0, dims = [1, 0] : tensor<5x3xf32> -> tensor<3x5xf32>
  // CHECK: %[[D:.*]] = hlo.dot_general %[[X]], %[[DY]], batch_dims = [] x [], contracting_dims = [0] x [0] : tensor<8x3xf32>, tensor<8x5xf32> -> tensor<3x5xf32>
  // CHECK-NOT: hlo.transpose
  // CHECK: return %[[D]]
  return %1 : tensor<3x5xf32>
}

// -----

// With batch dimensions, several free dimensions per side, and a transposed
// product on both sides ("TT" becomes "NN").
// CHECK-LABEL: func.func @transpose_of_batched_dot_keeps_the_batch_first
// CHECK-SAME: (%[[A:.*]]: tensor<2x7x4x6xf32>, %[[B:.*]]: tensor<2x3x5x7xf32>)
func.func @transpose_of_batched_dot_keeps_the_batch_first(%a: tensor<2x7x4x6xf32>, %b: tensor<2x3x5x7xf32>) -> tensor<2x3x5x4x6xf32> {
  %0 = hlo.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [1] x [3] : tensor<2x7x4x6xf32>, tensor<2x3x5x7xf32> -> tensor<2x4x6x3x5xf32>
  %1 = hlo.transpose %0, dims = [0, 3, 4, 1, 2] : tensor<2x4x6x3x5xf32> -> tensor<2x3x5x4x6xf32>
  // CHECK: %[[D:.*]] = hlo.dot_general %[[B]], %[[A]], batch_dims = [0] x [0], contracting_dims = [3] x [1] : tensor<2x3x5x7xf32>, tensor<2x7x4x6xf32> -> tensor<2x3x5x4x6xf32>
  // CHECK-NOT: hlo.transpose
  // CHECK: return %[[D]]
  return %1 : tensor<2x3x5x4x6xf32>
}

// -----

// (a @ b)^T stays: b^T @ a^T would read both operands against their layouts.
// A dot with another use stays (both would be computed), and so does a
// transpose that is not the swap of the free dimensions.
// CHECK-LABEL: func.func @transposes_of_dots_that_stay
func.func @transposes_of_dots_that_stay(%a: tensor<4x6xf32>, %b: tensor<6x5xf32>, %c: tensor<2x6x4xf32>) -> (tensor<5x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4x2xf32>) {
  // CHECK: %[[NN:.*]] = hlo.dot_general %arg0, %arg1
  // CHECK: hlo.transpose %[[NN]]
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<4x6xf32>, tensor<6x5xf32> -> tensor<4x5xf32>
  %1 = hlo.transpose %0, dims = [1, 0] : tensor<4x5xf32> -> tensor<5x4xf32>
  // CHECK: %[[USED:.*]] = hlo.dot_general %arg0, %arg0
  // CHECK: hlo.transpose %[[USED]]
  %2 = hlo.dot_general %a, %a, batch_dims = [] x [], contracting_dims = [1] x [1] : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x4xf32>
  %3 = hlo.transpose %2, dims = [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  // The batch dimension moves: not a swap of the free dimensions.
  // CHECK: %[[BATCHED:.*]] = hlo.dot_general %arg2, %arg2
  // CHECK: hlo.transpose %[[BATCHED]], dims = [1, 2, 0]
  %4 = hlo.dot_general %c, %c, batch_dims = [0] x [0], contracting_dims = [1] x [1] : tensor<2x6x4xf32>, tensor<2x6x4xf32> -> tensor<2x4x4xf32>
  %5 = hlo.transpose %4, dims = [1, 2, 0] : tensor<2x4x4xf32> -> tensor<4x4x2xf32>
  return %1, %2, %3, %5 : tensor<5x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4x2xf32>
}
