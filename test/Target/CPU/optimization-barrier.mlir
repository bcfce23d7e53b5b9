// RUN: hlo-opt %s --hlo-optimize --hlo-cpu-to-linalg --split-input-file | FileCheck %s
// RUN: hlo-opt %s --hlo-to-cpu --split-input-file | FileCheck %s --check-prefix=LLVM

// Without a barrier, CSE merges two identical chains: exp and sin run once
// (in the generic that fusion makes of the chains and the add, which
// cpu-share-kernels moves into a kernel after the entry point).
// CHECK-LABEL: func.func @main
// CHECK-COUNT-1: math.sin
// CHECK-NOT: math.sin
// CHECK-NOT: hlo.optimization_barrier
// LLVM-LABEL: llvm.func internal @main
// LLVM: llvm.func @numlir_entry
// LLVM-COUNT-1: llvm.intr.sin
// LLVM-NOT: llvm.intr.sin
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = hlo.exp %x : tensor<4xf32>
  %1 = hlo.sin %0 : tensor<4xf32>
  %2 = hlo.exp %x : tensor<4xf32>
  %3 = hlo.sin %2 : tensor<4xf32>
  %4 = hlo.add %1, %3 : tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// When the second chain reads the barrier's result (as a checkpoint's
// recomputation reads a saved value), the fused generic keeps one chain per
// input, and, the barrier erased before bufferization, so does the LLVM code.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4xf32>
// CHECK: %[[B:.*]] = hlo.optimization_barrier %[[X]] : tensor<4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[B]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-COUNT-2: math.sin
// CHECK-NOT: math.sin
// LLVM-LABEL: llvm.func internal @main
// LLVM-NOT: hlo.optimization_barrier
// LLVM: llvm.func @numlir_entry
// LLVM-COUNT-2: llvm.intr.sin
// LLVM-NOT: llvm.intr.sin
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = hlo.exp %x : tensor<4xf32>
  %1 = hlo.sin %0 : tensor<4xf32>
  %b = hlo.optimization_barrier %x : tensor<4xf32>
  %2 = hlo.exp %b : tensor<4xf32>
  %3 = hlo.sin %2 : tensor<4xf32>
  %4 = hlo.add %1, %3 : tensor<4xf32>
  return %4 : tensor<4xf32>
}
