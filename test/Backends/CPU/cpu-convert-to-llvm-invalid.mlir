// RUN: hlo-opt %s --cpu-convert-to-llvm -verify-diagnostics

// Arithmetic on tensors has no LLVM lowering (bufferization should have
// removed it): an error at the op, not a half-lowered module that fails to
// translate later.
func.func @arith_on_a_tensor(%x: f32) -> f32 {
  %t = tensor.empty() : tensor<4xf32>
  // expected-error @below {{failed to legalize operation 'arith.addf'}}
  %r = arith.addf %t, %t : tensor<4xf32>
  return %x : f32
}
