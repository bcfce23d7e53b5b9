// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-expand-float-conversions))' | FileCheck %s
// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-expand-float-conversions,cpu-expand-arith),convert-arith-to-llvm,convert-func-to-llvm)' | FileCheck %s --check-prefix=LLVM

// f64 -> bf16 goes through f32 rounded to odd: nearest f32, one step toward
// zero where that overshot, the last bit set where inexact; no f64 -> bf16
// truncation is left for LLVM to turn into __truncdfbf2.
// CHECK-LABEL: func.func @f64_to_bf16
// CHECK-SAME: (%[[X:.*]]: f64)
// CHECK: %[[NEAR:.*]] = arith.truncf %[[X]] : f64 to f32
// CHECK: %[[BACK:.*]] = arith.extf %[[NEAR]] : f32 to f64
// CHECK: %[[INEXACT:.*]] = arith.cmpf one, %[[BACK]], %[[X]] : f64
// CHECK: %[[OVER:.*]] = arith.cmpf ogt
// CHECK: %[[BITS:.*]] = arith.bitcast %[[NEAR]] : f32 to i32
// CHECK: %[[DOWN:.*]] = arith.subi %[[BITS]]
// CHECK: %[[TZ:.*]] = arith.select %[[OVER]], %[[DOWN]], %[[BITS]] : i32
// CHECK: %[[ODD:.*]] = arith.ori %[[TZ]]
// CHECK: %[[PICK:.*]] = arith.select %[[INEXACT]], %[[ODD]], %[[BITS]] : i32
// CHECK: %[[R:.*]] = arith.bitcast %[[PICK]] : i32 to f32
// CHECK: arith.truncf %[[R]] : f32 to bf16
// CHECK-NOT: f64 to bf16
// LLVM-LABEL: llvm.func @f64_to_bf16
// LLVM: llvm.fptrunc %{{.*}} : f64 to f32
// LLVM-NOT: f64 to bf16
// LLVM-NOT: llvm.fptrunc %{{.*}} : f32 to bf16
// LLVM: llvm.return
func.func @f64_to_bf16(%x: f64) -> bf16 {
  %0 = arith.truncf %x : f64 to bf16
  return %0 : bf16
}

// -----

// The same for f16 and for vectors.
// CHECK-LABEL: func.func @f64_to_f16_vector
// CHECK: arith.truncf %{{.*}} : vector<4xf64> to vector<4xf32>
// CHECK: arith.ori %{{.*}} : vector<4xi32>
// CHECK: arith.truncf %{{.*}} : vector<4xf32> to vector<4xf16>
func.func @f64_to_f16_vector(%x: vector<4xf64>) -> vector<4xf16> {
  %0 = arith.truncf %x : vector<4xf64> to vector<4xf16>
  return %0 : vector<4xf16>
}

// -----

// Extensions to f64 go through f32 (exact).
// CHECK-LABEL: func.func @bf16_to_f64
// CHECK: %[[F:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.extf %[[F]] : f32 to f64
func.func @bf16_to_f64(%x: bf16) -> f64 {
  %0 = arith.extf %x : bf16 to f64
  return %0 : f64
}

// -----

// Other conversions are left alone.
// CHECK-LABEL: func.func @f32_to_bf16_untouched
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: return
func.func @f32_to_bf16_untouched(%x: f32) -> bf16 {
  %0 = arith.truncf %x : f32 to bf16
  return %0 : bf16
}

// CHECK-LABEL: func.func @explicit_rounding_mode_untouched
// CHECK-NEXT: arith.truncf %{{.*}} to_nearest_away : f64 to bf16
func.func @explicit_rounding_mode_untouched(%x: f64) -> bf16 {
  %0 = arith.truncf %x to_nearest_away : f64 to bf16
  return %0 : bf16
}
