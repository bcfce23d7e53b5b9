// Round trip of hlo.optimization_barrier, and no folding it away.
// RUN: hlo-opt %s -split-input-file | hlo-opt -split-input-file | FileCheck %s
// RUN: hlo-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=CANON

// CHECK-LABEL: func.func @two_operands
// CHECK: %{{.*}}:2 = hlo.optimization_barrier %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<i32>
// CANON-LABEL: func.func @two_operands
// CANON: %[[R:.*]]:2 = hlo.optimization_barrier %arg0, %arg1 : tensor<4xf32>, tensor<i32>
// CANON: return %[[R]]#0, %[[R]]#1
func.func @two_operands(%a: tensor<4xf32>, %b: tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
  %r:2 = hlo.optimization_barrier %a, %b : tensor<4xf32>, tensor<i32>
  return %r#0, %r#1 : tensor<4xf32>, tensor<i32>
}

// -----

// CHECK-LABEL: func.func @one_unsigned
// CHECK: %{{.*}} = hlo.optimization_barrier %{{.*}} : tensor<2x3xui8>
// CANON-LABEL: func.func @one_unsigned
// CANON: hlo.optimization_barrier
func.func @one_unsigned(%a: tensor<2x3xui8>) -> tensor<2x3xui8> {
  %r = hlo.optimization_barrier %a : tensor<2x3xui8>
  return %r : tensor<2x3xui8>
}

// -----

// Without operands the op is spelled with empty parentheses.
// CHECK-LABEL: func.func @no_operands
// CHECK-NEXT: hlo.optimization_barrier(){{$}}
// CHECK-NEXT: %{{.*}} = hlo.constant
func.func @no_operands() -> tensor<f32> {
  hlo.optimization_barrier()
  %c = hlo.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

// -----

// A barrier of a constant keeps the constant from being folded into its users.
// CANON-LABEL: func.func @constant_operand
// CANON: %[[C:.*]] = hlo.constant dense<2.000000e+00>
// CANON: %[[B:.*]] = hlo.optimization_barrier %[[C]] : tensor<4xf32>
// CANON: hlo.add %[[B]], %[[B]]
func.func @constant_operand() -> tensor<4xf32> {
  %c = hlo.constant dense<2.0> : tensor<4xf32>
  %b = hlo.optimization_barrier %c : tensor<4xf32>
  %s = hlo.add %b, %b : tensor<4xf32>
  return %s : tensor<4xf32>
}
