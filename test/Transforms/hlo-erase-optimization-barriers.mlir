// RUN: hlo-opt %s --hlo-erase-optimization-barriers --split-input-file | FileCheck %s

// Uses of the results read the operands; nothing else changes.
// CHECK-LABEL: func.func @erased
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<i32>)
// CHECK-NOT: hlo.optimization_barrier
// CHECK: %[[S:.*]] = math.sin %[[A]] : tensor<4xf32>
// CHECK: return %[[S]], %[[B]]
func.func @erased(%a: tensor<4xf32>, %b: tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
  %r:2 = hlo.optimization_barrier %a, %b : tensor<4xf32>, tensor<i32>
  %s = math.sin %r#0 : tensor<4xf32>
  return %s, %r#1 : tensor<4xf32>, tensor<i32>
}

// -----

// The pass erases, it does not merge: the recomputation on the barrier's
// result and the computation on its operand both stay.
// CHECK-LABEL: func.func @recomputation_stays
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>)
// CHECK: %[[S0:.*]] = math.sin %[[A]]
// CHECK: %[[S1:.*]] = math.sin %[[A]]
// CHECK: return %[[S0]], %[[S1]]
func.func @recomputation_stays(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s0 = math.sin %a : tensor<4xf32>
  %r = hlo.optimization_barrier %a : tensor<4xf32>
  %s1 = math.sin %r : tensor<4xf32>
  return %s0, %s1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Nested regions and barriers without operands.
// CHECK-LABEL: func.func @nested
// CHECK-NOT: hlo.optimization_barrier
// CHECK: scf.if
// CHECK: scf.yield %arg1
func.func @nested(%p: i1, %a: tensor<4xf32>) -> tensor<4xf32> {
  hlo.optimization_barrier()
  %r = scf.if %p -> tensor<4xf32> {
    %b = hlo.optimization_barrier %a : tensor<4xf32>
    scf.yield %b : tensor<4xf32>
  } else {
    scf.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
