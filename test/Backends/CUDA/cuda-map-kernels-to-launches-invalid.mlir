// RUN: hlo-opt %s --cuda-map-kernels-to-launches=block-size=100 -verify-diagnostics

// A block is whole warps, at most 1024 threads.
// expected-error @below {{cuda-map-kernels-to-launches needs a block-size that is a multiple of 32 from 32 to 1024, got 100}}
module {
  func.func private @k(%x: memref<4xf32>) {
    return
  }
}
