// RUN: hlo-opt %s --hlo-to-cpu --split-input-file | FileCheck %s

// Control flow and sorting reach the LLVM dialect through scf, cf and
// in-place memrefs. Inputs are function arguments so nothing folds away.
// CHECK-NOT: {{ (hlo|linalg|memref|tensor|bufferization|scf|cf)\.}}
// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("i32[];f32[4]->f32[4]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%n: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = hlo.constant dense<0> : tensor<i32>
  %one = hlo.constant dense<1> : tensor<i32>
  %r:2 = hlo.while (%i = %zero, %v = %x) : tensor<i32>, tensor<4xf32> cond {
    %c = hlo.compare LT, %i, %n : tensor<i32> -> tensor<i1>
    hlo.return %c : tensor<i1>
  } do {
    %i1 = hlo.add %i, %one : tensor<i32>
    %p = hlo.compare EQ, %i, %zero : tensor<i32> -> tensor<i1>
    %v1 = hlo.if %p -> (tensor<4xf32>) {
      %e = hlo.exp %v : tensor<4xf32>
      hlo.return %e : tensor<4xf32>
    } else {
      %s = hlo.case %i -> (tensor<4xf32>) {
        hlo.return %v : tensor<4xf32>
      }, {
        %d = hlo.add %v, %v : tensor<4xf32>
        hlo.return %d : tensor<4xf32>
      }
      hlo.return %s : tensor<4xf32>
    }
    hlo.return %i1, %v1 : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("f32[3,100];ui16[3,100]->f32[3,100];ui16[3,100]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%k: tensor<3x100xf32>, %v: tensor<3x100xui16>) -> (tensor<3x100xf32>, tensor<3x100xui16>) {
  %r:2 = hlo.sort(%k, %v) dim = 1, num_keys = 2, stable : tensor<3x100xf32>, tensor<3x100xui16>
  return %r#0, %r#1 : tensor<3x100xf32>, tensor<3x100xui16>
}
