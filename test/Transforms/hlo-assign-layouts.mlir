// Image-layout (NHWC) convolutions read an HWIO copy of a kernel stored in
// any other order; convolutions in other layouts are left alone.
// RUN: hlo-opt %s --pass-pipeline='builtin.module(func.func(hlo-assign-layouts),cse)' --split-input-file | FileCheck %s

// A transposed convolution's HWOI kernel.
// CHECK-LABEL: func.func @hwoi_kernel_is_transposed
// CHECK-SAME: (%[[X:.*]]: tensor<8x7x7x64xf32>, %[[K:.*]]: tensor<5x5x32x64xf32>)
func.func @hwoi_kernel_is_transposed(%x: tensor<8x7x7x64xf32>, %k: tensor<5x5x32x64xf32>) -> tensor<8x2x2x32xf32> {
  // CHECK: %[[T:.*]] = hlo.transpose %[[K]], dims = [0, 1, 3, 2] : tensor<5x5x32x64xf32> -> tensor<5x5x64x32xf32>
  // CHECK: %[[C:.*]] = hlo.convolution %[[X]], %[[T]], dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], strides = [2, 2] : tensor<8x7x7x64xf32>, tensor<5x5x64x32xf32> -> tensor<8x2x2x32xf32>
  // CHECK: return %[[C]]
  %0 = hlo.convolution %x, %k, dims = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], strides = [2, 2] : tensor<8x7x7x64xf32>, tensor<5x5x32x64xf32> -> tensor<8x2x2x32xf32>
  return %0 : tensor<8x2x2x32xf32>
}

// -----

// PyTorch's OIHW kernel, with padding, dilation and feature groups kept.
// CHECK-LABEL: func.func @oihw_kernel_is_transposed
// CHECK-SAME: (%[[X:.*]]: tensor<2x9x9x4xf64>, %[[K:.*]]: tensor<6x2x3x3xf64>)
func.func @oihw_kernel_is_transposed(%x: tensor<2x9x9x4xf64>, %k: tensor<6x2x3x3xf64>) -> tensor<2x9x9x6xf64> {
  // CHECK: %[[T:.*]] = hlo.transpose %[[K]], dims = [2, 3, 1, 0] : tensor<6x2x3x3xf64> -> tensor<3x3x2x6xf64>
  // CHECK: hlo.convolution %[[X]], %[[T]], dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], padding = {{\[}}[2, 2], [2, 2]], rhs_dilation = [2, 2], feature_group_count = 2 : tensor<2x9x9x4xf64>, tensor<3x3x2x6xf64> -> tensor<2x9x9x6xf64>
  %0 = hlo.convolution %x, %k, dims = [b, 0, 1, f]x[o, i, 0, 1]->[b, 0, 1, f], padding = [[2, 2], [2, 2]], rhs_dilation = [2, 2], feature_group_count = 2 : tensor<2x9x9x4xf64>, tensor<6x2x3x3xf64> -> tensor<2x9x9x6xf64>
  return %0 : tensor<2x9x9x6xf64>
}

// -----

// Kernel spatial dimensions stored out of order are put in the order of the
// input's spatial dimensions.
// CHECK-LABEL: func.func @swapped_kernel_spatial_dimensions
func.func @swapped_kernel_spatial_dimensions(%x: tensor<1x6x8x3xf32>, %k: tensor<2x3x3x5xf32>) -> tensor<1x4x7x5xf32> {
  // CHECK: hlo.transpose %{{.*}}, dims = [1, 0, 2, 3] : tensor<2x3x3x5xf32> -> tensor<3x2x3x5xf32>
  // CHECK: hlo.convolution {{.*}} dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] : tensor<1x6x8x3xf32>, tensor<3x2x3x5xf32> -> tensor<1x4x7x5xf32>
  %0 = hlo.convolution %x, %k, dims = [b, 0, 1, f]x[1, 0, i, o]->[b, 0, 1, f] : tensor<1x6x8x3xf32>, tensor<2x3x3x5xf32> -> tensor<1x4x7x5xf32>
  return %0 : tensor<1x4x7x5xf32>
}

// -----

// One and three spatial dimensions.
// CHECK-LABEL: func.func @one_and_three_spatial_dimensions
func.func @one_and_three_spatial_dimensions(%x: tensor<2x10x4xf32>, %k: tensor<3x6x4xf32>, %v: tensor<1x5x5x5x2xi32>, %kv: tensor<3x2x2x2x2xi32>) -> (tensor<2x8x6xf32>, tensor<1x4x4x4x3xi32>) {
  // CHECK: hlo.transpose %{{.*}}, dims = [0, 2, 1] : tensor<3x6x4xf32> -> tensor<3x4x6xf32>
  // CHECK: hlo.convolution {{.*}} dims = [b, 0, f]x[0, i, o]->[b, 0, f] : tensor<2x10x4xf32>, tensor<3x4x6xf32> -> tensor<2x8x6xf32>
  // CHECK: hlo.transpose %{{.*}}, dims = [2, 3, 4, 1, 0] : tensor<3x2x2x2x2xi32> -> tensor<2x2x2x2x3xi32>
  // CHECK: hlo.convolution {{.*}} dims = [b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f] : tensor<1x5x5x5x2xi32>, tensor<2x2x2x2x3xi32> -> tensor<1x4x4x4x3xi32>
  %0 = hlo.convolution %x, %k, dims = [b, 0, f]x[0, o, i]->[b, 0, f] : tensor<2x10x4xf32>, tensor<3x6x4xf32> -> tensor<2x8x6xf32>
  %1 = hlo.convolution %v, %kv, dims = [b, 0, 1, 2, f]x[o, i, 0, 1, 2]->[b, 0, 1, 2, f] : tensor<1x5x5x5x2xi32>, tensor<3x2x2x2x2xi32> -> tensor<1x4x4x4x3xi32>
  return %0, %1 : tensor<2x8x6xf32>, tensor<1x4x4x4x3xi32>
}

// -----

// An HWIO kernel needs no copy.
// CHECK-LABEL: func.func @hwio_kernel_is_kept
func.func @hwio_kernel_is_kept(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // CHECK-NOT: hlo.transpose
  // CHECK: hlo.convolution %{{.*}}, %{{.*}}, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] : tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// A kernel gradient reads its input with batch and features exchanged (and
// NCHW convolutions are not image-layout): both keep their layouts.
// CHECK-LABEL: func.func @other_layouts_are_kept
func.func @other_layouts_are_kept(%x: tensor<8x7x7x3xf32>, %g: tensor<8x5x5x6xf32>, %n: tensor<2x4x9x9xf32>, %k: tensor<6x4x3x3xf32>) -> (tensor<3x3x3x6xf32>, tensor<2x6x7x7xf32>) {
  // CHECK-NOT: hlo.transpose
  // CHECK: hlo.convolution %{{.*}}, %{{.*}}, dims = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f]
  // CHECK: hlo.convolution %{{.*}}, %{{.*}}, dims = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]
  %0 = hlo.convolution %x, %g, dims = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f] : tensor<8x7x7x3xf32>, tensor<8x5x5x6xf32> -> tensor<3x3x3x6xf32>
  %1 = hlo.convolution %n, %k, dims = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1] : tensor<2x4x9x9xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x7x7xf32>
  return %0, %1 : tensor<3x3x3x6xf32>, tensor<2x6x7x7xf32>
}

// -----

// Two convolutions that read one kernel share its transposed copy.
// CHECK-LABEL: func.func @shared_kernel_is_transposed_once
func.func @shared_kernel_is_transposed_once(%x: tensor<1x8x8x4xf32>, %y: tensor<2x5x5x4xf32>, %k: tensor<3x3x6x4xf32>) -> (tensor<1x6x6x6xf32>, tensor<2x3x3x6xf32>) {
  // CHECK: %[[T:.*]] = hlo.transpose
  // CHECK-NOT: hlo.transpose
  // CHECK: hlo.convolution %{{.*}}, %[[T]]
  // CHECK: hlo.convolution %{{.*}}, %[[T]]
  %0 = hlo.convolution %x, %k, dims = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f] : tensor<1x8x8x4xf32>, tensor<3x3x6x4xf32> -> tensor<1x6x6x6xf32>
  %1 = hlo.convolution %y, %k, dims = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f] : tensor<2x5x5x4xf32>, tensor<3x3x6x4xf32> -> tensor<2x3x3x6xf32>
  return %0, %1 : tensor<1x6x6x6xf32>, tensor<2x3x3x6xf32>
}

// -----

// An "NT" product (a layer's input gradient g @ w^T): the rhs is read along
// its last dimension, which is a contracting one, so it is transposed to
// [K, N] first and contracted on its dimension 0; the result is unchanged.
// CHECK-LABEL: func.func @nt_dot_reads_a_transposed_rhs
// CHECK-SAME: (%[[G:.*]]: tensor<256x512xf32>, %[[W:.*]]: tensor<784x512xf32>)
func.func @nt_dot_reads_a_transposed_rhs(%g: tensor<256x512xf32>, %w: tensor<784x512xf32>) -> tensor<256x784xf32> {
  // CHECK: %[[T:.*]] = hlo.transpose %[[W]], dims = [1, 0] : tensor<784x512xf32> -> tensor<512x784xf32>
  // CHECK: %[[D:.*]] = hlo.dot_general %[[G]], %[[T]], batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<256x512xf32>, tensor<512x784xf32> -> tensor<256x784xf32>
  // CHECK: return %[[D]]
  %0 = hlo.dot_general %g, %w, batch_dims = [] x [], contracting_dims = [1] x [1] : tensor<256x512xf32>, tensor<784x512xf32> -> tensor<256x784xf32>
  return %0 : tensor<256x784xf32>
}

// -----

// Batched, with two contracting dimensions in the rhs's minor positions
// (paired with the lhs's in the order given): batch stays first, then the
// contracting dimensions in that order, then the free one.
// CHECK-LABEL: func.func @batched_nt_dot
func.func @batched_nt_dot(%a: tensor<4x32x3x5xf64>, %b: tensor<4x20x5x3xf64>) -> tensor<4x32x20xf64> {
  // CHECK: %[[T:.*]] = hlo.transpose %{{.*}}, dims = [0, 3, 2, 1] : tensor<4x20x5x3xf64> -> tensor<4x3x5x20xf64>
  // CHECK: hlo.dot_general %{{.*}}, %[[T]], batch_dims = [0] x [0], contracting_dims = [2, 3] x [1, 2] : tensor<4x32x3x5xf64>, tensor<4x3x5x20xf64> -> tensor<4x32x20xf64>
  %0 = hlo.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [2, 3] x [3, 2] : tensor<4x32x3x5xf64>, tensor<4x20x5x3xf64> -> tensor<4x32x20xf64>
  return %0 : tensor<4x32x20xf64>
}

// -----

// Left alone: a rhs already [K, N]; a matrix-vector product (one lhs row:
// dot products of contiguous rows); a narrow result (10 columns, fewer than
// the 16 that make the transpose pay); integers (no vector kernel).
// CHECK-LABEL: func.func @dots_kept
// CHECK-NOT: hlo.transpose
// CHECK: return
func.func @dots_kept(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %v: tensor<1x32xf32>,
                     %w: tensor<64x32xf32>, %n: tensor<10x32xf32>, %i: tensor<64x32xi32>)
    -> (tensor<64x64xf32>, tensor<1x64xf32>, tensor<64x10xf32>, tensor<64x64xi32>) {
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  %1 = hlo.dot_general %v, %w, batch_dims = [] x [], contracting_dims = [1] x [1] : tensor<1x32xf32>, tensor<64x32xf32> -> tensor<1x64xf32>
  %2 = hlo.dot_general %a, %n, batch_dims = [] x [], contracting_dims = [1] x [1] : tensor<64x32xf32>, tensor<10x32xf32> -> tensor<64x10xf32>
  %3 = hlo.dot_general %i, %i, batch_dims = [] x [], contracting_dims = [1] x [1] : tensor<64x32xi32>, tensor<64x32xi32> -> tensor<64x64xi32>
  return %0, %1, %2, %3 : tensor<64x64xf32>, tensor<1x64xf32>, tensor<64x10xf32>, tensor<64x64xi32>
}
