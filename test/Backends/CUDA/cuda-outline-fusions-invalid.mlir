// RUN: hlo-opt %s --cuda-outline-fusions -split-input-file -verify-diagnostics

// Collectives run in the runtime between replicas, which the cuda backend
// does not have yet.
func.func public @psum(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{cannot run on the cuda backend: collectives are not supported on the cuda backend yet}}
  %r = hlo.all_reduce sum %x, replica_groups = [[0, 1]] : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Library routines (LAPACK, the runtime's FFT) live in the CPU runtime; the
// frontend lowers the primitives to their composites for the cuda backend.
func.func public @cholesky(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{cannot run on the cuda backend: hlo.custom_call calls a host library (LAPACK, the runtime's FFT), which the cuda backend does not have; lower the primitive to its portable composite instead}}
  %l = hlo.custom_call "lapack.potrf" (%a) config = [] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %l : tensor<4x4xf32>
}
