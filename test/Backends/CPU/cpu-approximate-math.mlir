// RUN: hlo-opt %s --cpu-approximate-math | FileCheck %s

// f32 exp and tanh become arithmetic; f64 keeps the library call, and so do
// sin and cos.
// CHECK-LABEL: func.func @f32_becomes_polynomial
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: return
func.func @f32_becomes_polynomial(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  %1 = math.tanh %0 : f32
  return %1 : f32
}

// CHECK-LABEL: func.func @f64_and_trig_are_kept
// CHECK: math.exp %{{.*}} : f64
// CHECK: math.sin %{{.*}} : f32
func.func @f64_and_trig_are_kept(%x: f64, %y: f32) -> (f64, f32) {
  %0 = math.exp %x : f64
  %1 = math.sin %y : f32
  return %0, %1 : f64, f32
}
