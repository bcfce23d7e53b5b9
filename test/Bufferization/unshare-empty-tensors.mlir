// RUN: hlo-opt %s --split-input-file --unshare-empty-tensors | FileCheck %s

// One empty tensor that three ops write into becomes one per op: one use
// keeps the original, the others get a copy just before their user.
// One-shot bufferization then sees three small alias sets.
// CHECK-LABEL: func.func @three_users
// CHECK-NEXT: %[[KEPT:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[A:.*]] = linalg.fill ins(%arg0 : f32) outs(%[[E0]] : tensor<4xf32>)
// CHECK-NEXT: %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[B:.*]] = linalg.fill ins(%arg1 : f32) outs(%[[E1]] : tensor<4xf32>)
// CHECK-NEXT: linalg.map { arith.addf } ins(%[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>) outs(%[[KEPT]] : tensor<4xf32>)
func.func @three_users(%x: f32, %y: f32) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.fill ins(%x : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %b = linalg.fill ins(%y : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.map { arith.addf } ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>)
  return %s : tensor<4xf32>
}

// -----

// A dynamic size is the same value in every copy; the user inside the loop
// and the one before it write into different empty tensors.
// CHECK-LABEL: func.func @dynamic_and_nested
// CHECK: %[[KEPT:.*]] = tensor.empty(%arg0) : tensor<?xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty(%arg0) : tensor<?xf32>
// CHECK-NEXT: linalg.fill ins(%arg1 : f32) outs(%[[E]] : tensor<?xf32>)
// CHECK: scf.for
// CHECK-NEXT: linalg.fill ins(%arg1 : f32) outs(%[[KEPT]] : tensor<?xf32>)
func.func @dynamic_and_nested(%n: index, %x: f32) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%x : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<?xf32> {
    %f = linalg.fill ins(%x : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %f : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// An empty tensor with one use, or none, is left as it is.
// CHECK-LABEL: func.func @single_use
// CHECK-COUNT-2: tensor.empty
// CHECK-NOT: tensor.empty
func.func @single_use(%x: f32) -> tensor<4xf32> {
  %unused = tensor.empty() : tensor<8xf32>
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.fill ins(%x : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
