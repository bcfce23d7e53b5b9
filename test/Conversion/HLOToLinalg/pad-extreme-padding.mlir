// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// Paddings near the int64 limits that the verifier accepts lower without
// overflowing: interior padding of a size-1 dim (which has no interior) is
// ignored instead of becoming a stride of 2^63 (found probing the 2^63
// boundaries: that stride wrapped to the "dynamic" sentinel and produced an
// invalid tensor.insert_slice).
// CHECK-LABEL: func.func @interior_padding_of_a_size_one_dim_is_ignored
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [1, 3] [1, 1] : tensor<1x3xf32> into tensor<1x3xf32>
func.func @interior_padding_of_a_size_one_dim_is_ignored(%x: tensor<1x3xf32>, %v: tensor<f32>) -> tensor<1x3xf32> {
  %0 = hlo.pad %x, %v, low = [0, 0], high = [0, 0], interior = [9223372036854775807, 0] : tensor<1x3xf32>, tensor<f32> -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

// A low padding near -2^63, cancelled by the high padding, crops every
// operand element: the result is all padding.
// CHECK-LABEL: func.func @low_padding_near_int64_min_crops_everything
// CHECK: %[[F:.*]] = linalg.fill
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[F]]
func.func @low_padding_near_int64_min_crops_everything(%x: tensor<4xf32>, %v: tensor<f32>) -> tensor<3xf32> {
  %0 = hlo.pad %x, %v, low = [-9223372036854775808], high = [9223372036854775807], interior = [0] : tensor<4xf32>, tensor<f32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A low padding beyond the result's end, cancelled by the high padding.
// CHECK-LABEL: func.func @low_padding_near_int64_max_is_all_padding
// CHECK: %[[F:.*]] = linalg.fill
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[F]]
func.func @low_padding_near_int64_max_is_all_padding(%x: tensor<4xf32>, %v: tensor<f32>) -> tensor<5xf32> {
  %0 = hlo.pad %x, %v, low = [9223372036854775807], high = [-9223372036854775806], interior = [0] : tensor<4xf32>, tensor<f32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// One operand element lands inside: a stride of 1 for a single element.
// CHECK-LABEL: func.func @single_element_lands_with_stride_one
// CHECK: tensor.extract_slice %{{.*}}[3] [1] [1] : tensor<4xf32> to tensor<1xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0] [1] [1] : tensor<1xf32> into tensor<2xf32>
func.func @single_element_lands_with_stride_one(%x: tensor<4xf32>, %v: tensor<f32>) -> tensor<2xf32> {
  %0 = hlo.pad %x, %v, low = [-3], high = [1], interior = [0] : tensor<4xf32>, tensor<f32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
