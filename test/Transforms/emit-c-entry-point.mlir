// RUN: hlo-opt %s --numlir-emit-c-entry-point --split-input-file --verify-diagnostics | FileCheck %s

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
func.func public @main(%a: memref<4x8xf32>, %p: memref<i1>, %out: memref<4xf32> {bufferize.result}) {
  return
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
