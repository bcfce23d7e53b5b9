// RUN: hlo-opt %s -split-input-file --pass-pipeline="builtin.module(cuda-map-kernels-to-launches,canonicalize,cse)" | FileCheck %s

// One op without reductions: a thread per element over a 1-D grid, the
// last block guarded.
// CHECK-LABEL: func.func private @elementwise
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[GRID:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[BLOCK:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BLOCK]],
// CHECK: %[[ROW:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: %[[I:.*]] = arith.addi %[[ROW]], %[[T]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %{{.*}} : index
// CHECK: scf.if %[[IN]]
// CHECK: memref.load %arg0
// CHECK: math.exp
// CHECK: memref.store
// CHECK-NOT: linalg.generic
func.func private @elementwise(%x: memref<300xf32>, %y: memref<300xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<300xf32>) outs(%y : memref<300xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A fill then a row sum: one block per row; the sum is a partial per
// thread from -0 (the identity of a float sum), gpu.all_reduce, and thread 0
// folding in the output's initial value, after a barrier.
// CHECK-LABEL: func.func private @row_sum
// CHECK-DAG: %[[ROWS:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[NEG0:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ROWS]],
// CHECK: memref.store %{{.*}}, %arg1[%[[B]]]
// CHECK: gpu.barrier
// CHECK: %[[P:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[NEG0]]) -> (f32)
// CHECK: %[[S:.*]] = gpu.all_reduce add %[[P]] uniform
// CHECK: scf.if
// CHECK: %[[OLD:.*]] = memref.load %arg1[%[[B]]]
// CHECK: arith.addf %[[S]], %[[OLD]]
func.func private @row_sum(%x: memref<4x1000xf32>, %y: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x1000xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A contraction: rows are the output's rows and columns; the reduction
// over k is a block reduction per output element. The block shrinks to
// the 32-thread multiple that covers k.
// CHECK-LABEL: func.func private @matmul
// CHECK-DAG: %[[GRID:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[BLOCK:.*]] = arith.constant 32 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[GRID]], {{.*}} threads({{.*}}) in (%{{.*}} = %[[BLOCK]],
// CHECK: arith.mulf
// CHECK: gpu.all_reduce add
func.func private @matmul(%a: memref<2x5xf32>, %b: memref<5x3xf32>, %c: memref<2x3xf32>) {
  linalg.matmul ins(%a, %b : memref<2x5xf32>, memref<5x3xf32>) outs(%c : memref<2x3xf32>)
  return
}

// -----

// A reduction with a combiner gpu.all_reduce does not have (a variadic
// argmax-like body) runs its reduction loop per output, in order.
// CHECK-LABEL: func.func private @sequential
// CHECK: gpu.launch
// CHECK-NOT: gpu.all_reduce
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, i32)
func.func private @sequential(%x: memref<8x16xf32>, %v: memref<8xf32>, %i: memref<8xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x16xf32>) outs(%v, %i : memref<8xf32>, memref<8xi32>) {
  ^bb0(%a: f32, %best: f32, %at: i32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %a, %best : f32
    %nb = arith.select %gt, %a, %best : f32
    %ni = arith.select %gt, %ji, %at : i32
    linalg.yield %nb, %ni : f32, i32
  }
  return
}

// -----

// Ops that share no row space (a transpose feeding a reduction along the
// other dimension) get a launch each.
// CHECK-LABEL: func.func private @no_shared_rows
// CHECK-COUNT-2: gpu.launch
func.func private @no_shared_rows(%x: memref<4x8xf32>, %y: memref<4xf32>) {
  %t = memref.alloc() : memref<8x4xf32>
  linalg.transpose ins(%x : memref<4x8xf32>) outs(%t : memref<8x4xf32>) permutation = [1, 0]
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%t : memref<8x4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Loops the mapping does not know (a scatter's) run on one thread.
// CHECK-LABEL: func.func private @serial
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads({{.*}}) in (%{{.*}} = %[[ONE]],
// CHECK: scf.for
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func private @serial(%x: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c1 to %c8 step %c1 {
    %j = arith.subi %i, %c1 : index
    %p = memref.load %x[%j] : memref<8xf32>
    %v = memref.load %x[%i] : memref<8xf32>
    %s = arith.addf %p, %v : f32
    memref.store %s, %x[%i] : memref<8xf32>
  }
  return
}
