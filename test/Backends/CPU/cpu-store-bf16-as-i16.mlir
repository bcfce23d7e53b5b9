// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(cpu-store-bf16-as-i16,canonicalize)' | FileCheck %s

// A bf16 value loaded in one block and stored from another travels as i16:
// LLVM would otherwise promote it to f32 and call __truncsfbf2 to store it.
// CHECK-LABEL: llvm.func @copy_across_blocks
// CHECK: %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i16
// CHECK: llvm.br ^[[NEXT:.*]](%[[V]] : i16)
// CHECK: ^[[NEXT]](%[[ARG:.*]]: i16):
// CHECK: llvm.store %[[ARG]], %{{.*}} : i16, !llvm.ptr
// CHECK-NOT: bf16
llvm.func @copy_across_blocks(%src: !llvm.ptr, %dst: !llvm.ptr) {
  %v = llvm.load %src : !llvm.ptr -> bf16
  llvm.br ^bb1(%v : bf16)
^bb1(%w: bf16):
  llvm.store %w, %dst : bf16, !llvm.ptr
  llvm.return
}

// -----

// Integer arithmetic on the bits (what arith-expand makes of bf16
// conversions) reads the i16 directly; selects of bf16 pick i16s.
// CHECK-LABEL: llvm.func @bits_and_select
// CHECK: %[[A:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i16
// CHECK: %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i16
// CHECK: llvm.zext %[[A]] : i16 to i32
// CHECK: %[[S:.*]] = llvm.select %{{.*}}, %[[A]], %[[B]] : i1, i16
// CHECK: llvm.store %[[S]], %{{.*}} : i16, !llvm.ptr
// CHECK-NOT: bf16
llvm.func @bits_and_select(%p: !llvm.ptr, %q: !llvm.ptr, %c: i1) -> i32 {
  %a = llvm.load %p : !llvm.ptr -> bf16
  %b = llvm.load %q : !llvm.ptr -> bf16
  %bits = llvm.bitcast %a : bf16 to i16
  %wide = llvm.zext %bits : i16 to i32
  %s = llvm.select %c, %a, %b : i1, bf16
  llvm.store %s, %p : bf16, !llvm.ptr
  llvm.return %wide : i32
}

// -----

// Other types are untouched.
// CHECK-LABEL: llvm.func @f16_untouched
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f16
// CHECK: llvm.store %{{.*}} : f16, !llvm.ptr
llvm.func @f16_untouched(%p: !llvm.ptr) {
  %v = llvm.load %p : !llvm.ptr -> f16
  llvm.store %v, %p : f16, !llvm.ptr
  llvm.return
}
