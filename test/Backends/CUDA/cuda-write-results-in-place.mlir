// RUN: hlo-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(cuda-write-results-in-place))" | FileCheck %s

// The temporary a launch writes and a copy then moves into the output
// becomes the output.
// CHECK-LABEL: func.func @forwarded
// CHECK-SAME: (%[[X:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>)
// CHECK-NOT: memref.alloc
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK-NOT: memref.copy
func.func @forwarded(%x: memref<4xf32>, %out: memref<4xf32>) {
  %t = memref.alloc() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf32>
  memref.store %v, %t[%c0] : memref<4xf32>
  memref.copy %t, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Kept: the temporary is read after the copy, or the output is also
// written elsewhere, or the source is an input.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: memref.copy
func.func @kept(%x: memref<4xf32>, %a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) {
  %t = memref.alloc() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf32>
  memref.store %v, %t[%c0] : memref<4xf32>
  memref.copy %t, %a : memref<4xf32> to memref<4xf32>
  %w = memref.load %t[%c0] : memref<4xf32>
  memref.store %w, %b[%c0] : memref<4xf32>
  %u = memref.alloc() : memref<4xf32>
  memref.copy %u, %b : memref<4xf32> to memref<4xf32>
  memref.copy %x, %c : memref<4xf32> to memref<4xf32>
  return
}
