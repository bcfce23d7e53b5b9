// Round-trip of reduce_window and convolution, in the custom syntax and in
// the generic form. Window parameters print only where they differ from the
// default (strides 1, padding 0, dilations 1, groups 1).
// RUN: hlo-opt %s | hlo-opt | FileCheck %s
// RUN: hlo-opt %s --mlir-print-op-generic | hlo-opt | FileCheck %s

// CHECK-LABEL: func.func @reduce_window
func.func @reduce_window(%x: tensor<1x4x4x3xf32>, %i: tensor<7xi32>, %p: tensor<2x3xi1>, %u: tensor<5xui8>) -> (tensor<1x2x2x3xf32>, tensor<4xi32>, tensor<5xi32>, tensor<2x2xi1>, tensor<4xui8>) {
  // CHECK: hlo.reduce_window max %{{.*}}, window = [1, 2, 2, 1], strides = [1, 2, 2, 1], padding = {{\[}}[0, 0], [0, 1], [0, 1], [0, 0]] : tensor<1x4x4x3xf32> -> tensor<1x2x2x3xf32>
  %0 = hlo.reduce_window max %x, window = [1, 2, 2, 1], strides = [1, 2, 2, 1], padding = [[0, 0], [0, 1], [0, 1], [0, 0]] : tensor<1x4x4x3xf32> -> tensor<1x2x2x3xf32>
  // CHECK: hlo.reduce_window sum %{{.*}}, window = [4] : tensor<7xi32> -> tensor<4xi32>
  %1 = hlo.reduce_window sum %i, window = [4], strides = [1], padding = [[0, 0]] : tensor<7xi32> -> tensor<4xi32>
  // Clauses may come in any order.
  // CHECK: hlo.reduce_window prod %{{.*}}, window = [3], strides = [2], padding = {{\[}}[-1, 2]], base_dilations = [2], window_dilations = [2] : tensor<7xi32> -> tensor<5xi32>
  %2 = hlo.reduce_window prod %i, window = [3], window_dilations = [2], base_dilations = [2], padding = [[-1, 2]], strides = [2] : tensor<7xi32> -> tensor<5xi32>
  // CHECK: hlo.reduce_window or %{{.*}}, window = [1, 2] : tensor<2x3xi1> -> tensor<2x2xi1>
  %3 = hlo.reduce_window or %p, window = [1, 2] : tensor<2x3xi1> -> tensor<2x2xi1>
  // CHECK: hlo.reduce_window min %{{.*}}, window = [2] : tensor<5xui8> -> tensor<4xui8>
  %4 = hlo.reduce_window min %u, window = [2] : tensor<5xui8> -> tensor<4xui8>
  return %0, %1, %2, %3, %4 : tensor<1x2x2x3xf32>, tensor<4xi32>, tensor<5xi32>, tensor<2x2xi1>, tensor<4xui8>
}

// CHECK-LABEL: func.func @convolution
func.func @convolution(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x16xf32>, %n: tensor<2x4x9xf64>, %k: tensor<6x2x3xf64>, %v: tensor<1x2x4x4x4xi32>, %kv: tensor<3x2x2x2x2xi32>) -> (tensor<1x4x4x16xf32>, tensor<2x6x7xf64>, tensor<3x1x3x3x3xi32>) {
  // CHECK: hlo.convolution %{{.*}}, %{{.*}}, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], strides = [2, 2], padding = {{\[}}[1, 1], [1, 1]] : tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32> -> tensor<1x4x4x16xf32>
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], strides = [2, 2], padding = [[1, 1], [1, 1]] : tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32> -> tensor<1x4x4x16xf32>
  // CHECK: hlo.convolution %{{.*}}, %{{.*}}, dims = [b, f, 0]x[o, i, 0]->[b, f, 0], strides = [2], padding = {{\[}}[1, 1]], lhs_dilation = [2], rhs_dilation = [3], feature_group_count = 2 : tensor<2x4x9xf64>, tensor<6x2x3xf64> -> tensor<2x6x7xf64>
  %1 = hlo.convolution %n, %k, dims = [b, f, 0]x[o, i, 0]->[b, f, 0], strides = [2], padding = [[1, 1]], lhs_dilation = [2], rhs_dilation = [3], feature_group_count = 2 : tensor<2x4x9xf64>, tensor<6x2x3xf64> -> tensor<2x6x7xf64>
  // CHECK: hlo.convolution %{{.*}}, %{{.*}}, dims = [b, f, 2, 0, 1]x[o, i, 0, 1, 2]->[f, b, 1, 2, 0] : tensor<1x2x4x4x4xi32>, tensor<3x2x2x2x2xi32> -> tensor<3x1x3x3x3xi32>
  %2 = hlo.convolution %v, %kv, dims = [b, f, 2, 0, 1]x[o, i, 0, 1, 2]->[f, b, 1, 2, 0] : tensor<1x2x4x4x4xi32>, tensor<3x2x2x2x2xi32> -> tensor<3x1x3x3x3xi32>
  return %0, %1, %2 : tensor<1x4x4x16xf32>, tensor<2x6x7xf64>, tensor<3x1x3x3x3xi32>
}

// CHECK-LABEL: func.func @batch_groups
func.func @batch_groups(%x: tensor<4x5x5x3xf32>, %w: tensor<2x2x3x6xf32>) -> tensor<2x4x4x6xf32> {
  // CHECK: hlo.convolution %{{.*}}, %{{.*}}, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], batch_group_count = 2 : tensor<4x5x5x3xf32>, tensor<2x2x3x6xf32> -> tensor<2x4x4x6xf32>
  %0 = hlo.convolution %x, %w, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], batch_group_count = 2 : tensor<4x5x5x3xf32>, tensor<2x2x3x6xf32> -> tensor<2x4x4x6xf32>
  return %0 : tensor<2x4x4x6xf32>
}
