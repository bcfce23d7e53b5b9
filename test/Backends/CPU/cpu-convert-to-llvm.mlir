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

// -----

// The arena's slot calls (assign-buffers) lower to calls of two
// out-of-line functions LLVM cannot see into: the slot's pointer is
// `noalias`, as malloc's is, and comes out of an asm that takes the
// arena's address plus the offset; the slot end hands the pointer to an
// asm that clobbers memory. The slot's descriptor starts at that pointer.
// CHECK-LABEL: llvm.func internal @__numlir_arena_slot(
// CHECK-SAME: %[[BASE:.*]]: !llvm.ptr, %[[OFFSET:.*]]: i64) -> (!llvm.ptr {llvm.noalias}) attributes {no_inline}
// CHECK: %[[START:.*]] = llvm.getelementptr %[[BASE]][%[[OFFSET]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: %[[OPAQUE:.*]] = llvm.inline_asm has_side_effects "", "=r,0,~{memory}" %[[START]] : (!llvm.ptr) -> !llvm.ptr
// CHECK: llvm.return %[[OPAQUE]]
// CHECK-LABEL: llvm.func internal @__numlir_arena_slot_end(
// CHECK-SAME: %[[P:.*]]: !llvm.ptr) attributes {no_inline}
// CHECK: llvm.inline_asm has_side_effects "", "r,~{memory}" %[[P]] : (!llvm.ptr) -> ()
// CHECK-LABEL: llvm.func @slots(
// CHECK: %[[SLOT:.*]] = llvm.call @__numlir_arena_slot(%{{.*}}, %{{.*}}) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK: %[[D0:.*]] = llvm.insertvalue %[[SLOT]], %{{.*}}[0]
// CHECK: %[[D1:.*]] = llvm.insertvalue %[[SLOT]], %[[D0]][1]
// CHECK: llvm.store
// CHECK: %[[END:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK-NEXT: llvm.call @__numlir_arena_slot_end(%[[END]]) : (!llvm.ptr) -> ()
// CHECK-NOT: func.func
func.func private @__numlir_arena_slot(memref<?xi8>, index, index) -> memref<?xi8>
func.func private @__numlir_arena_slot_end(memref<?xi8>)
func.func @slots(%arena: memref<?xi8>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c16 = arith.constant 16 : index
  %slot = call @__numlir_arena_slot(%arena, %c64, %c16) : (memref<?xi8>, index, index) -> memref<?xi8>
  %view = memref.view %slot[%c0][] : memref<?xi8> to memref<4xf32>
  memref.store %v, %view[%c0] : memref<4xf32>
  call @__numlir_arena_slot_end(%slot) : (memref<?xi8>) -> ()
  return
}

// -----

// A memref argument marked noalias (cpu-share-kernels' kernels) becomes its
// descriptor's values; the mark moves to the aligned pointer, through which
// every access goes, counting past the other arguments' values (a 2-d
// descriptor is 7 values, a scalar 1).
// CHECK-LABEL: llvm.func @kernel(
// CHECK-SAME: %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr {llvm.noalias}, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64,
// CHECK-SAME: %{{[^:]*}}: f32,
// CHECK-SAME: %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64,
// CHECK-SAME: %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr {llvm.noalias}, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64)
// CHECK-LABEL: llvm.func @caller(
// CHECK: llvm.call @kernel(
func.func @kernel(%a: memref<2x3xf32> {llvm.noalias}, %s: f32, %b: memref<4xf32>,
                  %c: memref<4xf32> {llvm.noalias}) {
  return
}
func.func @caller(%a: memref<2x3xf32>, %s: f32, %b: memref<4xf32>) {
  call @kernel(%a, %s, %b, %b) : (memref<2x3xf32>, f32, memref<4xf32>, memref<4xf32>) -> ()
  return
}
