// Every verifier error of the slicing ops, one case per split.
// RUN: hlo-opt %s -split-input-file -verify-diagnostics

func.func @slice_start_count(%a: tensor<4x4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{'hlo.slice' op start must have one entry per operand dimension, got 1 for rank 2}}
  %0 = hlo.slice %a, start = [0], limit = [2, 4], strides = [1, 1] : tensor<4x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @slice_limit_count(%a: tensor<4x4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{'hlo.slice' op limit must have one entry per operand dimension, got 3 for rank 2}}
  %0 = hlo.slice %a, start = [0, 0], limit = [2, 4, 1], strides = [1, 1] : tensor<4x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @slice_strides_count(%a: tensor<4x4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{'hlo.slice' op strides must have one entry per operand dimension, got 1 for rank 2}}
  %0 = hlo.slice %a, start = [0, 0], limit = [2, 4], strides = [1] : tensor<4x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @slice_start_negative(%a: tensor<4x4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{'hlo.slice' op start -1 of dim 0 must be in [0, 4]}}
  %0 = hlo.slice %a, start = [-1, 0], limit = [2, 4], strides = [1, 1] : tensor<4x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @slice_limit_below_start(%a: tensor<4x4xf32>) -> tensor<0x4xf32> {
  // expected-error@+1 {{'hlo.slice' op limit 2 of dim 0 must be in [start, size] = [3, 4]}}
  %0 = hlo.slice %a, start = [3, 0], limit = [2, 4], strides = [1, 1] : tensor<4x4xf32> -> tensor<0x4xf32>
  return %0 : tensor<0x4xf32>
}

// -----

func.func @slice_limit_past_end(%a: tensor<4x4xf32>) -> tensor<2x5xf32> {
  // expected-error@+1 {{'hlo.slice' op limit 5 of dim 1 must be in [start, size] = [0, 4]}}
  %0 = hlo.slice %a, start = [0, 0], limit = [2, 5], strides = [1, 1] : tensor<4x4xf32> -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @slice_zero_stride(%a: tensor<4x4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{'hlo.slice' op stride of dim 1 must be positive, got 0}}
  %0 = hlo.slice %a, start = [0, 0], limit = [2, 4], strides = [1, 0] : tensor<4x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @slice_result_shape(%a: tensor<4x4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{'hlo.slice' op result shape [2, 4] must be [2, 2] (ceil((limit - start) / strides))}}
  %0 = hlo.slice %a, start = [0, 0], limit = [2, 4], strides = [1, 3] : tensor<4x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @slice_element_type(%a: tensor<4x4xf32>) -> tensor<2x4xf16> {
  // expected-error@+1 {{'hlo.slice' op operand and result element types must be equal, got 'f32' and 'f16'}}
  %0 = hlo.slice %a, start = [0, 0], limit = [2, 4], strides = [1, 1] : tensor<4x4xf32> -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

func.func @dynamic_slice_index_count(%a: tensor<4x4xf32>, %i: tensor<i32>) -> tensor<2x2xf32> {
  // expected-error@+1 {{'hlo.dynamic_slice' op expected one start index per operand dimension, got 1 for an operand of rank 2}}
  %0 = hlo.dynamic_slice %a[%i], sizes = [2, 2] : tensor<4x4xf32>[tensor<i32>] -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @dynamic_slice_index_rank(%a: tensor<4xf32>, %i: tensor<1xi32>) -> tensor<2xf32> {
  // expected-error@+1 {{'hlo.dynamic_slice' op start index #0 must be a rank-0 tensor, got 'tensor<1xi32>'}}
  %0 = hlo.dynamic_slice %a[%i], sizes = [2] : tensor<4xf32>[tensor<1xi32>] -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @dynamic_slice_index_types(%a: tensor<4x4xf32>, %i: tensor<i32>, %j: tensor<i64>) -> tensor<2x2xf32> {
  // expected-error@+1 {{'hlo.dynamic_slice' op start indices must have one type, got 'tensor<i32>' and 'tensor<i64>'}}
  %0 = hlo.dynamic_slice %a[%i, %j], sizes = [2, 2] : tensor<4x4xf32>[tensor<i32>, tensor<i64>] -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @dynamic_slice_float_index(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<2xf32> {
  // expected-error@+1 {{'hlo.dynamic_slice' op operand #1 must be variadic of statically shaped tensor of integer (i8-i64, ui8-ui64) values, but got 'tensor<f32>'}}
  %0 = hlo.dynamic_slice %a[%i], sizes = [2] : tensor<4xf32>[tensor<f32>] -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @dynamic_slice_sizes_count(%a: tensor<4x4xf32>, %i: tensor<i32>) -> tensor<2x2xf32> {
  // expected-error@+1 {{'hlo.dynamic_slice' op sizes must have one entry per operand dimension, got 1 for rank 2}}
  %0 = hlo.dynamic_slice %a[%i, %i], sizes = [2] : tensor<4x4xf32>[tensor<i32>, tensor<i32>] -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @dynamic_slice_size_too_large(%a: tensor<4x4xf32>, %i: tensor<i32>) -> tensor<5x2xf32> {
  // expected-error@+1 {{'hlo.dynamic_slice' op slice size 5 of dim 0 must be in [0, 4]}}
  %0 = hlo.dynamic_slice %a[%i, %i], sizes = [5, 2] : tensor<4x4xf32>[tensor<i32>, tensor<i32>] -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

func.func @dynamic_slice_result_shape(%a: tensor<4x4xf32>, %i: tensor<i32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'hlo.dynamic_slice' op result shape [2, 3] must be [2, 2] (the slice sizes)}}
  %0 = hlo.dynamic_slice %a[%i, %i], sizes = [2, 2] : tensor<4x4xf32>[tensor<i32>, tensor<i32>] -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @dynamic_slice_element_type(%a: tensor<4x4xf32>, %i: tensor<i32>) -> tensor<2x2xi32> {
  // expected-error@+1 {{'hlo.dynamic_slice' op operand and result element types must be equal, got 'f32' and 'i32'}}
  %0 = hlo.dynamic_slice %a[%i, %i], sizes = [2, 2] : tensor<4x4xf32>[tensor<i32>, tensor<i32>] -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

func.func @dus_index_count(%a: tensor<4x4xf32>, %u: tensor<2x2xf32>, %i: tensor<i32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'hlo.dynamic_update_slice' op expected one start index per operand dimension, got 1 for an operand of rank 2}}
  %0 = hlo.dynamic_update_slice %a[%i], %u : tensor<4x4xf32>[tensor<i32>], tensor<2x2xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @dus_update_rank(%a: tensor<4x4xf32>, %u: tensor<2xf32>, %i: tensor<i32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'hlo.dynamic_update_slice' op update rank 1 must equal operand rank 2}}
  %0 = hlo.dynamic_update_slice %a[%i, %i], %u : tensor<4x4xf32>[tensor<i32>, tensor<i32>], tensor<2xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @dus_update_too_large(%a: tensor<4x4xf32>, %u: tensor<2x5xf32>, %i: tensor<i32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'hlo.dynamic_update_slice' op update dim 1 of size 5 is larger than operand dim 1 of size 4}}
  %0 = hlo.dynamic_update_slice %a[%i, %i], %u : tensor<4x4xf32>[tensor<i32>, tensor<i32>], tensor<2x5xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @dus_element_type(%a: tensor<4x4xf32>, %u: tensor<2x2xf16>, %i: tensor<i32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'hlo.dynamic_update_slice' op update and result element types must be equal, got 'f16' and 'f32'}}
  %0 = hlo.dynamic_update_slice %a[%i, %i], %u : tensor<4x4xf32>[tensor<i32>, tensor<i32>], tensor<2x2xf16>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @concat_no_inputs() -> tensor<0xf32> {
  // expected-error@+1 {{'hlo.concatenate' op expected at least one input}}
  %0 = "hlo.concatenate"() <{dimension = 0 : i64}> : () -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @concat_dim_out_of_range(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error@+1 {{'hlo.concatenate' op dimension 2 is out of range for inputs of rank 2}}
  %0 = hlo.concatenate dim = 2, %a, %a : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_element_types(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'hlo.concatenate' op input #1 has element type 'f16', but input #0 has 'f32'}}
  %0 = hlo.concatenate dim = 0, %a, %b : tensor<2x3xf32>, tensor<2x3xf16> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_ranks(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<5x3xf32> {
  // expected-error@+1 {{'hlo.concatenate' op input #1 has rank 1, but input #0 has rank 2}}
  %0 = hlo.concatenate dim = 0, %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @concat_sizes(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'hlo.concatenate' op input #1 has size 4 in dim 1, but input #0 has size 3}}
  %0 = hlo.concatenate dim = 0, %a, %b : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_result_shape(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'hlo.concatenate' op result shape [4, 3] must be [3, 3] (the input shapes joined along dim 0)}}
  %0 = hlo.concatenate dim = 0, %a, %b : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_result_element_type(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<3x3xf64> {
  // expected-error@+1 {{'hlo.concatenate' op input and result element types must be equal, got 'f32' and 'f64'}}
  %0 = hlo.concatenate dim = 0, %a, %b : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<3x3xf64>
  return %0 : tensor<3x3xf64>
}

// -----

func.func @pad_value_rank(%a: tensor<4xf32>, %v: tensor<1xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{'hlo.pad' op padding value must be a rank-0 tensor, got 'tensor<1xf32>'}}
  %0 = hlo.pad %a, %v, low = [1], high = [0], interior = [0] : tensor<4xf32>, tensor<1xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @pad_value_element_type(%a: tensor<4xf32>, %v: tensor<f16>) -> tensor<5xf32> {
  // expected-error@+1 {{'hlo.pad' op padding value and operand element types must be equal, got 'f16' and 'f32'}}
  %0 = hlo.pad %a, %v, low = [1], high = [0], interior = [0] : tensor<4xf32>, tensor<f16> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @pad_low_count(%a: tensor<4xf32>, %v: tensor<f32>) -> tensor<5xf32> {
  // expected-error@+1 {{'hlo.pad' op low must have one entry per operand dimension, got 2 for rank 1}}
  %0 = hlo.pad %a, %v, low = [1, 0], high = [0], interior = [0] : tensor<4xf32>, tensor<f32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @pad_high_count(%a: tensor<4xf32>, %v: tensor<f32>) -> tensor<5xf32> {
  // expected-error@+1 {{'hlo.pad' op high must have one entry per operand dimension, got 0 for rank 1}}
  %0 = hlo.pad %a, %v, low = [1], high = [], interior = [0] : tensor<4xf32>, tensor<f32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @pad_interior_count(%a: tensor<4xf32>, %v: tensor<f32>) -> tensor<5xf32> {
  // expected-error@+1 {{'hlo.pad' op interior must have one entry per operand dimension, got 0 for rank 1}}
  %0 = hlo.pad %a, %v, low = [1], high = [0], interior = [] : tensor<4xf32>, tensor<f32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @pad_negative_interior(%a: tensor<4xf32>, %v: tensor<f32>) -> tensor<5xf32> {
  // expected-error@+1 {{'hlo.pad' op interior padding of dim 0 must be non-negative, got -1}}
  %0 = hlo.pad %a, %v, low = [1], high = [0], interior = [-1] : tensor<4xf32>, tensor<f32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @pad_negative_size(%a: tensor<4xf32>, %v: tensor<f32>) -> tensor<0xf32> {
  // expected-error@+1 {{'hlo.pad' op padding of dim 0 removes more than its 4 elements: low = -3, high = -2}}
  %0 = hlo.pad %a, %v, low = [-3], high = [-2], interior = [0] : tensor<4xf32>, tensor<f32> -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @pad_result_shape(%a: tensor<4xf32>, %v: tensor<f32>) -> tensor<6xf32> {
  // expected-error@+1 {{'hlo.pad' op result shape [6] must be [8] (low + size + (size - 1) * interior + high)}}
  %0 = hlo.pad %a, %v, low = [1], high = [0], interior = [1] : tensor<4xf32>, tensor<f32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @pad_result_element_type(%a: tensor<4xf32>, %v: tensor<f32>) -> tensor<5xf64> {
  // expected-error@+1 {{'hlo.pad' op operand and result element types must be equal, got 'f32' and 'f64'}}
  %0 = hlo.pad %a, %v, low = [1], high = [0], interior = [0] : tensor<4xf32>, tensor<f32> -> tensor<5xf64>
  return %0 : tensor<5xf64>
}

// -----

func.func @reverse_dim_out_of_range(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'hlo.reverse' op dims entry 2 is out of range for an operand of rank 2}}
  %0 = hlo.reverse %a, dims = [2] : tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @reverse_dim_repeated(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'hlo.reverse' op dims [1, 1] repeats dimension 1}}
  %0 = hlo.reverse %a, dims = [1, 1] : tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @gather_index_vector_dim(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'hlo.gather' op index_vector_dim 3 must be in [0, 2] for indices of rank 2}}
  %0 = hlo.gather %a[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 3, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_start_index_map_size(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'hlo.gather' op start_index_map [0, 1] must have one entry per index vector entry, got 2 for vectors of size 1}}
  %0 = hlo.gather %a[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_start_index_map_range(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'hlo.gather' op start_index_map entry 2 is out of range for an operand of rank 2}}
  %0 = hlo.gather %a[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [2], index_vector_dim = 1, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_start_index_map_repeat(%a: tensor<5x3xf32>, %i: tensor<2x2xi32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'hlo.gather' op start_index_map [0, 0] repeats dimension 0}}
  %0 = hlo.gather %a[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 0], index_vector_dim = 1, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x2xi32>] -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_collapsed_unsorted(%a: tensor<5x3xf32>, %i: tensor<2x2xi32>) -> tensor<2xf32> {
  // expected-error@+1 {{'hlo.gather' op collapsed_slice_dims must be sorted, got [1, 0]}}
  %0 = hlo.gather %a[%i], offset_dims = [], collapsed_slice_dims = [1, 0], start_index_map = [0, 1], index_vector_dim = 1, slice_sizes = [1, 1] : tensor<5x3xf32>[tensor<2x2xi32>] -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @gather_slice_sizes_count(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'hlo.gather' op slice_sizes must have one entry per operand dimension, got 1 for rank 2}}
  %0 = hlo.gather %a[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_slice_size_range(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{'hlo.gather' op slice size 4 of dim 1 must be in [0, 3]}}
  %0 = hlo.gather %a[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 4] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @gather_collapsed_size(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'hlo.gather' op collapsed dim 0 must have slice size 0 or 1, got 2}}
  %0 = hlo.gather %a[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [2, 3] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_offset_dims_count(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'hlo.gather' op offset_dims [] must have one entry per operand dim not in collapsed_slice_dims, which is 1}}
  %0 = hlo.gather %a[%i], offset_dims = [], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_offset_dims_range(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'hlo.gather' op offset_dims entry 2 is out of range for a result of rank 2}}
  %0 = hlo.gather %a[%i], offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_result_shape(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<3x2xf32> {
  // expected-error@+1 {{'hlo.gather' op result shape [3, 2] must be [2, 3] (the index batch dims with the uncollapsed slice sizes at offset_dims)}}
  %0 = hlo.gather %a[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @gather_element_type(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf16> {
  // expected-error@+1 {{'hlo.gather' op operand and result element types must be equal, got 'f32' and 'f16'}}
  %0 = hlo.gather %a[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

func.func @scatter_index_vector_dim(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> tensor<5x3xf32> {
  // expected-error@+1 {{'hlo.scatter' op index_vector_dim -1 must be in [0, 2] for indices of rank 2}}
  %0 = hlo.scatter add %a[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = -1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @scatter_to_operand_size(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> tensor<5x3xf32> {
  // expected-error@+1 {{'hlo.scatter' op scatter_dims_to_operand_dims [] must have one entry per index vector entry, got 0 for vectors of size 1}}
  %0 = hlo.scatter add %a[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @scatter_to_operand_range(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> tensor<5x3xf32> {
  // expected-error@+1 {{'hlo.scatter' op scatter_dims_to_operand_dims entry 5 is out of range for an operand of rank 2}}
  %0 = hlo.scatter add %a[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [5], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @scatter_inserted_unsorted(%a: tensor<5x3xf32>, %i: tensor<2x2xi32>, %u: tensor<2xf32>) -> tensor<5x3xf32> {
  // expected-error@+1 {{'hlo.scatter' op inserted_window_dims must be sorted, got [1, 0]}}
  %0 = hlo.scatter add %a[%i], %u, update_window_dims = [], inserted_window_dims = [1, 0], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x2xi32>], tensor<2xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @scatter_window_dims_range(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> tensor<5x3xf32> {
  // expected-error@+1 {{'hlo.scatter' op update_window_dims entry 2 is out of range for updates of rank 2}}
  %0 = hlo.scatter add %a[%i], %u, update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @scatter_window_dims_count(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> tensor<5x3xf32> {
  // expected-error@+1 {{'hlo.scatter' op update_window_dims [0, 1] must have one entry per operand dim not in inserted_window_dims, which is 1}}
  %0 = hlo.scatter add %a[%i], %u, update_window_dims = [0, 1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @scatter_updates_rank(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3x1xf32>) -> tensor<5x3xf32> {
  // expected-error@+1 {{'hlo.scatter' op updates rank 3 must be the number of index batch dims (1) plus update_window_dims (1)}}
  %0 = hlo.scatter add %a[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3x1xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @scatter_window_too_large(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) -> tensor<5x3xf32> {
  // expected-error@+1 {{'hlo.scatter' op updates window dim 1 of size 4 is larger than operand dim 1 of size 3}}
  %0 = hlo.scatter add %a[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x4xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @scatter_batch_mismatch(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<3x3xf32>) -> tensor<5x3xf32> {
  // expected-error@+1 {{'hlo.scatter' op updates dim 0 of size 3 must match index batch dim 0 of size 2 (the indices' shape without index_vector_dim is [2])}}
  %0 = hlo.scatter add %a[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<3x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @scatter_element_type(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf16>) -> tensor<5x3xf32> {
  // expected-error@+1 {{'hlo.scatter' op updates and operand element types must be equal, got 'f16' and 'f32'}}
  %0 = hlo.scatter add %a[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf16>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @scatter_add_pred(%a: tensor<5xi1>, %i: tensor<2x1xi32>, %u: tensor<2xi1>) -> tensor<5xi1> {
  // expected-error@+1 {{'hlo.scatter' op 'add' scatter needs a float or integer element type, got i1}}
  %0 = hlo.scatter add %a[%i], %u, update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5xi1>[tensor<2x1xi32>], tensor<2xi1>
  return %0 : tensor<5xi1>
}

// -----

func.func @scatter_unknown_kind(%a: tensor<5xf32>, %i: tensor<2x1xi32>, %u: tensor<2xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{custom op 'hlo.scatter' unknown scatter_kind 'sub'}}
  %0 = hlo.scatter sub %a[%i], %u, update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5xf32>[tensor<2x1xi32>], tensor<2xf32>
  return %0 : tensor<5xf32>
}
