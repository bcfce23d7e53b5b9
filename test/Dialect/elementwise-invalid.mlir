// Verifier errors of the bit ops, bitcast_convert, clamp, is_finite,
// arg_reduce and cumulative, one case per split.
// RUN: hlo-opt %s -split-input-file -verify-diagnostics

func.func @shift_float(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.shift_left' op operand #0 must be statically shaped tensor of integer (i8-i64, ui8-ui64) values, but got 'tensor<4xf32>'}}
  %0 = hlo.shift_left %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @popcnt_pred(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{'hlo.popcnt' op operand #0 must be statically shaped tensor of integer (i8-i64, ui8-ui64) values, but got 'tensor<4xi1>'}}
  %0 = hlo.popcnt %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @erf_inv_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{'hlo.erf_inv' op operand #0 must be statically shaped tensor of float (f16, bf16, f32, f64) values, but got 'tensor<4xi32>'}}
  %0 = hlo.erf_inv %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @bitcast_width(%a: tensor<4xf32>) -> tensor<4xi64> {
  // expected-error@+1 {{'hlo.bitcast_convert' op operand and result element types must have the same bit width, got 'f32' (32 bits) and 'i64' (64 bits)}}
  %0 = hlo.bitcast_convert %a : tensor<4xf32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @bitcast_shape(%a: tensor<4xf32>) -> tensor<2xi32> {
  // expected-error@+1 {{'hlo.bitcast_convert' op result shape [2] must equal operand shape [4]}}
  %0 = hlo.bitcast_convert %a : tensor<4xf32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @clamp_bound_shape(%lo: tensor<2xf32>, %x: tensor<4xf32>, %hi: tensor<f32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.clamp' op min shape [2] must be [] or the operand shape [4]}}
  %0 = hlo.clamp %lo, %x, %hi : tensor<2xf32>, tensor<4xf32>, tensor<f32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_bound_type(%lo: tensor<f32>, %x: tensor<4xf32>, %hi: tensor<f64>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.clamp' op max element type 'f64' must equal the operand element type 'f32'}}
  %0 = hlo.clamp %lo, %x, %hi : tensor<f32>, tensor<4xf32>, tensor<f64>
  return %0 : tensor<4xf32>
}

// -----

func.func @is_finite_shape(%a: tensor<4xf32>) -> tensor<3xi1> {
  // expected-error@+1 {{'hlo.is_finite' op result shape [3] must equal operand shape [4]}}
  %0 = hlo.is_finite %a : tensor<4xf32> -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @arg_reduce_dim(%a: tensor<4x3xf32>) -> tensor<4xi32> {
  // expected-error@+1 {{'hlo.arg_reduce' op dimension 2 is out of range for an operand of rank 2}}
  %0 = hlo.arg_reduce max %a, dim = 2 : tensor<4x3xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @arg_reduce_shape(%a: tensor<4x3xf32>) -> tensor<3xi32> {
  // expected-error@+1 {{'hlo.arg_reduce' op result shape [3] must be the operand shape [4, 3] without dim 1, which is [4]}}
  %0 = hlo.arg_reduce max %a, dim = 1 : tensor<4x3xf32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @arg_reduce_index_type(%a: tensor<4x3xf32>) -> tensor<4xi16> {
  // expected-error@+1 {{'hlo.arg_reduce' op result element type must be i32 or i64, got 'i16'}}
  %0 = hlo.arg_reduce max %a, dim = 1 : tensor<4x3xf32> -> tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

func.func @arg_reduce_kind(%a: tensor<4x3xf32>) -> tensor<4xi32> {
  // expected-error@+1 {{'hlo.arg_reduce' op kind must be 'max' or 'min', got 'sum'}}
  %0 = hlo.arg_reduce sum %a, dim = 1 : tensor<4x3xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @cumulative_dim(%a: tensor<5xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{'hlo.cumulative' op dimension -1 is out of range for an operand of rank 1}}
  %0 = hlo.cumulative sum %a, dim = -1, reverse = false : tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @cumulative_kind(%a: tensor<5xi32>) -> tensor<5xi32> {
  // expected-error@+1 {{'hlo.cumulative' op kind must be 'sum', 'prod', 'max' or 'min', got 'and'}}
  %0 = hlo.cumulative and %a, dim = 0, reverse = false : tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

func.func @cumulative_pred_sum(%a: tensor<5xi1>) -> tensor<5xi1> {
  // expected-error@+1 {{'hlo.cumulative' op 'sum' scan needs a float or integer element type, got i1}}
  %0 = hlo.cumulative sum %a, dim = 0, reverse = false : tensor<5xi1>
  return %0 : tensor<5xi1>
}
