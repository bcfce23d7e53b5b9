// RUN: hlo-opt %s | hlo-opt | FileCheck %s
// Window and padding parameters near the int64 limits whose sum still fits
// are valid: the verifier adds low and high padding before the dimension,
// so a huge low padding cancelled by a huge negative high one is accepted.

// CHECK-LABEL: func.func @cancelling_paddings
// CHECK: hlo.pad %{{.*}}, low = [9223372036854775807], high = [-9223372036854775806], interior = [0]
// CHECK: hlo.pad %{{.*}}, low = [0, 0], high = [0, 0], interior = [9223372036854775807, 0]
// CHECK: hlo.reduce_window sum %{{.*}}, window = [2, 1], padding = {{\[}}[9223372036854775807, -9223372036854775806], [0, 0]]
// CHECK: hlo.convolution %{{.*}}, padding = {{\[}}[-9223372036854775808, 9223372036854775807]]
func.func @cancelling_paddings(%x: tensor<4xf32>, %y: tensor<1x3xf32>, %z: tensor<4x6xf32>, %v: tensor<f32>,
                               %c: tensor<1x1x8xf32>, %w: tensor<1x1x3xf32>) -> (tensor<5xf32>, tensor<1x3xf32>, tensor<4x6xf32>, tensor<1x1x5xf32>) {
  %0 = hlo.pad %x, %v, low = [9223372036854775807], high = [-9223372036854775806], interior = [0] : tensor<4xf32>, tensor<f32> -> tensor<5xf32>
  %1 = hlo.pad %y, %v, low = [0, 0], high = [0, 0], interior = [9223372036854775807, 0] : tensor<1x3xf32>, tensor<f32> -> tensor<1x3xf32>
  %2 = hlo.reduce_window sum %z, window = [2, 1], padding = [[9223372036854775807, -9223372036854775806], [0, 0]] : tensor<4x6xf32> -> tensor<4x6xf32>
  %3 = hlo.convolution %c, %w, dims = [b, f, 0]x[i, o, 0]->[b, f, 0], padding = [[-9223372036854775808, 9223372036854775807]] : tensor<1x1x8xf32>, tensor<1x1x3xf32> -> tensor<1x1x5xf32>
  return %0, %1, %2, %3 : tensor<5xf32>, tensor<1x3xf32>, tensor<4x6xf32>, tensor<1x1x5xf32>
}
