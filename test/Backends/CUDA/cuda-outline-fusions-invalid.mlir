// RUN: hlo-opt %s --cuda-outline-fusions -split-input-file -verify-diagnostics

// Collectives run in the runtime between replicas, which the cuda backend
// does not have yet.
func.func public @psum(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{cannot run on the cuda backend: collectives are not supported on the cuda backend yet}}
  %r = hlo.all_reduce sum %x, replica_groups = [[0, 1]] : tensor<8xf32>
  return %r : tensor<8xf32>
}
