// Round-trip of the bit ops, bitcast_convert, clamp, the extra float math,
// arg_reduce and cumulative, in the custom syntax and in the generic form.
// RUN: hlo-opt %s | hlo-opt | FileCheck %s
// RUN: hlo-opt %s --mlir-print-op-generic | hlo-opt | FileCheck %s

// CHECK-LABEL: func.func @bit_ops
func.func @bit_ops(%a: tensor<4xi32>, %b: tensor<4xi32>, %u: tensor<2xui8>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<2xui8>, tensor<2xui8>) {
  // CHECK: hlo.shift_left %{{.*}}, %{{.*}} : tensor<4xi32>
  %0 = hlo.shift_left %a, %b : tensor<4xi32>
  // CHECK: hlo.shift_right_logical %{{.*}}, %{{.*}} : tensor<4xi32>
  %1 = hlo.shift_right_logical %a, %b : tensor<4xi32>
  // CHECK: hlo.shift_right_arithmetic %{{.*}}, %{{.*}} : tensor<4xi32>
  %2 = hlo.shift_right_arithmetic %a, %b : tensor<4xi32>
  // CHECK: hlo.popcnt %{{.*}} : tensor<2xui8>
  %3 = hlo.popcnt %u : tensor<2xui8>
  // CHECK: hlo.count_leading_zeros %{{.*}} : tensor<2xui8>
  %4 = hlo.count_leading_zeros %u : tensor<2xui8>
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<2xui8>, tensor<2xui8>
}

// CHECK-LABEL: func.func @bitcast_and_clamp
func.func @bitcast_and_clamp(%x: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<4xf32>) -> (tensor<4xui32>, tensor<4xf32>) {
  // CHECK: hlo.bitcast_convert %{{.*}} : tensor<4xf32> -> tensor<4xui32>
  %0 = hlo.bitcast_convert %x : tensor<4xf32> -> tensor<4xui32>
  // CHECK: hlo.clamp %{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<4xf32>, tensor<4xf32>
  %1 = hlo.clamp %lo, %x, %hi : tensor<f32>, tensor<4xf32>, tensor<4xf32>
  return %0, %1 : tensor<4xui32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @float_math
func.func @float_math(%x: tensor<4xbf16>, %y: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xi1>) {
  // CHECK: hlo.log_plus_one
  // CHECK: hlo.exponential_minus_one
  // CHECK: hlo.tan
  // CHECK: hlo.asin
  // CHECK: hlo.acos
  // CHECK: hlo.atan
  // CHECK: hlo.sinh
  // CHECK: hlo.cosh
  // CHECK: hlo.asinh
  // CHECK: hlo.acosh
  // CHECK: hlo.atanh
  // CHECK: hlo.erf
  // CHECK: hlo.erf_inv
  // CHECK: hlo.cbrt
  // CHECK: hlo.round_nearest_even
  // CHECK: hlo.round_nearest_afz
  // CHECK: hlo.lgamma
  // CHECK: hlo.digamma
  // CHECK: hlo.atan2 %{{.*}}, %{{.*}} : tensor<4xbf16>
  // CHECK: hlo.next_after %{{.*}}, %{{.*}} : tensor<4xbf16>
  // CHECK: hlo.is_finite %{{.*}} : tensor<4xbf16> -> tensor<4xi1>
  %0 = hlo.log_plus_one %x : tensor<4xbf16>
  %1 = hlo.exponential_minus_one %0 : tensor<4xbf16>
  %2 = hlo.tan %1 : tensor<4xbf16>
  %3 = hlo.asin %2 : tensor<4xbf16>
  %4 = hlo.acos %3 : tensor<4xbf16>
  %5 = hlo.atan %4 : tensor<4xbf16>
  %6 = hlo.sinh %5 : tensor<4xbf16>
  %7 = hlo.cosh %6 : tensor<4xbf16>
  %8 = hlo.asinh %7 : tensor<4xbf16>
  %9 = hlo.acosh %8 : tensor<4xbf16>
  %10 = hlo.atanh %9 : tensor<4xbf16>
  %11 = hlo.erf %10 : tensor<4xbf16>
  %12 = hlo.erf_inv %11 : tensor<4xbf16>
  %13 = hlo.cbrt %12 : tensor<4xbf16>
  %14 = hlo.round_nearest_even %13 : tensor<4xbf16>
  %15 = hlo.round_nearest_afz %14 : tensor<4xbf16>
  %16 = hlo.lgamma %15 : tensor<4xbf16>
  %17 = hlo.digamma %16 : tensor<4xbf16>
  %18 = hlo.atan2 %17, %y : tensor<4xbf16>
  %19 = hlo.next_after %18, %y : tensor<4xbf16>
  %20 = hlo.is_finite %19 : tensor<4xbf16> -> tensor<4xi1>
  return %19, %20 : tensor<4xbf16>, tensor<4xi1>
}

// CHECK-LABEL: func.func @scans
func.func @scans(%x: tensor<4x3xf32>, %p: tensor<5xi1>) -> (tensor<4xi32>, tensor<3xi64>, tensor<4x3xf32>, tensor<5xi1>) {
  // CHECK: hlo.arg_reduce max %{{.*}}, dim = 1 : tensor<4x3xf32> -> tensor<4xi32>
  %0 = hlo.arg_reduce max %x, dim = 1 : tensor<4x3xf32> -> tensor<4xi32>
  // CHECK: hlo.arg_reduce min %{{.*}}, dim = 0 : tensor<4x3xf32> -> tensor<3xi64>
  %1 = hlo.arg_reduce min %x, dim = 0 : tensor<4x3xf32> -> tensor<3xi64>
  // CHECK: hlo.cumulative sum %{{.*}}, dim = 0, reverse = false : tensor<4x3xf32>
  %2 = hlo.cumulative sum %x, dim = 0, reverse = false : tensor<4x3xf32>
  // CHECK: hlo.cumulative max %{{.*}}, dim = 0, reverse = true : tensor<5xi1>
  %3 = hlo.cumulative max %p, dim = 0, reverse = true : tensor<5xi1>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<3xi64>, tensor<4x3xf32>, tensor<5xi1>
}
