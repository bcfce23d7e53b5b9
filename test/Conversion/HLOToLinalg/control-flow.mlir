// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// hlo.while is scf.while on tensors; cond's tensor<i1> is extracted for
// scf.condition, which forwards the carried values to the body.
// CHECK-LABEL: func.func @while_loop
// CHECK-SAME: (%[[N:.*]]: tensor<i32>, %[[X:.*]]: tensor<4xf32>)
// CHECK: %[[R:.*]]:2 = scf.while (%[[I:.*]] = %{{.*}}, %[[V:.*]] = %[[X]]) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
// CHECK:   %[[C:.*]] = linalg.generic
// CHECK:   %[[P:.*]] = tensor.extract %[[C]][] : tensor<i1>
// CHECK:   scf.condition(%[[P]]) %[[I]], %[[V]] : tensor<i32>, tensor<4xf32>
// CHECK: } do {
// CHECK: ^bb0(%[[BI:.*]]: tensor<i32>, %[[BV:.*]]: tensor<4xf32>):
// CHECK:   %[[I1:.*]] = linalg.generic {{.*}} ins(%[[BI]], %{{.*}} : tensor<i32>, tensor<i32>)
// CHECK:   %[[V1:.*]] = linalg.generic {{.*}} ins(%[[BV]], %[[BV]] : tensor<4xf32>, tensor<4xf32>)
// CHECK:   scf.yield %[[I1]], %[[V1]] : tensor<i32>, tensor<4xf32>
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @while_loop(%n: tensor<i32>, %x: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
  %zero = hlo.constant dense<0> : tensor<i32>
  %one = hlo.constant dense<1> : tensor<i32>
  %r:2 = hlo.while (%i = %zero, %v = %x) : tensor<i32>, tensor<4xf32> cond {
    %c = hlo.compare LT, %i, %n : tensor<i32> -> tensor<i1>
    hlo.return %c : tensor<i1>
  } do {
    %i1 = hlo.add %i, %one : tensor<i32>
    %v1 = hlo.add %v, %v : tensor<4xf32>
    hlo.return %i1, %v1 : tensor<i32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<4xf32>
}

// -----

// Unsigned carried values become signless in both regions; the compare
// stays unsigned.
// CHECK-LABEL: func.func @while_unsigned
// CHECK-SAME: (%[[X:.*]]: tensor<i32>) -> tensor<i32>
// CHECK: scf.while (%[[A:.*]] = %[[X]]) : (tensor<i32>) -> tensor<i32>
// CHECK:   arith.cmpi ugt
// CHECK:   scf.condition(%{{.*}}) %[[A]] : tensor<i32>
// CHECK: } do {
// CHECK: ^bb0(%{{.*}}: tensor<i32>):
// CHECK:   arith.divui
// CHECK:   scf.yield %{{.*}} : tensor<i32>
func.func @while_unsigned(%x: tensor<ui32>) -> tensor<ui32> {
  %one = hlo.constant dense<1> : tensor<ui32>
  %two = hlo.constant dense<2> : tensor<ui32>
  %r = hlo.while (%v = %x) : tensor<ui32> cond {
    %c = hlo.compare GT, %v, %one : tensor<ui32> -> tensor<i1>
    hlo.return %c : tensor<i1>
  } do {
    %h = hlo.divide %v, %two : tensor<ui32>
    hlo.return %h : tensor<ui32>
  }
  return %r : tensor<ui32>
}

// -----

// CHECK-LABEL: func.func @if_else
// CHECK-SAME: (%[[P:.*]]: tensor<i1>, %[[A:.*]]: tensor<4xf32>)
// CHECK: %[[B:.*]] = tensor.extract %[[P]][] : tensor<i1>
// CHECK: %[[R:.*]] = scf.if %[[B]] -> (tensor<4xf32>) {
// CHECK:   scf.yield %[[A]] : tensor<4xf32>
// CHECK: } else {
// CHECK:   %[[N:.*]] = linalg.generic
// CHECK:   arith.negf
// CHECK:   scf.yield %[[N]] : tensor<4xf32>
// CHECK: }
// CHECK: return %[[R]]
func.func @if_else(%p: tensor<i1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %r = hlo.if %p -> (tensor<4xf32>) {
    hlo.return %a : tensor<4xf32>
  } else {
    %n = hlo.negate %a : tensor<4xf32>
    hlo.return %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Branch i runs when the index equals i, the last branch otherwise: any other
// index, negative ones included, runs it.
// CHECK-LABEL: func.func @case_three_branches
// CHECK-SAME: (%[[I:.*]]: tensor<i32>, %[[X:.*]]: tensor<f32>)
// CHECK: %[[E:.*]] = tensor.extract %[[I]][] : tensor<i32>
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[IS0:.*]] = arith.cmpi eq, %[[E]], %[[C0]] : i32
// CHECK: %[[R:.*]] = scf.if %[[IS0]] -> (tensor<f32>) {
// CHECK:   scf.yield %[[X]] : tensor<f32>
// CHECK: } else {
// CHECK:   %[[C1:.*]] = arith.constant 1 : i32
// CHECK:   %[[IS1:.*]] = arith.cmpi eq, %[[E]], %[[C1]] : i32
// CHECK:   %[[INNER:.*]] = scf.if %[[IS1]] -> (tensor<f32>) {
// CHECK:     arith.negf
// CHECK:   } else {
// CHECK:     math.exp
// CHECK:   }
// CHECK:   scf.yield %[[INNER]] : tensor<f32>
// CHECK: }
// CHECK: return %[[R]]
func.func @case_three_branches(%i: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  %r = hlo.case %i -> (tensor<f32>) {
    hlo.return %x : tensor<f32>
  }, {
    %n = hlo.negate %x : tensor<f32>
    hlo.return %n : tensor<f32>
  }, {
    %e = hlo.exp %x : tensor<f32>
    hlo.return %e : tensor<f32>
  }
  return %r : tensor<f32>
}
