// hlo-inline-fusions puts each fusion's body in its place; fusing and then
// inlining gives back the ops (CSE merges the copies hlo-fusion made).
// RUN: hlo-opt %s --hlo-inline-fusions --split-input-file | FileCheck %s
// RUN: hlo-opt %s --hlo-inline-fusions --hlo-fusion --hlo-inline-fusions --cse --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @two_results
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[E:.*]] = hlo.exp %[[X]]
// CHECK-NEXT: %[[S:.*]] = hlo.reduce sum %[[E]], dims = [1]
// CHECK-NEXT: %[[K:.*]] = hlo.sort(%[[E]])
// CHECK-NEXT: return %[[S]], %[[K]]
func.func @two_results(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %r:2 = hlo.fusion input (%a = %x) : (tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
    %e = hlo.exp %a : tensor<4x8xf32>
    %s = hlo.reduce sum %e, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
    hlo.return %s, %e : tensor<4xf32>, tensor<4x8xf32>
  }
  %k = hlo.sort(%r#1) dim = 1, num_keys = 1 : tensor<4x8xf32>
  return %r#0, %k : tensor<4xf32>, tensor<4x8xf32>
}

// -----

// A fusion may return its operand unchanged.
// CHECK-LABEL: func.func @returns_an_argument
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[N:.*]] = hlo.negate %[[X]]
// CHECK-NEXT: return %[[N]], %[[X]]
func.func @returns_an_argument(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = hlo.fusion loop (%a = %x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %n = hlo.negate %a : tensor<4xf32>
    hlo.return %n, %a : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
