// RUN: hlo-opt %s --split-input-file --cpu-convert-to-llvm -verify-diagnostics

// Arithmetic on tensors has no LLVM lowering (bufferization should have
// removed it): an error at the op, not a half-lowered module that fails to
// translate later.
func.func @arith_on_a_tensor(%x: f32) -> f32 {
  %t = tensor.empty() : tensor<4xf32>
  // expected-error @below {{failed to legalize operation 'arith.addf'}}
  %r = arith.addf %t, %t : tensor<4xf32>
  return %x : f32
}

// -----

// The slot functions' names are reserved for the arena (ArenaSlots.h): a
// function of another type under one of them is an error, not a call of
// an opaque function with the wrong operands.
// expected-error @below {{@__numlir_arena_slot_end is reserved for the arena's slots and must be a func.func declaration of type '(memref<?xi8>) -> ()'}}
func.func private @__numlir_arena_slot_end(memref<?xf32>)
