// RUN: hlo-opt %s --split-input-file --split-unaliased-deallocs | FileCheck %s

// Two allocations used only by ops that return no memref (one through a
// view) get deallocs of their own, with their conditions; the function
// argument and the allocation a loop carries stay in the shared dealloc
// with the retained value.
// CHECK-LABEL: func.func @split
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK: %[[C:.*]] = memref.alloc() : memref<4xf32>
// CHECK: bufferization.dealloc (%[[A]] : memref<4xf32>) if (%true)
// CHECK-NEXT: bufferization.dealloc (%[[B]] : memref<2x2xf32>) if (%arg2)
// CHECK-NEXT: bufferization.dealloc (%arg0, %[[C]] : memref<4xf32>, memref<4xf32>) if (%arg1, %true) retain (%{{.*}} : memref<4xf32>)
func.func @split(%arg: memref<4xf32>, %c: i1, %d: i1) -> memref<4xf32> {
  %true = arith.constant true
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
  %b = memref.alloc() : memref<2x2xf32>
  %flat = memref.collapse_shape %b [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  memref.copy %a, %flat : memref<4xf32> to memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %carried = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %carried) -> memref<4xf32> {
    scf.yield %acc : memref<4xf32>
  }
  %kept = bufferization.dealloc (%arg, %a, %b, %carried : memref<4xf32>, memref<4xf32>, memref<2x2xf32>, memref<4xf32>)
      if (%c, %true, %d, %true) retain (%r : memref<4xf32>)
  return %r : memref<4xf32>
}

// -----

// A view of the allocation among the dealloc's operands, or the
// allocation named twice, could be one allocation with another operand:
// nothing is split off.
// CHECK-LABEL: func.func @views_and_repeats
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}} : memref<8xf32>, memref<4xf32, strided<[1], offset: 4>>)
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>)
// CHECK-NOT: bufferization.dealloc
func.func @views_and_repeats(%c: i1) {
  %a = memref.alloc() : memref<8xf32>
  %view = memref.subview %a[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  bufferization.dealloc (%a, %view : memref<8xf32>, memref<4xf32, strided<[1], offset: 4>>) if (%c, %c)
  %b = memref.alloc() : memref<4xf32>
  bufferization.dealloc (%b, %b : memref<4xf32>, memref<4xf32>) if (%c, %c)
  return
}

// -----

// An allocation that a call returns a view of, or that a function returns,
// may be another value: it stays.
// CHECK-LABEL: func.func @escapes
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>) if (%arg0, %arg0) retain
func.func private @identity(memref<4xf32>) -> memref<4xf32>
func.func @escapes(%c: i1) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %r = func.call @identity(%a) : (memref<4xf32>) -> memref<4xf32>
  %kept:2 = bufferization.dealloc (%a, %b : memref<4xf32>, memref<4xf32>) if (%c, %c) retain (%r, %b : memref<4xf32>, memref<4xf32>)
  return %r : memref<4xf32>
}
