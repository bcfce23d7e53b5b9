// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// The barrier is not lowered: it stays between the linalg ops, on the
// converted (signless) types, so fusion and CSE after it cannot see through.
// CHECK-LABEL: func.func @kept
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<i32>)
// CHECK: %[[R:.*]]:2 = hlo.optimization_barrier %[[A]], %[[B]] : tensor<4xf32>, tensor<i32>
// CHECK: linalg.generic {{.*}} ins(%[[R]]#0 : tensor<4xf32>)
// CHECK: math.sin
// CHECK: return %{{.*}}, %[[R]]#1
func.func @kept(%a: tensor<4xf32>, %b: tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
  %r:2 = hlo.optimization_barrier %a, %b : tensor<4xf32>, tensor<i32>
  %s = hlo.sin %r#0 : tensor<4xf32>
  return %s, %r#1 : tensor<4xf32>, tensor<i32>
}

// -----

// CHECK-LABEL: func.func @unsigned_becomes_signless
// CHECK-SAME: (%[[A:.*]]: tensor<3xi8>) -> tensor<3xi8>
// CHECK: %[[R:.*]] = hlo.optimization_barrier %[[A]] : tensor<3xi8>
// CHECK: return %[[R]] : tensor<3xi8>
func.func @unsigned_becomes_signless(%a: tensor<3xui8>) -> tensor<3xui8> {
  %r = hlo.optimization_barrier %a : tensor<3xui8>
  return %r : tensor<3xui8>
}

// -----

// Inside a lowered loop body too.
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.while
// CHECK: hlo.optimization_barrier %{{.*}} : tensor<4xf32>
// CHECK: scf.yield
func.func @in_loop(%n: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = hlo.constant dense<0> : tensor<i32>
  %one = hlo.constant dense<1> : tensor<i32>
  %r:2 = hlo.while (%i = %zero, %v = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %c = hlo.compare LT, %i, %n : tensor<i32> -> tensor<i1>
    hlo.return %c : tensor<i1>
  } do {
    %i1 = hlo.add %i, %one : tensor<i32>
    %b = hlo.optimization_barrier %v : tensor<4xf32>
    %v1 = hlo.multiply %b, %b : tensor<4xf32>
    hlo.return %i1, %v1 : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
