// Complex values are accepted only by the ops that opt in: every other op,
// and the directions and kinds that have no complex meaning, reject them.
// RUN: hlo-opt %s -split-input-file -verify-diagnostics

func.func @maximum_complex(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'hlo.maximum' op operand #0 must be statically shaped tensor of float, integer or pred values, but got 'tensor<4xcomplex<f32>>'}}
  %0 = hlo.maximum %a, %a : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @minimum_complex(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'hlo.minimum' op operand #0 must be statically shaped tensor of float, integer or pred values, but got 'tensor<4xcomplex<f32>>'}}
  %0 = hlo.minimum %a, %a : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @remainder_complex(%a: tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>> {
  // expected-error@+1 {{'hlo.remainder' op operand #0 must be statically shaped tensor of float (f16, bf16, f32, f64) or integer (i8-i64, ui8-ui64) values, but got 'tensor<4xcomplex<f64>>'}}
  %0 = hlo.remainder %a, %a : tensor<4xcomplex<f64>>
  return %0 : tensor<4xcomplex<f64>>
}

// -----

func.func @floor_complex(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'hlo.floor' op operand #0 must be statically shaped tensor of float (f16, bf16, f32, f64) values, but got 'tensor<4xcomplex<f32>>'}}
  %0 = hlo.floor %a : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

// Complex atan2 is the frontend's composite of complex log, sqrt and
// arithmetic (XLA's expansion), not an hlo op.
func.func @atan2_complex(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'hlo.atan2' op operand #0 must be statically shaped tensor of float (f16, bf16, f32, f64) values, but got 'tensor<4xcomplex<f32>>'}}
  %0 = hlo.atan2 %a, %a : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @cbrt_complex(%a: tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>> {
  // expected-error@+1 {{'hlo.cbrt' op operand #0 must be statically shaped tensor of float (f16, bf16, f32, f64) values, but got 'tensor<4xcomplex<f64>>'}}
  %0 = hlo.cbrt %a : tensor<4xcomplex<f64>>
  return %0 : tensor<4xcomplex<f64>>
}

// -----

func.func @complex_of_f16(%a: tensor<4xcomplex<f16>>) -> tensor<4xcomplex<f16>> {
  // expected-error@+1 {{'hlo.negate' op operand #0 must be statically shaped tensor of float (f16, bf16, f32, f64) or integer (i8-i64, ui8-ui64) or complex (complex<f32>, complex<f64>) values, but got 'tensor<4xcomplex<f16>>'}}
  %0 = hlo.negate %a : tensor<4xcomplex<f16>>
  return %0 : tensor<4xcomplex<f16>>
}

// -----

func.func @compare_lt_complex(%a: tensor<4xcomplex<f32>>) -> tensor<4xi1> {
  // expected-error@+1 {{'hlo.compare' op complex values compare only EQ or NE, got LT}}
  %0 = hlo.compare LT, %a, %a : tensor<4xcomplex<f32>> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_ge_complex(%a: tensor<4xcomplex<f64>>) -> tensor<4xi1> {
  // expected-error@+1 {{'hlo.compare' op complex values compare only EQ or NE, got GE}}
  %0 = hlo.compare GE, %a, %a : tensor<4xcomplex<f64>> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @bitcast_complex(%a: tensor<4xcomplex<f32>>) -> tensor<4xi64> {
  // expected-error@+1 {{'hlo.bitcast_convert' op operand #0 must be statically shaped tensor of float, integer or pred values, but got 'tensor<4xcomplex<f32>>'}}
  %0 = hlo.bitcast_convert %a : tensor<4xcomplex<f32>> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @bitcast_to_complex(%a: tensor<4xi64>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'hlo.bitcast_convert' op result #0 must be statically shaped tensor of float, integer or pred values, but got 'tensor<4xcomplex<f32>>'}}
  %0 = hlo.bitcast_convert %a : tensor<4xi64> -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @complex_mismatched_parts(%re: tensor<4xf32>, %im: tensor<4xf64>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'hlo.complex' op failed to verify that all of {lhs, rhs} have same type}}
  %0 = "hlo.complex"(%re, %im) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @complex_of_ints(%a: tensor<4xi32>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'hlo.complex' op operand #0 must be statically shaped tensor of f32 or f64 values, but got 'tensor<4xi32>'}}
  %0 = hlo.complex %a, %a : tensor<4xi32> -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @complex_of_f16(%a: tensor<4xf16>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'hlo.complex' op operand #0 must be statically shaped tensor of f32 or f64 values, but got 'tensor<4xf16>'}}
  %0 = hlo.complex %a, %a : tensor<4xf16> -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @complex_wrong_result(%a: tensor<4xf32>) -> tensor<4xcomplex<f64>> {
  // expected-error@+1 {{'hlo.complex' op result element type must be 'complex<f32>', got 'complex<f64>'}}
  %0 = hlo.complex %a, %a : tensor<4xf32> -> tensor<4xcomplex<f64>>
  return %0 : tensor<4xcomplex<f64>>
}

// -----

func.func @complex_shape(%a: tensor<4xf32>) -> tensor<2xcomplex<f32>> {
  // expected-error@+1 {{'hlo.complex' op result shape [2] must equal operand shape [4]}}
  %0 = hlo.complex %a, %a : tensor<4xf32> -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}

// -----

func.func @real_of_real(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.real' op operand #0 must be statically shaped tensor of complex (complex<f32>, complex<f64>) values, but got 'tensor<4xf32>'}}
  %0 = hlo.real %a : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @imag_wrong_part(%a: tensor<4xcomplex<f64>>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.imag' op result element type must be the operand's part type 'f64', got 'f32'}}
  %0 = hlo.imag %a : tensor<4xcomplex<f64>> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @conj_of_real(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.conj' op operand #0 must be statically shaped tensor of complex (complex<f32>, complex<f64>) values, but got 'tensor<4xf32>'}}
  %0 = hlo.conj %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @abs_complex_keeps_type(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'hlo.abs' op result #0 must be statically shaped tensor of float (f16, bf16, f32, f64) or integer (i8-i64, ui8-ui64) values, but got 'tensor<4xcomplex<f32>>'}}
  %0 = hlo.abs %a : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @abs_complex_wrong_part(%a: tensor<4xcomplex<f32>>) -> tensor<4xf64> {
  // expected-error@+1 {{'hlo.abs' op result element type must be 'f32' for an operand of element type 'complex<f32>', got 'f64'}}
  %0 = hlo.abs %a : tensor<4xcomplex<f32>> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @abs_real_changes_type(%a: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error@+1 {{'hlo.abs' op result element type must be 'f32' for an operand of element type 'f32', got 'f64'}}
  %0 = hlo.abs %a : tensor<4xf32> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @abs_shape(%a: tensor<4xcomplex<f32>>) -> tensor<2xf32> {
  // expected-error@+1 {{'hlo.abs' op result shape [2] must equal operand shape [4]}}
  %0 = hlo.abs %a : tensor<4xcomplex<f32>> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_max_complex(%a: tensor<4x3xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'hlo.reduce' op 'max' reduction needs a real element type, got 'complex<f32>'}}
  %0 = hlo.reduce max %a, dims = [1] : tensor<4x3xcomplex<f32>> -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @reduce_and_complex(%a: tensor<4x3xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'hlo.reduce' op 'and' reduction needs an integer or i1 element type, got 'complex<f32>'}}
  %0 = hlo.reduce and %a, dims = [1] : tensor<4x3xcomplex<f32>> -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @cumulative_min_complex(%a: tensor<5xcomplex<f64>>) -> tensor<5xcomplex<f64>> {
  // expected-error@+1 {{'hlo.cumulative' op 'min' scan needs a real element type, got 'complex<f64>'}}
  %0 = hlo.cumulative min %a, dim = 0, reverse = false : tensor<5xcomplex<f64>>
  return %0 : tensor<5xcomplex<f64>>
}

// -----

func.func @arg_reduce_complex(%a: tensor<4x3xcomplex<f32>>) -> tensor<4xi32> {
  // expected-error@+1 {{'hlo.arg_reduce' op operand #0 must be statically shaped tensor of float, integer or pred values, but got 'tensor<4x3xcomplex<f32>>'}}
  %0 = hlo.arg_reduce max %a, dim = 1 : tensor<4x3xcomplex<f32>> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @scatter_max_complex(%a: tensor<5xcomplex<f32>>, %i: tensor<2x1xi32>, %u: tensor<2xcomplex<f32>>) -> tensor<5xcomplex<f32>> {
  // expected-error@+1 {{'hlo.scatter' op 'max' scatter needs a real element type, got 'complex<f32>'}}
  %0 = hlo.scatter max %a[%i], %u, update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5xcomplex<f32>>[tensor<2x1xi32>], tensor<2xcomplex<f32>>
  return %0 : tensor<5xcomplex<f32>>
}

// -----

func.func @sort_complex(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'hlo.sort' op operand #0 must be variadic of statically shaped tensor of float, integer or pred values, but got 'tensor<4xcomplex<f32>>'}}
  %0 = hlo.sort(%a) dim = 0, num_keys = 1 : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @clamp_complex(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'hlo.clamp' op operand #0 must be statically shaped tensor of float (f16, bf16, f32, f64) or integer (i8-i64, ui8-ui64) values, but got 'tensor<4xcomplex<f32>>'}}
  %0 = hlo.clamp %a, %a, %a : tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}
