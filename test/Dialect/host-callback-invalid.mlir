// Every verifier error of hlo.host_callback.
// RUN: hlo-opt %s -split-input-file -verify-diagnostics

func.func @negative_id(%a: tensor<4xf32>) {
  // expected-error@+1 {{'hlo.host_callback' op callback id -1 is negative; ids count from 0}}
  hlo.host_callback id = -1 (%a) {has_side_effect} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @does_nothing(%a: tensor<4xf32>) {
  // expected-error@+1 {{'hlo.host_callback' op has no results and no side effect, so it does nothing; add `has_side_effect` or drop the op}}
  hlo.host_callback id = 0 (%a) : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @dynamic_operand(%a: tensor<?xf32>) {
  // expected-error@+1 {{'hlo.host_callback' op operand #0 must be variadic of}}
  hlo.host_callback id = 0 (%a) {has_side_effect} : (tensor<?xf32>) -> ()
  return
}
