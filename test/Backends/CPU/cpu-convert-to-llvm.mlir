// RUN: hlo-opt %s --split-input-file --cpu-convert-to-llvm --reconcile-unrealized-casts | FileCheck %s

// One conversion lowers memref, arith, func, cf and index ops together. Heap
// buffers go through the generic allocation functions (the runtime's
// allocator table), aligned; no cast is left between the dialects.
// CHECK-LABEL: llvm.func @f(
// CHECK: llvm.call @_mlir_memref_to_llvm_aligned_alloc(
// CHECK: llvm.fadd
// CHECK: llvm.cond_br
// CHECK: llvm.call @_mlir_memref_to_llvm_free(
// CHECK-NOT: unrealized_conversion_cast
func.func @f(%x: memref<4xf32>, %i: index, %p: i1) -> f32 {
  %buffer = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  %v = memref.load %x[%i] : memref<4xf32>
  %w = arith.addf %v, %v : f32
  memref.store %w, %buffer[%i] : memref<4xf32>
  %j = index.add %i, %i
  cf.cond_br %p, ^a, ^b
^a:
  %u = memref.load %buffer[%j] : memref<4xf32>
  memref.dealloc %buffer : memref<4xf32>
  return %u : f32
^b:
  memref.dealloc %buffer : memref<4xf32>
  return %w : f32
}

// -----

// OpenMP regions from convert-scf-to-openmp convert in the same walk: the
// parallel region's body is lowered inside it.
// CHECK-LABEL: llvm.func @parallel(
// CHECK: omp.parallel {
// CHECK: llvm.fmul
// CHECK: omp.terminator
func.func @parallel(%x: memref<8xf32>) {
  omp.parallel {
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%c0] : memref<8xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %x[%c0] : memref<8xf32>
    omp.terminator
  }
  return
}
