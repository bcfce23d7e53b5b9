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

// The f32 polynomial for erf loses the sign of -0 and of tiny negative
// arguments: its value takes the argument's sign (erf is odd). f64's
// library erf keeps its own.
// CHECK-LABEL: func.func @erf_keeps_the_sign_of_its_argument
// CHECK-SAME: (%[[X:[^:]*]]: f32, %[[V:[^:]*]]: vector<8xf32>, %[[D:[^:]*]]: f64)
// CHECK-NOT: math.erf {{.*}} : f32
// CHECK: %[[S:.*]] = math.copysign %{{.*}}, %[[X]] : f32
// CHECK: %[[SV:.*]] = math.copysign %{{.*}}, %[[V]] : vector<8xf32>
// CHECK: %[[E:.*]] = math.erf %[[D]] : f64
// CHECK-NOT: math.copysign
// CHECK: return %[[S]], %[[SV]], %[[E]]
func.func @erf_keeps_the_sign_of_its_argument(%x: f32, %v: vector<8xf32>, %d: f64)
    -> (f32, vector<8xf32>, f64) {
  %0 = math.erf %x : f32
  %1 = math.erf %v : vector<8xf32>
  %2 = math.erf %d : f64
  return %0, %1, %2 : f32, vector<8xf32>, f64
}

// The f32 exp and expm1 polynomials convert to an integer exponent, which is
// poison for a NaN: they see 0 instead, and a NaN argument is selected back.
// CHECK-LABEL: func.func @exp_keeps_nan_out_of_the_polynomial
// CHECK-SAME: (%[[X:[^:]*]]: f32, %[[V:[^:]*]]: vector<4xf32>)
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: arith.select %[[NAN]], %{{.*}}, %[[X]] : f32
// CHECK-NOT: math.exp
// CHECK: %[[R:.*]] = arith.select %[[NAN]], %[[X]], %{{.*}} : f32
// CHECK: %[[VNAN:.*]] = arith.cmpf uno, %[[V]], %[[V]] : vector<4xf32>
// CHECK-NOT: math.expm1
// CHECK: %[[RV:.*]] = arith.select %[[VNAN]], %[[V]], %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK: return %[[R]], %[[RV]]
func.func @exp_keeps_nan_out_of_the_polynomial(%x: f32, %v: vector<4xf32>)
    -> (f32, vector<4xf32>) {
  %0 = math.exp %x : f32
  %1 = math.expm1 %v : vector<4xf32>
  return %0, %1 : f32, vector<4xf32>
}
