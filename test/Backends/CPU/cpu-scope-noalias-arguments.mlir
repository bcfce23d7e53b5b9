// RUN: hlo-opt %s --split-input-file --cpu-scope-noalias-arguments | FileCheck %s

// Each noalias pointer argument gets a scope of the function's domain; an
// access through it (also inside omp.parallel, whose body is outlined when
// translated) is in its scope and aliases none of the others. An access
// through a pointer that is not a noalias argument (%c, or one loaded from
// memory) gets no scope.
// CHECK-DAG: #[[D:.*]] = #llvm.alias_scope_domain<id = distinct[{{.*}}]<>, description = "kernel">
// CHECK-DAG: #[[A:.*]] = #llvm.alias_scope<id = distinct[{{.*}}]<>, domain = #[[D]]>
// CHECK-DAG: #[[B:.*]] = #llvm.alias_scope<id = distinct[{{.*}}]<>, domain = #[[D]]>
// CHECK-LABEL: llvm.func @kernel
// CHECK: omp.parallel
// CHECK: llvm.load %{{.*}} {alias_scopes = [#[[A]]], noalias_scopes = [#[[B]]]}
// CHECK: llvm.store %{{.*}}, %{{.*}} {alias_scopes = [#[[B]]], noalias_scopes = [#[[A]]]}
// CHECK: llvm.load %arg2 : !llvm.ptr -> f32
// CHECK: %[[P:.*]] = llvm.load %arg0 {alias_scopes = [#[[A]]], noalias_scopes = [#[[B]]]} : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.store %{{.*}}, %[[P]] : f32, !llvm.ptr
llvm.func @kernel(%a: !llvm.ptr {llvm.noalias}, %b: !llvm.ptr {llvm.noalias}, %c: !llvm.ptr, %i: i64) {
  omp.parallel {
    %pa = llvm.getelementptr %a[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %v = llvm.load %pa : !llvm.ptr -> f32
    %pb = llvm.getelementptr %b[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %v, %pb : f32, !llvm.ptr
    omp.terminator
  }
  %w = llvm.load %c : !llvm.ptr -> f32
  %p = llvm.load %a : !llvm.ptr -> !llvm.ptr
  llvm.store %w, %p : f32, !llvm.ptr
  llvm.return
}

// -----

// Without noalias arguments nothing changes.
// CHECK-LABEL: llvm.func @plain
// CHECK-NOT: alias_scopes
llvm.func @plain(%a: !llvm.ptr, %b: !llvm.ptr) {
  %v = llvm.load %a : !llvm.ptr -> f32
  llvm.store %v, %b : f32, !llvm.ptr
  llvm.return
}
