// RUN: hlo-opt %s --cuda-outline-fusions -split-input-file | FileCheck %s

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

// -----

// A control-flow op becomes a kernel function too, taking the values its
// regions read from above as arguments (its own fusions are inlined later).
// CHECK-LABEL: func.func public @loop
// CHECK-SAME: (%[[N:.*]]: tensor<i32>, %[[STEP:.*]]: tensor<i32>)
// CHECK: call @loop_kernel_0(%[[N]], %[[STEP]])
// CHECK: func.func private @loop_kernel_0(%[[I0:.*]]: tensor<i32>, %[[S:.*]]: tensor<i32>)
// CHECK: hlo.while
// CHECK: hlo.subtract %{{.*}}, %[[S]]
func.func public @loop(%n: tensor<i32>, %step: tensor<i32>) -> tensor<i32> {
  %r = hlo.while (%i = %n) : tensor<i32> cond {
    %z = hlo.constant dense<0> : tensor<i32>
    %p = hlo.compare GT, %i, %z : tensor<i32> -> tensor<i1>
    hlo.return %p : tensor<i1>
  } do {
    %m = hlo.subtract %i, %step : tensor<i32>
    hlo.return %m : tensor<i32>
  }
  return %r : tensor<i32>
}
