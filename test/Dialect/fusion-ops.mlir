// hlo.fusion prints and parses back: kinds, named body arguments, several
// results, no operands, and attributes.
// RUN: hlo-opt %s | hlo-opt | FileCheck %s

// CHECK-LABEL: func.func @input_fusion_with_two_results
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @input_fusion_with_two_results(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  // CHECK: %[[R:.*]]:2 = hlo.fusion input (%[[A:.*]] = %[[X]]) : (tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  // CHECK-NEXT: %[[E:.*]] = hlo.exp %[[A]] : tensor<4x8xf32>
  // CHECK-NEXT: %[[S:.*]] = hlo.reduce sum %[[E]], dims = [1]
  // CHECK-NEXT: hlo.return %[[S]], %[[E]] : tensor<4xf32>, tensor<4x8xf32>
  // CHECK-NEXT: }
  // CHECK: return %[[R]]#0, %[[R]]#1
  %r:2 = hlo.fusion input (%a = %x) : (tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
    %e = hlo.exp %a : tensor<4x8xf32>
    %s = hlo.reduce sum %e, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
    hlo.return %s, %e : tensor<4xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @loop_fusion_without_operands
func.func @loop_fusion_without_operands() -> tensor<3xi32> {
  // CHECK: hlo.fusion loop () : () -> tensor<3xi32> attributes {note = "kept"} {
  %r = hlo.fusion loop () : () -> tensor<3xi32> attributes {note = "kept"} {
    %i = hlo.iota dim = 0 : tensor<3xi32>
    hlo.return %i : tensor<3xi32>
  }
  return %r : tensor<3xi32>
}

// CHECK-LABEL: func.func @output_fusion
func.func @output_fusion(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  // CHECK: hlo.fusion output (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %r = hlo.fusion output (%a = %x, %c = %w, %d = %b) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32> {
    %0 = hlo.dot_general %a, %c, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
    %1 = hlo.broadcast_in_dim %d, dims = [1] : tensor<4xf32> -> tensor<2x4xf32>
    %2 = hlo.add %0, %1 : tensor<2x4xf32>
    hlo.return %2 : tensor<2x4xf32>
  }
  return %r : tensor<2x4xf32>
}
