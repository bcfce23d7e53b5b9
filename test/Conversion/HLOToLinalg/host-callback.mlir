// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// Operands are copied into fresh dense buffers, results get fresh buffers,
// and the op becomes a call of a private declaration that carries the id
// and the operand count; unsigned types become signless.
// CHECK-LABEL: func.func private @__numlir_host_callback_5
// CHECK-SAME: (memref<4xf32>, memref<i32>, memref<2x3xi8>)
// CHECK-SAME: numlir.host_callback_id = 5 : i64
// CHECK-SAME: numlir.host_callback_operands = 2 : i64
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<i32>)
// CHECK: %[[BA:.*]] = memref.alloc() : memref<4xf32>
// CHECK: bufferization.materialize_in_destination %[[A]] in restrict writable %[[BA]]
// CHECK: %[[BB:.*]] = memref.alloc() : memref<i32>
// CHECK: bufferization.materialize_in_destination %[[B]] in restrict writable %[[BB]]
// CHECK: %[[R:.*]] = memref.alloc() : memref<2x3xi8>
// CHECK: call @__numlir_host_callback_5(%[[BA]], %[[BB]], %[[R]])
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[R]] restrict writable
// CHECK: return %[[T]]
func.func @main(%a: tensor<4xf32>, %b: tensor<i32>) -> tensor<2x3xui8> {
  %r = hlo.host_callback id = 5 (%a, %b) : (tensor<4xf32>, tensor<i32>) -> tensor<2x3xui8>
  return %r : tensor<2x3xui8>
}

// -----

// Two calls of one callback share the declaration; a side-effecting call
// without results is a bare call.
// CHECK-LABEL: func.func private @__numlir_host_callback_1(memref<f32>)
// CHECK-NOT: func.func private @__numlir_host_callback
// CHECK-LABEL: func.func @twice
// CHECK-COUNT-2: call @__numlir_host_callback_1(
func.func @twice(%a: tensor<f32>) {
  hlo.host_callback id = 1 (%a) {has_side_effect} : (tensor<f32>) -> ()
  hlo.host_callback id = 1 (%a) {has_side_effect} : (tensor<f32>) -> ()
  return
}

// -----

// Inside a loop body the call stays in the body, once per iteration.
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.while
// CHECK: } do {
// CHECK: call @__numlir_host_callback_2(
// CHECK: scf.yield
func.func @in_loop(%n: tensor<i32>) -> tensor<i32> {
  %r = hlo.while (%i = %n) : tensor<i32> cond {
    %zero = hlo.constant dense<0> : tensor<i32>
    %c = hlo.compare GT, %i, %zero : tensor<i32> -> tensor<i1>
    hlo.return %c : tensor<i1>
  } do {
    hlo.host_callback id = 2 (%i) {has_side_effect} : (tensor<i32>) -> ()
    %one = hlo.constant dense<1> : tensor<i32>
    %j = hlo.subtract %i, %one : tensor<i32>
    hlo.return %j : tensor<i32>
  }
  return %r : tensor<i32>
}
