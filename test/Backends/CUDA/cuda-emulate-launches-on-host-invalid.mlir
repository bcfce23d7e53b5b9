// RUN: hlo-opt %s --pass-pipeline="builtin.module(func.func(cuda-emulate-launches-on-host))" -split-input-file -verify-diagnostics

// A barrier that only some threads reach (inside an scf.if) has no
// order to emulate.
func.func @barrier_in_if(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      // expected-error @below {{cannot emulate: barriers and reductions of threads are emulated only at the top level of a launch or in loops there}}
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

// A loop with a barrier whose trip count depends on the thread.
func.func @barrier_in_thread_dependent_loop(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    // expected-error @below {{cannot emulate: a loop with barriers whose bounds differ between threads}}
    scf.for %i = %c0 to %t step %c1 {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

// A barrier in a loop nested in an scf.if is still rejected.
func.func @barrier_in_loop_in_if(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      scf.for %i = %c0 to %c4 step %c1 {
        // expected-error @below {{cannot emulate: barriers and reductions of threads are emulated only at the top level of a launch or in loops there}}
        gpu.barrier
      }
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
