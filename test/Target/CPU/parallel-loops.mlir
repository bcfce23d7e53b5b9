// REQUIRES: multicore
// RUN: hlo-opt %s --hlo-to-cpu --split-input-file | FileCheck %s
// RUN: hlo-opt %s --hlo-to-cpu --split-input-file | mlir-translate --mlir-to-llvmir --split-input-file | FileCheck %s --check-prefix=IR

// On a host with several cores a large op runs on OpenMP threads: the
// pipeline leaves omp.parallel around a worksharing loop over its chunks,
// and the translation forks it through libomp's __kmpc_fork_call.
// The chunks' loop body allocates nothing: an allocation failure in a
// worker thread could not unwind to the runtime's call (see nlrt's host
// allocator).
// CHECK-LABEL: llvm.func internal @main
// CHECK: omp.parallel
// CHECK-NOT: llvm.call @_mlir_memref_to_llvm
// CHECK: omp.wsloop
// CHECK: omp.loop_nest
// CHECK: omp.terminator
// IR: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(
func.func @main(%x: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %0 = hlo.tanh %x : tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

// -----

// A full sum has no parallel loop of its own: cpu-split-reductions makes 16
// partial sums, which the threads share.
// CHECK-LABEL: llvm.func internal @main
// CHECK: omp.parallel
// CHECK: omp.wsloop
func.func @main(%x: tensor<1048576xf32>) -> tensor<f32> {
  %0 = hlo.multiply %x, %x : tensor<1048576xf32>
  %1 = hlo.reduce sum %0, dims = [0] : tensor<1048576xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
