// RUN: hlo-opt %s --cpu-emit-c-entry-point --split-input-file --verify-diagnostics | FileCheck %s

// The entry loads one pointer per argument, wraps each in a descriptor and
// calls the wrapped function, which becomes internal.
// CHECK-LABEL: module
// CHECK: func.func private @main(%{{.*}}: memref<4x8xf32>, %{{.*}}: memref<i1>, %{{.*}}: memref<4xf32> {bufferize.result})
// CHECK-SAME: llvm.linkage = #llvm.linkage<internal>
// CHECK: llvm.mlir.global external constant @numlir_entry_signature("f32[4,8];i1[]->f32[4]\00")
// CHECK: func.func @numlir_entry(%[[BUFFERS:.*]]: !llvm.ptr)
// CHECK: %[[SLOT0:.*]] = llvm.getelementptr %[[BUFFERS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[PTR0:.*]] = llvm.load %[[SLOT0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[D0:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<4x8xf32>
// CHECK: %[[D1:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64)> to memref<i1>
// CHECK: %[[D2:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<4xf32>
// CHECK: call @main(%[[D0]], %[[D1]], %[[D2]])
// Heap allocations go through a writable table the runtime fills at load
// time; it starts out as libc's malloc, aligned_alloc and free.
// CHECK: llvm.mlir.global external @numlir_entry_allocator() {{.*}} : !llvm.array<3 x ptr> {
// CHECK-DAG: llvm.mlir.addressof @malloc
// CHECK-DAG: llvm.mlir.addressof @aligned_alloc
// CHECK-DAG: llvm.mlir.addressof @free
// CHECK: llvm.func internal @_mlir_memref_to_llvm_alloc(%{{.*}}: i64) -> (!llvm.ptr {llvm.noalias}) attributes {no_inline}
// CHECK: %[[TABLE:.*]] = llvm.mlir.addressof @numlir_entry_allocator
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[TABLE]][0, 0]
// CHECK: %[[FN:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call %[[FN]](%{{.*}}) : !llvm.ptr, (i64) -> !llvm.ptr
// CHECK: llvm.func internal @_mlir_memref_to_llvm_aligned_alloc(%{{.*}}: i64, %{{.*}}: i64) -> (!llvm.ptr {llvm.noalias})
// CHECK: llvm.getelementptr %{{.*}}[0, 1]
// CHECK: llvm.func internal @_mlir_memref_to_llvm_free(%{{.*}}: !llvm.ptr)
// CHECK: llvm.getelementptr %{{.*}}[0, 2]
func.func public @main(%a: memref<4x8xf32>, %p: memref<i1>, %out: memref<4xf32> {bufferize.result}) {
  return
}

// -----

// Static allocations from a user's line are listed, with their size, for
// the runtime's out-of-memory message; those without one are not.
// CHECK-LABEL: module
// CHECK: llvm.mlir.global external constant @numlir_entry_allocation_sites("4000000000000 f32[1000000,1000000] user.py:3:7\0A2 i1[2] user.py:9:1\00")
func.func public @main(%a: memref<4xf32>, %out: memref<4xf32> {bufferize.result}) {
  %0 = memref.alloc() {alignment = 64 : i64} : memref<1000000x1000000xf32> loc("user.py":3:7)
  %1 = memref.alloc() : memref<1000000x1000000xf32> loc(fused["user.py":3:7, "other.py":1:1])
  %2 = memref.alloc() : memref<2xi1> loc(callsite("user.py":9:1 at "main.py":1:1))
  %3 = memref.alloc() : memref<8xf32>
  memref.dealloc %0 : memref<1000000x1000000xf32>
  memref.dealloc %1 : memref<1000000x1000000xf32>
  memref.dealloc %2 : memref<2xi1>
  memref.dealloc %3 : memref<8xf32>
  return
}

// -----

// expected-error@below {{the module already defines @_mlir_memref_to_llvm_alloc, which the runtime's allocator table provides}}
module {
  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
  func.func public @main(%out: memref<4xf32> {bufferize.result}) {
    return
  }
}

// -----

// A recorded tensor-level signature keeps the signedness the buffers lost.
// CHECK-LABEL: module
// CHECK: @numlir_entry_signature("ui8[3]->i32[3]\00")
func.func public @main(%a: memref<3xi8>, %out: memref<3xi32> {bufferize.result}) attributes {numlir.abi_signature = "ui8[3]->i32[3]"} {
  return
}

// -----

// expected-error@+1 {{recorded signature 'f32[3]->f32[3]' does not match the buffers 'f32[4]->f32[4]'}}
func.func public @main(%a: memref<4xf32>, %out: memref<4xf32> {bufferize.result}) attributes {numlir.abi_signature = "f32[3]->f32[3]"} {
  return
}

// -----

// expected-error@+1 {{still returns values; run buffer-results-to-out-params first}}
func.func public @main(%a: memref<4xf32>) -> memref<4xf32> {
  return %a : memref<4xf32>
}

// -----

// expected-error@+1 {{argument #0 of type 'memref<?xf32>' is not a static, identity-layout memref}}
func.func public @main(%a: memref<?xf32>, %out: memref<4xf32> {bufferize.result}) {
  return
}

// -----

// expected-error@+1 {{input argument #1 follows an output buffer}}
func.func public @main(%out: memref<4xf32> {bufferize.result}, %a: memref<4xf32>) {
  return
}

// -----

// expected-error@+1 {{no function @main to wrap}}
module {
  func.func public @other() {
    return
  }
}

// -----

// expected-error@below {{the module declares malloc, aligned_alloc or free with a non-standard type}}
module {
  llvm.func @malloc(i32) -> !llvm.ptr
  func.func public @main(%out: memref<4xf32> {bufferize.result}) {
    return
  }
}
