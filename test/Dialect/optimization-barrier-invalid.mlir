// Every verifier error of hlo.optimization_barrier.
// RUN: hlo-opt %s -split-input-file -verify-diagnostics

func.func @more_results_than_operands(%a: tensor<4xf32>) {
  // expected-error@+1 {{'hlo.optimization_barrier' op has 1 operands but 2 results; it returns each operand}}
  %r:2 = "hlo.optimization_barrier"(%a) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @fewer_results_than_operands(%a: tensor<4xf32>, %b: tensor<i32>) {
  // expected-error@+1 {{'hlo.optimization_barrier' op has 2 operands but 1 results; it returns each operand}}
  %r = "hlo.optimization_barrier"(%a, %b) : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  return
}

// -----

func.func @element_type_mismatch(%a: tensor<4xf32>, %b: tensor<i32>) {
  // expected-error@+1 {{'hlo.optimization_barrier' op result #1 has type 'tensor<ui32>', but operand #1 has type 'tensor<i32>'}}
  %r:2 = "hlo.optimization_barrier"(%a, %b) : (tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<ui32>)
  return
}

// -----

func.func @shape_mismatch(%a: tensor<4xf32>) {
  // expected-error@+1 {{'hlo.optimization_barrier' op result #0 has type 'tensor<2x2xf32>', but operand #0 has type 'tensor<4xf32>'}}
  %r = "hlo.optimization_barrier"(%a) : (tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @dynamic_shape(%a: tensor<?xf32>) {
  // expected-error@+1 {{'hlo.optimization_barrier' op operand #0 must be variadic of statically shaped tensor}}
  %r = "hlo.optimization_barrier"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @missing_type(%a: tensor<4xf32>, %b: tensor<i32>) {
  // expected-error@+1 {{number of operands and types do not match: got 2 operands and 1 types}}
  %r:2 = hlo.optimization_barrier %a, %b : tensor<4xf32>
  return
}
