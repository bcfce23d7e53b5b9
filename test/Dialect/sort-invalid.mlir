// Every verifier error of hlo.sort.
// RUN: hlo-opt %s -split-input-file -verify-diagnostics

func.func @sort_no_operands() {
  // expected-error@+1 {{'hlo.sort' op needs at least one operand}}
  "hlo.sort"() <{dimension = 0 : i64, num_keys = 1 : i64}> : () -> ()
  return
}

// -----

func.func @sort_shape_mismatch(%a: tensor<4xf32>, %b: tensor<3xi32>) {
  // expected-error@+1 {{'hlo.sort' op operand #1 shape [3] must equal operand #0 shape [4]}}
  %r:2 = hlo.sort(%a, %b) dim = 0, num_keys = 1 : tensor<4xf32>, tensor<3xi32>
  return
}

// -----

func.func @sort_scalar(%a: tensor<f32>) {
  // expected-error@+1 {{'hlo.sort' op operands must have rank at least 1, got 'tensor<f32>'}}
  %r = hlo.sort(%a) dim = 0, num_keys = 1 : tensor<f32>
  return
}

// -----

func.func @sort_dim_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'hlo.sort' op sort dimension 2 is out of range for operands of rank 2}}
  %r = hlo.sort(%a) dim = 2, num_keys = 1 : tensor<2x3xf32>
  return
}

// -----

func.func @sort_dim_negative(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'hlo.sort' op sort dimension -1 is out of range for operands of rank 2}}
  %r = hlo.sort(%a) dim = -1, num_keys = 1 : tensor<2x3xf32>
  return
}

// -----

func.func @sort_zero_keys(%a: tensor<3xf32>) {
  // expected-error@+1 {{'hlo.sort' op num_keys 0 must be between 1 and the number of operands, 1}}
  %r = hlo.sort(%a) dim = 0, num_keys = 0 : tensor<3xf32>
  return
}

// -----

func.func @sort_too_many_keys(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'hlo.sort' op num_keys 3 must be between 1 and the number of operands, 2}}
  %r:2 = hlo.sort(%a, %b) dim = 0, num_keys = 3 : tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @sort_result_types(%a: tensor<3xf32>) {
  // expected-error@+2 {{'hlo.sort' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<3xf64>'}}
  // expected-error@+1 {{'hlo.sort' op failed to infer returned types}}
  %r = "hlo.sort"(%a) <{dimension = 0 : i64, num_keys = 1 : i64}> : (tensor<3xf32>) -> tensor<3xf64>
  return
}
