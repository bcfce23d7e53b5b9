// RUN: hlo-opt %s --cuda-outline-fusions | FileCheck %s

// Each fusion becomes a private function called in its place; an op that
// no fusion holds becomes a function of its own; constants stay.
// CHECK-LABEL: func.func public @main
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[C:.*]] = hlo.constant
// CHECK: %[[S:.*]] = call @main_kernel_0(%[[X]]) : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK: %[[N:.*]] = call @main_kernel_1(%[[S]], %[[C]])
// CHECK: return %[[N]]
// CHECK: func.func private @main_kernel_0(%[[A:.*]]: tensor<4x8xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[E:.*]] = hlo.exp %[[A]]
// CHECK-NEXT: %[[R:.*]] = hlo.reduce sum %[[E]]
// CHECK-NEXT: return %[[R]]
// CHECK: func.func private @main_kernel_1(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>)
// CHECK-NEXT: hlo.subtract
func.func public @main(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %c = hlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %s = hlo.fusion input (%a = %x) : (tensor<4x8xf32>) -> tensor<4xf32> {
    %e = hlo.exp %a : tensor<4x8xf32>
    %r = hlo.reduce sum %e, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
    hlo.return %r : tensor<4xf32>
  }
  %n = hlo.subtract %s, %c : tensor<4xf32>
  return %n : tensor<4xf32>
}
