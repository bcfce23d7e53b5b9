// Round trip of hlo.host_callback; DCE and CSE keep a call with a side
// effect and remove an unused pure one.
// RUN: hlo-opt %s -split-input-file | hlo-opt -split-input-file | FileCheck %s
// RUN: hlo-opt %s -split-input-file -canonicalize -cse | FileCheck %s --check-prefix=OPT

// CHECK-LABEL: func.func @effect
// CHECK: hlo.host_callback id = 3{{ ?}}(%{{.*}}, %{{.*}}) {has_side_effect} : (tensor<4xf32>, tensor<i32>) -> ()
// OPT-LABEL: func.func @effect
// OPT-COUNT-2: hlo.host_callback id = 3
func.func @effect(%a: tensor<4xf32>, %b: tensor<i32>) {
  hlo.host_callback id = 3 (%a, %b) {has_side_effect} : (tensor<4xf32>, tensor<i32>) -> ()
  hlo.host_callback id = 3 (%a, %b) {has_side_effect} : (tensor<4xf32>, tensor<i32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @pure
// CHECK: %{{.*}}:2 = hlo.host_callback id = 0{{ ?}}(%{{.*}}) : (tensor<2x3xui8>) -> (tensor<f64>, tensor<0xi1>)
// OPT-LABEL: func.func @pure
// OPT-NEXT: %[[R:.*]]:2 = hlo.host_callback id = 0{{ ?}}(%arg0)
// OPT-NOT: hlo.host_callback
// OPT: return %[[R]]#0
func.func @pure(%a: tensor<2x3xui8>) -> tensor<f64> {
  %r:2 = hlo.host_callback id = 0 (%a) : (tensor<2x3xui8>) -> (tensor<f64>, tensor<0xi1>)
  %unused:2 = hlo.host_callback id = 1 (%a) : (tensor<2x3xui8>) -> (tensor<f64>, tensor<0xi1>)
  return %r#0 : tensor<f64>
}

// -----

// A callback without operands.
// CHECK-LABEL: func.func @no_operands
// CHECK: hlo.host_callback id = 7{{ ?}}() : () -> tensor<3xf32>
func.func @no_operands() -> tensor<3xf32> {
  %r = hlo.host_callback id = 7 () : () -> tensor<3xf32>
  return %r : tensor<3xf32>
}
