// 16-bit float sums, products, contractions and convolutions compute in f32
// and round once; max/min and f32 ops are left alone.
// RUN: hlo-opt %s --hlo-widen-accumulation --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @bf16_sum_accumulates_in_f32
// CHECK-SAME: (%[[X:.*]]: tensor<300xbf16>)
func.func @bf16_sum_accumulates_in_f32(%x: tensor<300xbf16>) -> tensor<bf16> {
  // CHECK: %[[W:.*]] = hlo.convert %[[X]] : tensor<300xbf16> -> tensor<300xf32>
  // CHECK: %[[S:.*]] = hlo.reduce sum %[[W]], dims = [0] : tensor<300xf32> -> tensor<f32>
  // CHECK: %[[R:.*]] = hlo.convert %[[S]] : tensor<f32> -> tensor<bf16>
  // CHECK: return %[[R]]
  %0 = hlo.reduce sum %x, dims = [0] : tensor<300xbf16> -> tensor<bf16>
  return %0 : tensor<bf16>
}

// -----

// CHECK-LABEL: func.func @f16_prod_accumulates_in_f32
func.func @f16_prod_accumulates_in_f32(%x: tensor<4x3xf16>) -> tensor<4xf16> {
  // CHECK: hlo.reduce prod %{{.*}} : tensor<4x3xf32> -> tensor<4xf32>
  // CHECK: hlo.convert %{{.*}} : tensor<4xf32> -> tensor<4xf16>
  %0 = hlo.reduce prod %x, dims = [1] : tensor<4x3xf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Max and min are exact in bf16: no conversion.
// CHECK-LABEL: func.func @bf16_max_stays_bf16
func.func @bf16_max_stays_bf16(%x: tensor<4x3xbf16>) -> tensor<4xbf16> {
  // CHECK-NOT: hlo.convert
  // CHECK: hlo.reduce max %{{.*}} : tensor<4x3xbf16> -> tensor<4xbf16>
  %0 = hlo.reduce max %x, dims = [1] : tensor<4x3xbf16> -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @f32_sum_unchanged
func.func @f32_sum_unchanged(%x: tensor<4x3xf32>) -> tensor<4xf32> {
  // CHECK-NOT: hlo.convert
  %0 = hlo.reduce sum %x, dims = [1] : tensor<4x3xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @bf16_dot_general_accumulates_in_f32
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xbf16>, %[[B:.*]]: tensor<3x4xbf16>)
func.func @bf16_dot_general_accumulates_in_f32(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) -> tensor<2x4xbf16> {
  // CHECK-DAG: %[[WA:.*]] = hlo.convert %[[A]] : tensor<2x3xbf16> -> tensor<2x3xf32>
  // CHECK-DAG: %[[WB:.*]] = hlo.convert %[[B]] : tensor<3x4xbf16> -> tensor<3x4xf32>
  // CHECK: %[[D:.*]] = hlo.dot_general %[[WA]], %[[WB]], {{.*}} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  // CHECK: hlo.convert %[[D]] : tensor<2x4xf32> -> tensor<2x4xbf16>
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<2x3xbf16>, tensor<3x4xbf16> -> tensor<2x4xbf16>
  return %0 : tensor<2x4xbf16>
}

// -----

// CHECK-LABEL: func.func @bf16_cumulative_sum_accumulates_in_f32
func.func @bf16_cumulative_sum_accumulates_in_f32(%x: tensor<5x7xbf16>) -> tensor<5x7xbf16> {
  // CHECK: hlo.cumulative sum %{{.*}}, dim = 1, reverse = true : tensor<5x7xf32>
  // CHECK: hlo.convert %{{.*}} : tensor<5x7xf32> -> tensor<5x7xbf16>
  %0 = hlo.cumulative sum %x, dim = 1, reverse = true : tensor<5x7xbf16>
  return %0 : tensor<5x7xbf16>
}

// -----

// CHECK-LABEL: func.func @bf16_window_sum_accumulates_in_f32
func.func @bf16_window_sum_accumulates_in_f32(%x: tensor<4x6xbf16>) -> (tensor<3x5xbf16>, tensor<3x5xbf16>) {
  // CHECK: hlo.reduce_window sum %{{.*}} : tensor<4x6xf32> -> tensor<3x5xf32>
  // CHECK: hlo.convert %{{.*}} : tensor<3x5xf32> -> tensor<3x5xbf16>
  // CHECK: hlo.reduce_window max %{{.*}} : tensor<4x6xbf16> -> tensor<3x5xbf16>
  %0 = hlo.reduce_window sum %x, window = [2, 2] : tensor<4x6xbf16> -> tensor<3x5xbf16>
  %1 = hlo.reduce_window max %x, window = [2, 2] : tensor<4x6xbf16> -> tensor<3x5xbf16>
  return %0, %1 : tensor<3x5xbf16>, tensor<3x5xbf16>
}

// -----

// CHECK-LABEL: func.func @bf16_convolution_accumulates_in_f32
func.func @bf16_convolution_accumulates_in_f32(%x: tensor<1x8x8x4xbf16>, %w: tensor<3x3x4x6xbf16>) -> tensor<1x6x6x6xbf16> {
  // CHECK: hlo.convolution {{.*}} : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  // CHECK: hlo.convert %{{.*}} : tensor<1x6x6x6xf32> -> tensor<1x6x6x6xbf16>
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] : tensor<1x8x8x4xbf16>, tensor<3x3x4x6xbf16> -> tensor<1x6x6x6xbf16>
  return %0 : tensor<1x6x6x6xbf16>
}
