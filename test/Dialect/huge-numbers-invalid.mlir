// RUN: hlo-opt %s -split-input-file -verify-diagnostics
// Dimension numbers, sizes and window parameters near 2^31, 2^32 and 2^63
// are rejected with a diagnostic before anything is allocated for them, and
// shape arithmetic that would overflow int64 is an error, not a wrap.

func.func @conv_spatial_index_2_pow_32(%x: tensor<1x4x8xf32>, %w: tensor<4x6x3xf32>) -> tensor<1x6x6xf32> {
  // expected-error@+1 {{spatial dimension index 4294967295 is not below the number of spatial dimensions, 1}}
  %0 = hlo.convolution %x, %w, dims = [b, f, 0]x[o, i, 0]->[b, f, 4294967295] : tensor<1x4x8xf32>, tensor<4x6x3xf32> -> tensor<1x6x6xf32>
  return %0 : tensor<1x6x6xf32>
}

// -----

func.func @conv_spatial_index_2_pow_31(%x: tensor<1x4x8xf32>, %w: tensor<4x6x3xf32>) -> tensor<1x6x6xf32> {
  // expected-error@+1 {{spatial dimension index 2147483647 is not below the number of spatial dimensions, 1}}
  %0 = hlo.convolution %x, %w, dims = [b, f, 2147483647]x[o, i, 0]->[b, f, 0] : tensor<1x4x8xf32>, tensor<4x6x3xf32> -> tensor<1x6x6xf32>
  return %0 : tensor<1x6x6xf32>
}

// -----

func.func @conv_spatial_index_2_pow_63(%x: tensor<1x4x8xf32>, %w: tensor<4x6x3xf32>) -> tensor<1x6x6xf32> {
  // expected-error@+1 {{spatial dimension index 9223372036854775807 is not below the number of spatial dimensions, 1}}
  %0 = hlo.convolution %x, %w, dims = [b, f, 0]x[o, i, 9223372036854775807]->[b, f, 0] : tensor<1x4x8xf32>, tensor<4x6x3xf32> -> tensor<1x6x6xf32>
  return %0 : tensor<1x6x6xf32>
}

// -----

func.func @conv_spatial_index_beyond_int64(%x: tensor<1x4x8xf32>, %w: tensor<4x6x3xf32>) -> tensor<1x6x6xf32> {
  // expected-error@+1 {{integer value too large}}
  %0 = hlo.convolution %x, %w, dims = [b, f, 0]x[o, i, 9223372036854775808]->[b, f, 0] : tensor<1x4x8xf32>, tensor<4x6x3xf32> -> tensor<1x6x6xf32>
  return %0 : tensor<1x6x6xf32>
}

// -----

func.func @conv_feature_groups_overflow(%x: tensor<1x4x8xi8>, %w: tensor<4611686018427387904x1x1xi8>) -> tensor<1x1x8xi8> {
  // expected-error@+1 {{'hlo.convolution' op lhs feature size 4 (lhs dim 1) must be the kernel input feature size 4611686018427387904 (rhs dim 0) times feature_group_count 4}}
  %0 = hlo.convolution %x, %w, dims = [b, f, 0]x[i, o, 0]->[b, f, 0], feature_group_count = 4 : tensor<1x4x8xi8>, tensor<4611686018427387904x1x1xi8> -> tensor<1x1x8xi8>
  return %0 : tensor<1x1x8xi8>
}

// -----

func.func @conv_padding_overflow(%x: tensor<1x4x8xf32>, %w: tensor<4x6x3xf32>) -> tensor<1x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op window parameters of spatial dimension 0 overflow int64}}
  %0 = hlo.convolution %x, %w, dims = [b, f, 0]x[i, o, 0]->[b, f, 0], padding = [[9223372036854775807, 9223372036854775807]] : tensor<1x4x8xf32>, tensor<4x6x3xf32> -> tensor<1x6x6xf32>
  return %0 : tensor<1x6x6xf32>
}

// -----

func.func @reduce_window_window_dilation_overflow(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op window parameters of dim 0 overflow int64}}
  %0 = hlo.reduce_window sum %x, window = [4294967296, 1], window_dilations = [4294967296, 1] : tensor<4x6xf32> -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @reduce_window_padding_overflow(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+1 {{'hlo.reduce_window' op window parameters of dim 1 overflow int64}}
  %0 = hlo.reduce_window sum %x, window = [1, 1], padding = [[0, 0], [-9223372036854775808, -9223372036854775808]] : tensor<4x6xf32> -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @tensor_operand_larger_than_int64_bytes(%x: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  // expected-error@+1 {{'hlo.negate' op operand #0 of type 'tensor<4294967296x4294967296xf32>' is larger than 2^63 - 1 bytes, the most a tensor may hold}}
  %0 = hlo.negate %x : tensor<4294967296x4294967296xf32>
  return %0 : tensor<4294967296x4294967296xf32>
}

// -----

func.func @tensor_bytes_overflow_with_wide_elements(%x: tensor<2305843009213693952xf32>) -> tensor<2305843009213693952xf32> {
  // expected-error@+1 {{operand #0 of type 'tensor<2305843009213693952xf32>' is larger than 2^63 - 1 bytes}}
  %0 = hlo.abs %x : tensor<2305843009213693952xf32>
  return %0 : tensor<2305843009213693952xf32>
}

// -----

func.func @splat_constant_larger_than_int64_bytes() -> tensor<3074457345618258603x3xi8> {
  // expected-error@+1 {{'hlo.constant' op result #0 of type 'tensor<3074457345618258603x3xi8>' is larger than 2^63 - 1 bytes}}
  %0 = hlo.constant dense<1> : tensor<3074457345618258603x3xi8>
  return %0 : tensor<3074457345618258603x3xi8>
}

// -----

func.func @reshape_element_count_overflow(%x: tensor<4xf32>) -> tensor<4294967296x4294967296x4xi8> {
  // expected-error@+1 {{'hlo.reshape' op result #0 of type 'tensor<4294967296x4294967296x4xi8>' is larger than 2^63 - 1 bytes}}
  %0 = hlo.reshape %x : tensor<4xf32> -> tensor<4294967296x4294967296x4xi8>
  return %0 : tensor<4294967296x4294967296x4xi8>
}

// -----

func.func @iota_dimension_2_pow_32() -> tensor<4xi32> {
  // expected-error@+1 {{'hlo.iota' op iota dimension 4294967296 is out of range for a result of rank 1}}
  %0 = hlo.iota dim = 4294967296 : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @transpose_permutation_2_pow_31(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error@+1 {{'hlo.transpose' op permutation entry 2147483648 is out of range for an operand of rank 2}}
  %0 = hlo.transpose %x, dims = [2147483648, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @broadcast_dimension_negative(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'hlo.broadcast_in_dim' op broadcast dimension -9223372036854775808 (of operand dim 0) is out of range for a result of rank 2}}
  %0 = hlo.broadcast_in_dim %x, dims = [-9223372036854775808] : tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @reduce_dimension_2_pow_63_minus_1(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'hlo.reduce' op reduce dimension 9223372036854775807 is out of range for an operand of rank 2}}
  %0 = hlo.reduce sum %x, dims = [9223372036854775807] : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @dot_general_contracting_dim_2_pow_32(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{'hlo.dot_general' op lhs dimension 4294967296 is out of range for lhs of rank 2}}
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [4294967296] x [0] : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @dot_general_batch_dim_negative(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'hlo.dot_general' op rhs dimension -2147483649 is out of range for rhs of rank 2}}
  %0 = hlo.dot_general %a, %b, batch_dims = [0] x [-2147483649], contracting_dims = [1] x [1] : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @pad_interior_overflow(%x: tensor<3xf32>, %v: tensor<f32>) -> tensor<3xf32> {
  // expected-error@+1 {{'hlo.pad' op padding of dim 0 (size 3, low = 0, high = 0, interior = 9223372036854775807) overflows int64}}
  %0 = hlo.pad %x, %v, low = [0], high = [0], interior = [9223372036854775807] : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @pad_edge_overflow(%x: tensor<3xf32>, %v: tensor<f32>) -> tensor<3xf32> {
  // expected-error@+1 {{'hlo.pad' op padding of dim 0 (size 3, low = 9223372036854775807, high = 1, interior = 0) overflows int64}}
  %0 = hlo.pad %x, %v, low = [9223372036854775807], high = [1], interior = [0] : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @concatenate_size_overflow(%a: tensor<4611686018427387904xi8>, %b: tensor<4611686018427387904xi8>) -> tensor<1xi8> {
  // expected-error@+1 {{'hlo.concatenate' op the inputs' sizes along dim 0 add up to more than int64 can hold}}
  %0 = hlo.concatenate dim = 0, %a, %b : tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8> -> tensor<1xi8>
  return %0 : tensor<1xi8>
}

// -----

func.func @concatenate_dimension_2_pow_32(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'hlo.concatenate' op dimension 4294967296 is out of range for inputs of rank 1}}
  %0 = hlo.concatenate dim = 4294967296, %a : tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_stride_and_limit_near_int64(%x: tensor<4xf32>) -> tensor<1xf32> {
  // expected-error@+1 {{'hlo.slice' op limit 9223372036854775807 of dim 0 must be in [start, size] = [0, 4]}}
  %0 = hlo.slice %x, start = [0], limit = [9223372036854775807], strides = [9223372036854775807] : tensor<4xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @reverse_dimension_2_pow_31(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.reverse' op dims entry 2147483648 is out of range for an operand of rank 1}}
  %0 = hlo.reverse %x, dims = [2147483648] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gather_index_vector_dim_2_pow_32(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'hlo.gather' op index_vector_dim 4294967296 must be in [0, 2] for indices of rank 2}}
  %0 = hlo.gather %a[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 4294967296, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_slice_size_2_pow_63_minus_1(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'hlo.gather' op slice size 9223372036854775807 of dim 1 must be in [0, 3]}}
  %0 = hlo.gather %a[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 9223372036854775807] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_offset_dim_2_pow_31(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'hlo.gather' op offset_dims entry 2147483648 is out of range for a result of rank 2}}
  %0 = hlo.gather %a[%i], offset_dims = [2147483648], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @scatter_inserted_window_dim_2_pow_32(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> tensor<5x3xf32> {
  // expected-error@+1 {{'hlo.scatter' op inserted_window_dims entry 4294967296 is out of range for an operand of rank 2}}
  %0 = hlo.scatter add %a[%i], %u, update_window_dims = [1], inserted_window_dims = [4294967296], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @scatter_index_vector_dim_negative(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> tensor<5x3xf32> {
  // expected-error@+1 {{'hlo.scatter' op index_vector_dim -1 must be in [0, 2] for indices of rank 2}}
  %0 = hlo.scatter add %a[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = -1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @sort_dimension_2_pow_32(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.sort' op sort dimension 4294967296 is out of range for operands of rank 1}}
  %0 = hlo.sort(%x) dim = 4294967296, num_keys = 1 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
