// hlo-fuse, the target-independent stage from hlo to fused hlo
// (docs/compiler-stages.md): hlo-optimize's simplifications, then
// hlo-fusion's kernels. The CPU lowering takes its output too: it inlines
// the fusions and fuses in linalg and in loops.
// RUN: hlo-opt %s --hlo-fuse --split-input-file | FileCheck %s
// RUN: hlo-opt %s --hlo-fuse --split-input-file | hlo-opt --hlo-cpu-to-linalg --split-input-file | FileCheck %s --check-prefix=CPU

// x * 1 folds away first (hlo-simplify); softmax is then one input fusion.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = hlo.fusion input (%[[A:.*]] = %[[X]])
// CHECK-NOT: hlo.multiply
// CHECK: hlo.reduce max %[[A]], dims = [1]
// CHECK: hlo.exp
// CHECK: hlo.reduce sum
// CHECK: hlo.divide
// CHECK: hlo.return
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
// CPU-LABEL: func.func @main
// CPU-NOT: hlo.
// CPU: linalg.generic
// CPU-NOT: hlo.
// CPU: return
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %one = hlo.constant dense<1.0> : tensor<4x8xf32>
  %y = hlo.multiply %x, %one : tensor<4x8xf32>
  %m = hlo.reduce max %y, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %mb = hlo.broadcast_in_dim %m, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %d = hlo.subtract %y, %mb : tensor<4x8xf32>
  %e = hlo.exp %d : tensor<4x8xf32>
  %s = hlo.reduce sum %e, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %sb = hlo.broadcast_in_dim %s, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %r = hlo.divide %e, %sb : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A matmul takes in its bias and relu (output fusion).
// CHECK-LABEL: func.func @main
// CHECK: hlo.fusion output
// CHECK: hlo.dot_general
// CHECK: hlo.add
// CHECK: hlo.maximum
// CHECK: hlo.return
// CPU-LABEL: func.func @main
// CPU-NOT: hlo.
// CPU: linalg.matmul
// CPU-NOT: hlo.
// CPU: return
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %0 = hlo.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  %1 = hlo.broadcast_in_dim %b, dims = [1] : tensor<3xf32> -> tensor<4x3xf32>
  %2 = hlo.add %0, %1 : tensor<4x3xf32>
  %zero = hlo.constant dense<0.0> : tensor<4x3xf32>
  %3 = hlo.maximum %2, %zero : tensor<4x3xf32>
  return %3 : tensor<4x3xf32>
}
