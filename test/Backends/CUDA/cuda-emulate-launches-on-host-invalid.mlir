// RUN: hlo-opt %s --pass-pipeline="builtin.module(func.func(cuda-emulate-launches-on-host))" -split-input-file -verify-diagnostics

// A barrier inside a loop would need the threads to run the loop in step.
func.func @nested_barrier(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    scf.for %i = %c0 to %c4 step %c1 {
      // expected-error @below {{cannot emulate: barriers and reductions of threads are emulated at the top level of a launch only}}
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

func.func @two_dimensional(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // expected-error @below {{cannot emulate: the host emulation runs 1-D grids and blocks}}
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c2, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c2, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}
