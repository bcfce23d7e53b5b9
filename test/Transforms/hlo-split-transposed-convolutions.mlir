// An lhs-dilated convolution becomes one undilated convolution per output
// phase, with that phase's kernel taps, interleaved by reshape and
// concatenate; convolutions the split would not keep exact or small are
// left alone.
// RUN: hlo-opt %s --hlo-split-transposed-convolutions --split-input-file | FileCheck %s

// Output 2q reads tap 1 (input q); output 2q + 1 reads taps 0 and 2 (inputs
// q and q + 1, padded by one at the end).
// CHECK-LABEL: func.func @one_dimension
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x1xf32>, %[[K:.*]]: tensor<3x1x1xf32>)
func.func @one_dimension(%x: tensor<1x4x1xf32>, %k: tensor<3x1x1xf32>) -> tensor<1x8x1xf32> {
  // CHECK: %[[K0:.*]] = hlo.slice %[[K]], start = [1, 0, 0], limit = [3, 1, 1], strides = [2, 1, 1] : tensor<3x1x1xf32> -> tensor<1x1x1xf32>
  // CHECK: %[[Y0:.*]] = hlo.convolution %[[X]], %[[K0]], dims = [b, 0, f]x[0, i, o]->[b, 0, f] : tensor<1x4x1xf32>, tensor<1x1x1xf32> -> tensor<1x4x1xf32>
  // CHECK: %[[K1:.*]] = hlo.slice %[[K]], start = [0, 0, 0], limit = [3, 1, 1], strides = [2, 1, 1] : tensor<3x1x1xf32> -> tensor<2x1x1xf32>
  // CHECK: %[[Y1:.*]] = hlo.convolution %[[X]], %[[K1]], dims = [b, 0, f]x[0, i, o]->[b, 0, f], padding = {{\[}}[0, 1]] : tensor<1x4x1xf32>, tensor<2x1x1xf32> -> tensor<1x4x1xf32>
  // CHECK: %[[R0:.*]] = hlo.reshape %[[Y0]] : tensor<1x4x1xf32> -> tensor<1x4x1x1xf32>
  // CHECK: %[[R1:.*]] = hlo.reshape %[[Y1]] : tensor<1x4x1xf32> -> tensor<1x4x1x1xf32>
  // CHECK: %[[C:.*]] = hlo.concatenate dim = 2, %[[R0]], %[[R1]] : tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32> -> tensor<1x4x2x1xf32>
  // CHECK: %[[Y:.*]] = hlo.reshape %[[C]] : tensor<1x4x2x1xf32> -> tensor<1x8x1xf32>
  // CHECK-NOT: lhs_dilation
  // CHECK: return %[[Y]]
  %0 = hlo.convolution %x, %k, dims = [b, 0, f]x[0, i, o]->[b, 0, f], padding = [[1, 2]], lhs_dilation = [2] : tensor<1x4x1xf32>, tensor<3x1x1xf32> -> tensor<1x8x1xf32>
  return %0 : tensor<1x8x1xf32>
}

// -----

// The DCGAN generator's first transposed convolution (5x5, stride 2, SAME):
// four phases of 2x2, 2x3, 3x2 and 3x3 taps, concatenated along the last
// spatial dimension's phase axis, then the first's.
// CHECK-LABEL: func.func @two_dimensions
func.func @two_dimensions(%x: tensor<64x7x7x64xf32>, %k: tensor<5x5x64x32xf32>) -> tensor<64x14x14x32xf32> {
  // CHECK: hlo.slice %{{.*}}, start = [1, 1, 0, 0], limit = [5, 5, 64, 32], strides = [2, 2, 1, 1] : tensor<5x5x64x32xf32> -> tensor<2x2x64x32xf32>
  // CHECK: %[[Y00:.*]] = hlo.convolution {{.*}} padding = {{\[}}[1, 0], [1, 0]] : tensor<64x7x7x64xf32>, tensor<2x2x64x32xf32> -> tensor<64x7x7x32xf32>
  // CHECK: hlo.slice %{{.*}}, start = [1, 0, 0, 0], {{.*}} -> tensor<2x3x64x32xf32>
  // CHECK: %[[Y01:.*]] = hlo.convolution {{.*}} padding = {{\[}}[1, 0], [1, 1]] : tensor<64x7x7x64xf32>, tensor<2x3x64x32xf32> -> tensor<64x7x7x32xf32>
  // CHECK: hlo.slice %{{.*}}, start = [0, 1, 0, 0], {{.*}} -> tensor<3x2x64x32xf32>
  // CHECK: %[[Y10:.*]] = hlo.convolution {{.*}} padding = {{\[}}[1, 1], [1, 0]] : tensor<64x7x7x64xf32>, tensor<3x2x64x32xf32> -> tensor<64x7x7x32xf32>
  // CHECK: hlo.slice %{{.*}}, start = [0, 0, 0, 0], {{.*}} -> tensor<3x3x64x32xf32>
  // CHECK: %[[Y11:.*]] = hlo.convolution {{.*}} padding = {{\[}}[1, 1], [1, 1]] : tensor<64x7x7x64xf32>, tensor<3x3x64x32xf32> -> tensor<64x7x7x32xf32>
  // CHECK: %[[R00:.*]] = hlo.reshape %[[Y00]] : tensor<64x7x7x32xf32> -> tensor<64x7x1x7x1x32xf32>
  // CHECK: %[[R01:.*]] = hlo.reshape %[[Y01]]
  // CHECK: %[[R10:.*]] = hlo.reshape %[[Y10]]
  // CHECK: %[[R11:.*]] = hlo.reshape %[[Y11]]
  // CHECK: %[[C0:.*]] = hlo.concatenate dim = 4, %[[R00]], %[[R01]] : {{.*}} -> tensor<64x7x1x7x2x32xf32>
  // CHECK: %[[C1:.*]] = hlo.concatenate dim = 4, %[[R10]], %[[R11]]
  // CHECK: %[[C:.*]] = hlo.concatenate dim = 2, %[[C0]], %[[C1]] : {{.*}} -> tensor<64x7x2x7x2x32xf32>
  // CHECK: hlo.reshape %[[C]] : tensor<64x7x2x7x2x32xf32> -> tensor<64x14x14x32xf32>
  %0 = hlo.convolution %x, %k, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], padding = [[3, 2], [3, 2]], lhs_dilation = [2, 2] : tensor<64x7x7x64xf32>, tensor<5x5x64x32xf32> -> tensor<64x14x14x32xf32>
  return %0 : tensor<64x14x14x32xf32>
}

// -----

// An odd output size: phase 1 has one output fewer (padded with a zero to
// concatenate, then sliced off), and its negative padding crops the input.
// CHECK-LABEL: func.func @ragged_phases
func.func @ragged_phases(%x: tensor<1x4x1xf32>, %k: tensor<3x1x1xf32>) -> tensor<1x5x1xf32> {
  // CHECK: hlo.convolution {{.*}} : tensor<1x4x1xf32>, tensor<2x1x1xf32> -> tensor<1x3x1xf32>
  // CHECK: %[[Y1:.*]] = hlo.convolution {{.*}}, padding = {{\[}}[-1, -1]] : tensor<1x4x1xf32>, tensor<1x1x1xf32> -> tensor<1x2x1xf32>
  // CHECK: %[[Z:.*]] = hlo.constant dense<0.000000e+00> : tensor<f32>
  // CHECK: hlo.pad %[[Y1]], %[[Z]], low = [0, 0, 0], high = [0, 1, 0], interior = [0, 0, 0] : tensor<1x2x1xf32>, tensor<f32> -> tensor<1x3x1xf32>
  // CHECK: %[[C:.*]] = hlo.concatenate dim = 2, {{.*}} -> tensor<1x3x2x1xf32>
  // CHECK: %[[R:.*]] = hlo.reshape %[[C]] : tensor<1x3x2x1xf32> -> tensor<1x6x1xf32>
  // CHECK: %[[Y:.*]] = hlo.slice %[[R]], start = [0, 0, 0], limit = [1, 5, 1], strides = [1, 1, 1] : tensor<1x6x1xf32> -> tensor<1x5x1xf32>
  // CHECK: return %[[Y]]
  %0 = hlo.convolution %x, %k, dims = [b, 0, f]x[0, i, o]->[b, 0, f], lhs_dilation = [2] : tensor<1x4x1xf32>, tensor<3x1x1xf32> -> tensor<1x5x1xf32>
  return %0 : tensor<1x5x1xf32>
}

// -----

// A 1-tap kernel meets no real element at odd outputs: they are zeros.
// Integers split the same way.
// CHECK-LABEL: func.func @phase_without_taps
func.func @phase_without_taps(%x: tensor<1x4x1xi32>, %k: tensor<1x1x1xi32>) -> tensor<1x8x1xi32> {
  // CHECK: %[[Y0:.*]] = hlo.convolution {{.*}} : tensor<1x4x1xi32>, tensor<1x1x1xi32> -> tensor<1x4x1xi32>
  // CHECK: %[[Z:.*]] = hlo.constant dense<0> : tensor<i32>
  // CHECK: %[[Y1:.*]] = hlo.broadcast_in_dim %[[Z]], dims = [] : tensor<i32> -> tensor<1x4x1xi32>
  // CHECK: hlo.reshape %[[Y0]]
  // CHECK: hlo.reshape %[[Y1]]
  // CHECK: hlo.concatenate dim = 2
  // CHECK-NOT: hlo.convolution
  %0 = hlo.convolution %x, %k, dims = [b, 0, f]x[0, i, o]->[b, 0, f], padding = [[0, 1]], lhs_dilation = [2] : tensor<1x4x1xi32>, tensor<1x1x1xi32> -> tensor<1x8x1xi32>
  return %0 : tensor<1x8x1xi32>
}

// -----

// NCHW, only the first spatial dimension dilated: the second keeps its
// stride, and feature groups are kept.
// CHECK-LABEL: func.func @one_of_two_dimensions_dilated
func.func @one_of_two_dimensions_dilated(%x: tensor<2x4x5x9xf32>, %k: tensor<6x2x3x3xf32>) -> tensor<2x6x9x4xf32> {
  // CHECK: hlo.slice %{{.*}}, start = [0, 0, 1, 0], limit = [6, 2, 3, 3], strides = [1, 1, 2, 1] : tensor<6x2x3x3xf32> -> tensor<6x2x1x3xf32>
  // CHECK: hlo.convolution {{.*}}, dims = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], strides = [1, 2], feature_group_count = 2 : tensor<2x4x5x9xf32>, tensor<6x2x1x3xf32> -> tensor<2x6x5x4xf32>
  // CHECK: hlo.convolution {{.*}}, strides = [1, 2], feature_group_count = 2 : tensor<2x4x5x9xf32>, tensor<6x2x2x3xf32> -> tensor<2x6x4x4xf32>
  // CHECK: hlo.concatenate dim = 3, {{.*}} -> tensor<2x6x5x2x4xf32>
  // CHECK: hlo.reshape {{.*}} : tensor<2x6x5x2x4xf32> -> tensor<2x6x10x4xf32>
  // CHECK: hlo.slice {{.*}} -> tensor<2x6x9x4xf32>
  %0 = hlo.convolution %x, %k, dims = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], strides = [1, 2], padding = [[1, 1], [0, 0]], lhs_dilation = [2, 1], feature_group_count = 2 : tensor<2x4x5x9xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x9x4xf32>
  return %0 : tensor<2x6x9x4xf32>
}

// -----

// Left alone: a window stride or an rhs dilation on a dilated dimension
// (the phases would not be plain convolutions), more than 16 phases, and
// undilated convolutions.
// CHECK-LABEL: func.func @kept
func.func @kept(%x: tensor<1x4x1xf32>, %k: tensor<3x1x1xf32>, %y: tensor<1x4x4x1xf32>, %w: tensor<1x1x1x1xf32>) -> (tensor<1x3x1xf32>, tensor<1x7x1xf32>, tensor<1x16x16x1xf32>, tensor<1x2x2x1xf32>) {
  // CHECK-NOT: hlo.slice
  // CHECK: strides = [2], lhs_dilation = [2]
  // CHECK: lhs_dilation = [2], rhs_dilation = [2]
  // CHECK: lhs_dilation = [5, 5]
  // CHECK: hlo.convolution {{.*}} : tensor<1x4x4x1xf32>, tensor<1x1x1x1xf32> -> tensor<1x2x2x1xf32>
  %0 = hlo.convolution %x, %k, dims = [b, 0, f]x[0, i, o]->[b, 0, f], strides = [2], lhs_dilation = [2] : tensor<1x4x1xf32>, tensor<3x1x1xf32> -> tensor<1x3x1xf32>
  %1 = hlo.convolution %x, %k, dims = [b, 0, f]x[0, i, o]->[b, 0, f], padding = [[2, 2]], lhs_dilation = [2], rhs_dilation = [2] : tensor<1x4x1xf32>, tensor<3x1x1xf32> -> tensor<1x7x1xf32>
  %2 = hlo.convolution %y, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], lhs_dilation = [5, 5] : tensor<1x4x4x1xf32>, tensor<1x1x1x1xf32> -> tensor<1x16x16x1xf32>
  %3 = hlo.convolution %y, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], strides = [2, 2] : tensor<1x4x4x1xf32>, tensor<1x1x1x1xf32> -> tensor<1x2x2x1xf32>
  return %0, %1, %2, %3 : tensor<1x3x1xf32>, tensor<1x7x1xf32>, tensor<1x16x16x1xf32>, tensor<1x2x2x1xf32>
}
