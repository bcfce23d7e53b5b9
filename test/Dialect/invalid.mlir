// Every verifier error of the hlo dialect, one case per split.
// RUN: hlo-opt %s -split-input-file -verify-diagnostics

func.func @constant_not_dense() -> tensor<2xf32> {
  // expected-error@+1 {{'hlo.constant' op value must be a dense elements attribute, got dense_resource<blob> : tensor<2xf32>}}
  %0 = hlo.constant dense_resource<blob> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @constant_type_mismatch() -> tensor<3xf32> {
  // expected-error@+1 {{'hlo.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "hlo.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @constant_dynamic_shape() -> tensor<?xf32> {
  // expected-error@+1 {{'hlo.constant' op result #0 must be statically shaped tensor of float, integer, pred or complex values, but got 'tensor<?xf32>'}}
  %0 = "hlo.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @iota_rank_0() -> tensor<i32> {
  // expected-error@+1 {{'hlo.iota' op result must have rank at least 1, got 'tensor<i32>'}}
  %0 = hlo.iota dim = 0 : tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @iota_dim_out_of_range() -> tensor<2x3xi32> {
  // expected-error@+1 {{'hlo.iota' op iota dimension 2 is out of range for a result of rank 2}}
  %0 = hlo.iota dim = 2 : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @iota_dim_negative() -> tensor<2x3xi32> {
  // expected-error@+1 {{'hlo.iota' op iota dimension -1 is out of range for a result of rank 2}}
  %0 = hlo.iota dim = -1 : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @iota_pred(%x: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error@+1 {{'hlo.iota' op result #0 must be statically shaped tensor of float (f16, bf16, f32, f64) or integer (i8-i64, ui8-ui64) values, but got 'tensor<2xi1>'}}
  %0 = hlo.iota dim = 0 : tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @unary_wrong_element_type(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{'hlo.exp' op operand #0 must be statically shaped tensor of float (f16, bf16, f32, f64) or complex (complex<f32>, complex<f64>) values, but got 'tensor<4xi32>'}}
  %0 = hlo.exp %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @not_on_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.not' op operand #0 must be statically shaped tensor of integer (i8-i64, ui8-ui64) or pred (i1) values, but got 'tensor<4xf32>'}}
  %0 = hlo.not %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @add_on_pred(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{'hlo.add' op operand #0 must be statically shaped tensor of float (f16, bf16, f32, f64) or integer (i8-i64, ui8-ui64) or complex (complex<f32>, complex<f64>) values, but got 'tensor<4xi1>'}}
  %0 = hlo.add %x, %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @binary_type_mismatch(%a: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.add' op requires the same type for all operands and results}}
  %0 = "hlo.add"(%a, %b) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @binary_dynamic_shape(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error@+1 {{'hlo.add' op operand #0 must be statically shaped tensor of float (f16, bf16, f32, f64) or integer (i8-i64, ui8-ui64) or complex (complex<f32>, complex<f64>) values, but got 'tensor<?xf32>'}}
  %0 = hlo.add %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @compare_unknown_direction(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error@+1 {{unknown comparison_direction 'LTE'}}
  %0 = hlo.compare LTE, %a, %a : tensor<4xf32> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_operand_mismatch(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error@+1 {{'hlo.compare' op failed to verify that all of {lhs, rhs} have same type}}
  %0 = "hlo.compare"(%a, %b) <{comparison_direction = #hlo<comparison_direction LT>}> : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_result_shape(%a: tensor<4xf32>) -> tensor<3xi1> {
  // expected-error@+1 {{'hlo.compare' op result shape [3] must equal operand shape [4]}}
  %0 = hlo.compare LT, %a, %a : tensor<4xf32> -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @compare_result_not_pred(%a: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error@+1 {{'hlo.compare' op result #0 must be statically shaped tensor of pred (i1) values, but got 'tensor<4xi8>'}}
  %0 = hlo.compare LT, %a, %a : tensor<4xf32> -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @select_pred_shape(%p: tensor<3xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.select' op pred shape [3] must equal result shape [4]}}
  %0 = hlo.select %p, %a, %a : tensor<3xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_branch_mismatch(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.select' op failed to verify that all of {on_true, on_false, result} have same type}}
  %0 = "hlo.select"(%p, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @convert_shape(%a: tensor<4xf32>) -> tensor<2x2xi32> {
  // expected-error@+1 {{'hlo.convert' op result shape [2, 2] must equal operand shape [4]}}
  %0 = hlo.convert %a : tensor<4xf32> -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

func.func @broadcast_dims_count(%a: tensor<3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'hlo.broadcast_in_dim' op expected one broadcast dimension per operand dimension, got 2 for an operand of rank 1}}
  %0 = hlo.broadcast_in_dim %a, dims = [0, 1] : tensor<3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @broadcast_dim_out_of_range(%a: tensor<3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'hlo.broadcast_in_dim' op broadcast dimension 2 (of operand dim 0) is out of range for a result of rank 2}}
  %0 = hlo.broadcast_in_dim %a, dims = [2] : tensor<3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @broadcast_dims_not_increasing(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {
  // expected-error@+1 {{'hlo.broadcast_in_dim' op broadcast dimensions must be strictly increasing, got [1, 0]}}
  %0 = hlo.broadcast_in_dim %a, dims = [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @broadcast_size_mismatch(%a: tensor<3xf32>) -> tensor<4x5xf32> {
  // expected-error@+1 {{'hlo.broadcast_in_dim' op operand dim 0 of size 3 must have size 1 or the size of result dim 1, which is 5}}
  %0 = hlo.broadcast_in_dim %a, dims = [1] : tensor<3xf32> -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @broadcast_element_type(%a: tensor<3xf32>) -> tensor<4x3xf16> {
  // expected-error@+1 {{'hlo.broadcast_in_dim' op operand and result element types must be equal, got 'f32' and 'f16'}}
  %0 = hlo.broadcast_in_dim %a, dims = [1] : tensor<3xf32> -> tensor<4x3xf16>
  return %0 : tensor<4x3xf16>
}

// -----

func.func @reshape_count(%a: tensor<12xf32>) -> tensor<5x2xf32> {
  // expected-error@+1 {{'hlo.reshape' op element counts must match, got 12 in the operand and 10 in the result}}
  %0 = hlo.reshape %a : tensor<12xf32> -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

func.func @reshape_element_type(%a: tensor<12xf32>) -> tensor<3x4xi32> {
  // expected-error@+1 {{'hlo.reshape' op operand and result element types must be equal, got 'f32' and 'i32'}}
  %0 = hlo.reshape %a : tensor<12xf32> -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// -----

func.func @transpose_size(%a: tensor<3x4xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'hlo.transpose' op permutation [1, 0, 2] must have one entry per operand dimension, got 3 for an operand of rank 2}}
  %0 = hlo.transpose %a, dims = [1, 0, 2] : tensor<3x4xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @transpose_out_of_range(%a: tensor<3x4xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'hlo.transpose' op permutation entry 2 is out of range for an operand of rank 2}}
  %0 = hlo.transpose %a, dims = [2, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @transpose_repeat(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {
  // expected-error@+1 {{'hlo.transpose' op permutation [1, 1] repeats dimension 1}}
  %0 = hlo.transpose %a, dims = [1, 1] : tensor<3x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @transpose_result_shape(%a: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error@+1 {{'hlo.transpose' op result shape [3, 4] must be the permuted operand shape [4, 3]}}
  %0 = hlo.transpose %a, dims = [1, 0] : tensor<3x4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @transpose_element_type(%a: tensor<3x4xf32>) -> tensor<4x3xf64> {
  // expected-error@+1 {{'hlo.transpose' op operand and result element types must be equal, got 'f32' and 'f64'}}
  %0 = hlo.transpose %a, dims = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}

// -----

func.func @reduce_unknown_kind(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unknown reduce_kind 'mean'}}
  %0 = hlo.reduce mean %a, dims = [1] : tensor<4x3xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_dim_out_of_range(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.reduce' op reduce dimension 2 is out of range for an operand of rank 2}}
  %0 = hlo.reduce sum %a, dims = [2] : tensor<4x3xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_dims_repeat(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.reduce' op reduce dimensions must be unique, got [1, 1]}}
  %0 = hlo.reduce sum %a, dims = [1, 1] : tensor<4x3xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_result_shape(%a: tensor<4x3xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{'hlo.reduce' op result shape [3] must be the operand shape [4, 3] without dims [1], which is [4]}}
  %0 = hlo.reduce sum %a, dims = [1] : tensor<4x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @reduce_element_type(%a: tensor<4x3xf32>) -> tensor<4xf64> {
  // expected-error@+1 {{'hlo.reduce' op operand and result element types must be equal, got 'f32' and 'f64'}}
  %0 = hlo.reduce sum %a, dims = [1] : tensor<4x3xf32> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @reduce_and_on_float(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.reduce' op 'and' reduction needs an integer or i1 element type, got 'f32'}}
  %0 = hlo.reduce and %a, dims = [1] : tensor<4x3xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_sum_on_pred(%a: tensor<4x3xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{'hlo.reduce' op 'sum' reduction needs a float or integer element type, got i1}}
  %0 = hlo.reduce sum %a, dims = [1] : tensor<4x3xi1> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @dot_batch_pairs(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error@+1 {{'hlo.dot_general' op batch dimensions must pair up, got [0] for lhs and [] for rhs}}
  %0 = hlo.dot_general %a, %b, batch_dims = [0] x [], contracting_dims = [2] x [1]
       : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

func.func @dot_contracting_pairs(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.dot_general' op contracting dimensions must pair up, got [1] for lhs and [0, 1] for rhs}}
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0, 1]
       : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @dot_dim_out_of_range(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.dot_general' op lhs dimension 2 is out of range for lhs of rank 2}}
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [2] x [0]
       : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @dot_rhs_dim_negative(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.dot_general' op rhs dimension -1 is out of range for rhs of rank 2}}
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [-1]
       : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @dot_dim_used_twice(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.dot_general' op lhs dimension 0 is used more than once in batch_dims and contracting_dims}}
  %0 = hlo.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [0] x [1]
       : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dot_batch_sizes(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error@+1 {{'hlo.dot_general' op batch dimension sizes must match, got lhs dim 0 of size 2 and rhs dim 0 of size 3}}
  %0 = hlo.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [2] x [1]
       : tensor<2x3x4xf32>, tensor<3x4x5xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

func.func @dot_contracting_sizes(%a: tensor<3x8xf32>, %b: tensor<7x5xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.dot_general' op contracting dimension sizes must match, got lhs dim 1 of size 8 and rhs dim 0 of size 7}}
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0]
       : tensor<3x8xf32>, tensor<7x5xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @dot_result_shape(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x5x3xf32> {
  // expected-error@+1 {{'hlo.dot_general' op result shape [2, 5, 3] must be the batch, lhs free and rhs free dims, which is [2, 3, 5]}}
  %0 = hlo.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [2] x [1]
       : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

func.func @dot_element_types(%a: tensor<3x4xf32>, %b: tensor<4x5xf16>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.dot_general' op lhs, rhs and result element types must be equal, got 'f32', 'f16' and 'f32'}}
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0]
       : tensor<3x4xf32>, tensor<4x5xf16> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @dot_on_pred(%a: tensor<3x4xi1>, %b: tensor<4x5xi1>) -> tensor<3x5xi1> {
  // expected-error@+1 {{'hlo.dot_general' op operand #0 must be statically shaped tensor of float (f16, bf16, f32, f64) or integer (i8-i64, ui8-ui64) or complex (complex<f32>, complex<f64>) values, but got 'tensor<3x4xi1>'}}
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0]
       : tensor<3x4xi1>, tensor<4x5xi1> -> tensor<3x5xi1>
  return %0 : tensor<3x5xi1>
}
