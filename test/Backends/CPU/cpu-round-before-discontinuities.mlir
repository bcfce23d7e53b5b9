// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-round-before-discontinuities))' | FileCheck %s
// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-round-before-discontinuities,canonicalize))' | FileCheck %s --check-prefix=FOLD

// The round trip feeding a comparison keeps its rounding; canonicalize can
// no longer fold it away, so the bf16 value is what gets compared.
// CHECK-LABEL: func.func @compare_sees_the_rounded_value
// CHECK: %[[T:.*]] = arith.truncf %{{.*}} fastmath<contract> : f32 to bf16
// CHECK: %[[E:.*]] = arith.extf %[[T]] : bf16 to f32
// CHECK: arith.cmpf ogt, %[[E]]
// FOLD-LABEL: func.func @compare_sees_the_rounded_value
// FOLD: arith.truncf
// FOLD: arith.extf
func.func @compare_sees_the_rounded_value(%x: f32, %best: f32) -> i1 {
  %y = math.exp %x : f32
  %t = arith.truncf %y fastmath<contract> : f32 to bf16
  %e = arith.extf %t fastmath<contract> : bf16 to f32
  %c = arith.cmpf ogt, %e, %best : f32
  return %c : i1
}

// -----

// Every round trip upstream of a floor keeps its rounding, not only the last:
// log then exp then floor is rounded after log and after exp.
// CHECK-LABEL: func.func @floor_sees_every_rounding_upstream
// CHECK: %[[T1:.*]] = arith.truncf
// CHECK: arith.extf %[[T1]] : bf16 to f32
// CHECK: %[[T2:.*]] = arith.truncf
// CHECK: arith.extf %[[T2]] : bf16 to f32
// CHECK: math.floor
func.func @floor_sees_every_rounding_upstream(%x: f32) -> f32 {
  %l = math.log %x : f32
  %t1 = arith.truncf %l fastmath<contract> : f32 to bf16
  %e1 = arith.extf %t1 fastmath<contract> : bf16 to f32
  %y = math.exp %e1 : f32
  %t2 = arith.truncf %y fastmath<contract> : f32 to bf16
  %e2 = arith.extf %t2 fastmath<contract> : bf16 to f32
  %f = math.floor %e2 : f32
  return %f : f32
}

// -----

// A chain that ends in a value, not a discontinuity, keeps `contract`, and
// canonicalize folds the round trip (excess precision, as before).
// CHECK-LABEL: func.func @continuous_chain_is_left_alone
// CHECK: arith.extf %{{.*}} fastmath<contract> : bf16 to f32
// FOLD-LABEL: func.func @continuous_chain_is_left_alone
// FOLD-NOT: arith.extf
// FOLD: math.exp %{{.*}} : f32
// FOLD-NEXT: return
func.func @continuous_chain_is_left_alone(%x: f32) -> f32 {
  %l = math.log %x : f32
  %t = arith.truncf %l fastmath<contract> : f32 to bf16
  %e = arith.extf %t fastmath<contract> : bf16 to f32
  %y = math.exp %e : f32
  return %y : f32
}

// -----

// Vectors and conversions to integers are covered the same way; an extf of
// a value that was never truncated is not a round trip and is left as is.
// CHECK-LABEL: func.func @vector_to_integer
// CHECK: %[[T:.*]] = arith.truncf %{{.*}} fastmath<contract> : vector<4xf32> to vector<4xf16>
// CHECK: %[[E:.*]] = arith.extf %[[T]] : vector<4xf16> to vector<4xf32>
// CHECK: arith.extf %{{.*}} fastmath<contract> : vector<4xf16> to vector<4xf32>
// CHECK: arith.fptosi
func.func @vector_to_integer(%x: vector<4xf32>, %h: vector<4xf16>) -> vector<4xi32> {
  %t = arith.truncf %x fastmath<contract> : vector<4xf32> to vector<4xf16>
  %e = arith.extf %t fastmath<contract> : vector<4xf16> to vector<4xf32>
  %g = arith.extf %h fastmath<contract> : vector<4xf16> to vector<4xf32>
  %s = arith.addf %e, %g : vector<4xf32>
  %i = arith.fptosi %s : vector<4xf32> to vector<4xi32>
  return %i : vector<4xi32>
}
