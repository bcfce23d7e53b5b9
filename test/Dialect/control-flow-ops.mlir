// Round trip of hlo.while, hlo.if, hlo.case and hlo.return.
// RUN: hlo-opt %s -split-input-file | hlo-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @while_loop
// CHECK-SAME: (%[[N:.*]]: tensor<i32>, %[[X:.*]]: tensor<4xf32>)
// CHECK: %[[R:.*]]:2 = hlo.while (%[[I:.*]] = %{{.*}}, %[[V:.*]] = %[[X]]) : tensor<i32>, tensor<4xf32> cond {
// CHECK:   %[[C:.*]] = hlo.compare LT, %[[I]], %[[N]]
// CHECK:   hlo.return %[[C]] : tensor<i1>
// CHECK: } do {
// CHECK:   %[[V1:.*]] = hlo.add %[[V]], %[[V]]
// CHECK:   hlo.return %{{.*}}, %[[V1]] : tensor<i32>, tensor<4xf32>
// CHECK: }
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

// CHECK-LABEL: func.func @while_no_carried_values
// CHECK: hlo.while () cond {
// CHECK: } do {
// CHECK-NEXT: hlo.return{{$}}
func.func @while_no_carried_values(%p: tensor<i1>) {
  hlo.while () cond {
    hlo.return %p : tensor<i1>
  } do {
    hlo.return
  }
  return
}

// -----

// CHECK-LABEL: func.func @if_else
// CHECK: %{{.*}}:2 = hlo.if %{{.*}} -> (tensor<4xui8>, tensor<f32>) {
// CHECK:   hlo.return %{{.*}}, %{{.*}} : tensor<4xui8>, tensor<f32>
// CHECK: } else {
// CHECK:   hlo.negate
// CHECK:   hlo.return
// CHECK: }
func.func @if_else(%p: tensor<i1>, %a: tensor<4xui8>, %b: tensor<f32>) -> (tensor<4xui8>, tensor<f32>) {
  %r:2 = hlo.if %p -> (tensor<4xui8>, tensor<f32>) {
    hlo.return %a, %b : tensor<4xui8>, tensor<f32>
  } else {
    %n = hlo.negate %b : tensor<f32>
    hlo.return %a, %n : tensor<4xui8>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<4xui8>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @if_without_results
// CHECK: hlo.if %{{.*}} {
// CHECK: } else {
func.func @if_without_results(%p: tensor<i1>) {
  hlo.if %p {
    hlo.return
  } else {
    hlo.return
  }
  return
}

// -----

// CHECK-LABEL: func.func @case_three_branches
// CHECK: %{{.*}} = hlo.case %{{.*}} -> (tensor<f32>) {
// CHECK:   hlo.return
// CHECK: }, {
// CHECK:   hlo.negate
// CHECK: }, {
// CHECK:   hlo.exp
// CHECK: }
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
