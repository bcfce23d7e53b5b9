// Every verifier and parser error of reduce_window and convolution.
// RUN: hlo-opt %s -split-input-file -verify-diagnostics

func.func @rw_window_count(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op window must have one entry per operand dimension (2), got 1}}
  %0 = hlo.reduce_window sum %x, window = [2] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @rw_strides_count(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op strides must have one entry per operand dimension (2), got 3}}
  %0 = hlo.reduce_window sum %x, window = [2, 2], strides = [1, 1, 1] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @rw_base_dilations_count(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op base_dilations must have one entry per operand dimension (2), got 1}}
  %0 = hlo.reduce_window sum %x, window = [2, 2], base_dilations = [1] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @rw_window_dilations_count(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op window_dilations must have one entry per operand dimension (2), got 1}}
  %0 = hlo.reduce_window sum %x, window = [2, 2], window_dilations = [1] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @rw_padding_count(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op padding must have one [low, high] pair per operand dimension (2), got 2 values}}
  %0 = hlo.reduce_window sum %x, window = [2, 2], padding = [[0, 0]] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @rw_window_zero(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op window must be positive, got [0, 2]}}
  %0 = hlo.reduce_window sum %x, window = [0, 2] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @rw_strides_zero(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op strides must be positive, got [1, 0]}}
  %0 = hlo.reduce_window sum %x, window = [2, 2], strides = [1, 0] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @rw_base_dilation_negative(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op base_dilations must be positive, got [-1, 1]}}
  %0 = hlo.reduce_window sum %x, window = [2, 2], base_dilations = [-1, 1] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @rw_window_dilation_zero(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op window_dilations must be positive, got [1, 0]}}
  %0 = hlo.reduce_window sum %x, window = [2, 2], window_dilations = [1, 0] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @rw_negative_padded_size(%x: tensor<4x6xf32>) -> tensor<4x0xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op dim 1 of size 6, dilated by 1 and padded by [-4, -3], has negative size -1}}
  %0 = hlo.reduce_window sum %x, window = [1, 1], padding = [[0, 0], [-4, -3]] : tensor<4x6xf32> -> tensor<4x0xf32>
  return %0 : tensor<4x0xf32>
}

// -----

func.func @rw_result_shape(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op result shape [3, 5] must be the number of windows per dimension, which is [2, 5]}}
  %0 = hlo.reduce_window sum %x, window = [2, 2], strides = [2, 1] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @rw_element_type(%x: tensor<4x6xf32>) -> tensor<3x5xf64> {
  // expected-error@+1 {{'hlo.reduce_window' op operand and result element types must be equal, got 'f32' and 'f64'}}
  %0 = hlo.reduce_window sum %x, window = [2, 2] : tensor<4x6xf32> -> tensor<3x5xf64>
  return %0 : tensor<3x5xf64>
}

// -----

func.func @rw_and_float(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op 'and' reduction needs an integer or i1 element type, got 'f32'}}
  %0 = hlo.reduce_window and %x, window = [2, 2] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @rw_sum_pred(%x: tensor<4x6xi1>) -> tensor<3x5xi1> {
  // expected-error@+1 {{'hlo.reduce_window' op 'sum' reduction needs a float or integer element type, got i1}}
  %0 = hlo.reduce_window sum %x, window = [2, 2] : tensor<4x6xi1> -> tensor<3x5xi1>
  return %0 : tensor<3x5xi1>
}

// -----

func.func @rw_unknown_kind(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{unknown reduce_kind 'mean'}}
  %0 = hlo.reduce_window mean %x, window = [2, 2] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @rw_unknown_clause(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{unknown window parameter 'stride'}}
  %0 = hlo.reduce_window sum %x, window = [2, 2], stride = [1, 1] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @rw_clause_twice(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'window' is given twice}}
  %0 = hlo.reduce_window sum %x, window = [2, 2], window = [2, 2] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @rw_no_window(%x: tensor<4x6xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{expected 'window = [...]'}}
  %0 = hlo.reduce_window sum %x, strides = [1, 1] : tensor<4x6xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @conv_rank(%x: tensor<1x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op lhs, rhs and result must have one rank, got 3, 4 and 4}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, f]x[0, 1, i, o]->[b, 0, 1, f] : tensor<1x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_rank_1(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.convolution' op operands must have rank at least 2 (batch and feature), got 1}}
  %0 = hlo.convolution %x, %w, dims = [b, f]x[i, o]->[b, f] : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @conv_lhs_dims(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op lhs dimension numbers (batch 0, feature 2, spatial [1]) must be a permutation of the 4 dimensions of the lhs}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, f]x[0, 1, i, o]->[b, 0, 1, f] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_rhs_dims(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op rhs dimension numbers (input feature 1, output feature 2, spatial [0]) must be a permutation of the 4 dimensions of the rhs}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, i, o]->[b, 0, 1, f] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_result_dims(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op result dimension numbers (batch 0, feature 4, spatial [1, 2, 3]) must be a permutation of the 4 dimensions of the result}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, 2, f] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_strides_count(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op strides must have one entry per spatial dimension (2), got 1}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], strides = [1] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_strides_zero(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op strides must be positive, got [1, 0]}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], strides = [1, 0] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_lhs_dilation_count(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op lhs_dilation must have one entry per spatial dimension (2), got 3}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], lhs_dilation = [1, 1, 1] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_lhs_dilation_zero(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op lhs_dilation must be positive, got [0, 1]}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], lhs_dilation = [0, 1] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_rhs_dilation_count(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op rhs_dilation must have one entry per spatial dimension (2), got 1}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], rhs_dilation = [1] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_rhs_dilation_negative(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op rhs_dilation must be positive, got [1, -2]}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], rhs_dilation = [1, -2] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_padding_count(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op padding must have one [low, high] pair per spatial dimension (2), got 2 values}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], padding = [[1, 1]] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_feature_groups_zero(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op feature_group_count must be positive, got 0}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], feature_group_count = 0 : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_batch_groups_zero(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op batch_group_count must be positive, got -1}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], batch_group_count = -1 : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_both_groups(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op feature_group_count 2 and batch_group_count 2 cannot both be greater than 1}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], feature_group_count = 2, batch_group_count = 2 : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_features(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op lhs feature size 4 (lhs dim 3) must be the kernel input feature size 4 (rhs dim 2) times feature_group_count 2}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], feature_group_count = 2 : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_feature_groups_output(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x1x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op kernel output feature size 6 (rhs dim 3) must be a multiple of feature_group_count 4}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], feature_group_count = 4 : tensor<1x8x8x4xf32>, tensor<3x3x1x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_batch_groups_batch(%x: tensor<3x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op lhs batch size 3 (lhs dim 0) must be a multiple of batch_group_count 2}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], batch_group_count = 2 : tensor<3x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_batch_groups_output(%x: tensor<4x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op kernel output feature size 6 (rhs dim 3) must be a multiple of batch_group_count 4}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], batch_group_count = 4 : tensor<4x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_negative_padded(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op spatial dimension 1 (lhs dim 2 of size 8), dilated by 1 and padded by [-5, -4], has negative size -1}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], padding = [[0, 0], [-5, -4]] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_result_shape(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op result shape [1, 6, 6, 6] must be [1, 3, 3, 6] (batch / batch_group_count, kernel output features and the number of windows per spatial dimension)}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], strides = [2, 2] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_element_types(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf64>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op lhs, rhs and result element types must be equal, got 'f32', 'f64' and 'f32'}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf64> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_bad_label(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{expected 'i', 'o' or a spatial dimension index, got 'f'}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, f, o]->[b, 0, 1, f] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_label_twice(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'b' is given twice}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, b]x[0, 1, i, o]->[b, 0, 1, f] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_label_missing(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{expected both 'b' and 'f'}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, 2]x[0, 1, i, o]->[b, 0, 1, f] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_spatial_twice(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{spatial dimension 0 is given twice}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_spatial_gap(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{spatial dimension index 2 is not below the number of spatial dimensions, 2: they must be numbered 0, 1, ... without gaps}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 2, f]x[0, 1, i, o]->[b, 0, 1, f] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_no_dims(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{expected 'dims = [...]x[...]->[...]'}}
  %0 = hlo.convolution %x, %w, strides = [1, 1] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @rw_overflow(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op window parameters of dim 1 overflow int64}}
  %0 = hlo.reduce_window sum %x, window = [1, 1], base_dilations = [1, 4611686018427387904] : tensor<4x6xf32> -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @conv_overflow(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op window parameters of spatial dimension 0 overflow int64}}
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], padding = [[9223372036854775807, 9223372036854775807], [0, 0]] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}
