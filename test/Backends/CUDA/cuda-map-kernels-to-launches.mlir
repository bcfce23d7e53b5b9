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

// A contraction with its fill, bias and activation: one launch of 16x16
// output tiles (2x2 of them for 20x18), 256 threads, the A and B tiles in
// workgroup memory, and a loop over k in steps of 16 with a barrier after
// the tiles' copy and another after their use. Each thread starts from its
// element's fill, adds the products of the tile's valid k only (at most
// 33 - k0), then stores and runs the bias and relu at its element.
// CHECK-LABEL: func.func private @tiled_matmul
// CHECK-DAG: %[[C33:.*]] = arith.constant 33 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[GRID:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[BLOCK:.*]] = arith.constant 256 : index
// CHECK: %[[T:.*]] = memref.alloc() : memref<20x18xf32>
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[GRID]], {{.*}} threads(%[[TID:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BLOCK]], {{.*}} workgroup(%[[AT:.*]] : memref<16x16xf32, #gpu.address_space<workgroup>>, %[[BT:.*]] : memref<16x16xf32, #gpu.address_space<workgroup>>)
// CHECK-DAG: %[[TY:.*]] = arith.divui %[[TID]], %[[C16]]
// CHECK-DAG: %[[TX:.*]] = arith.remui %[[TID]], %[[C16]]
// CHECK: %[[INIT:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK:   memref.store %{{.*}}, %[[T]]
// CHECK:   %[[FILLED:.*]] = memref.load %[[T]]
// CHECK:   scf.yield %[[FILLED]]
// CHECK: %[[ACC:.*]] = scf.for %[[K0:.*]] = %{{.*}} to %[[C33]] step %[[C16]] iter_args(%[[A:.*]] = %[[INIT]]) -> (f32) {
// CHECK:   scf.if
// CHECK:     memref.load %arg0
// CHECK:     memref.store %{{.*}}, %[[AT]][%[[TY]], %[[TX]]]
// CHECK:   scf.if
// CHECK:     memref.load %arg1
// CHECK:     memref.store %{{.*}}, %[[BT]][%[[TY]], %[[TX]]]
// CHECK:   gpu.barrier
// CHECK:   %[[LEFT:.*]] = arith.subi %[[C33]], %[[K0]]
// CHECK:   %[[VALID:.*]] = arith.minsi %[[LEFT]], %[[C16]]
// CHECK:   scf.if %{{.*}} -> (f32) {
// CHECK:     scf.for %[[KK:.*]] = %{{.*}} to %[[VALID]] step %{{.*}} iter_args(%[[P:.*]] = %[[A]])
// CHECK:       %[[X:.*]] = memref.load %[[AT]][%[[TY]], %[[KK]]]
// CHECK:       %[[Y:.*]] = memref.load %[[BT]][%[[KK]], %[[TX]]]
// CHECK:       %[[XY:.*]] = arith.mulf %[[X]], %[[Y]]
// CHECK:       arith.addf %[[P]], %[[XY]]
// CHECK:   gpu.barrier
// CHECK: scf.if
// CHECK:   memref.store %[[ACC]], %[[T]]
// CHECK:   memref.load %arg2
// CHECK:   arith.maximumf
// CHECK:   memref.store %{{.*}}, %arg3
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
func.func private @tiled_matmul(%a: memref<20x33xf32>, %b: memref<33x18xf32>, %bias: memref<18xf32>, %c: memref<20x18xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<20x18xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<20x18xf32>)
  linalg.matmul ins(%a, %b : memref<20x33xf32>, memref<33x18xf32>) outs(%t : memref<20x18xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t, %bias : memref<20x18xf32>, memref<18xf32>) outs(%c : memref<20x18xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A batched contraction with its operands in the other order (B first)
// and a widening body: a block per tile per batch (3 x 1 x 2), tiles of
// each operand's own element type.
// CHECK-LABEL: func.func private @tiled_batch_matmul
// CHECK-DAG: %[[GRID:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[BLOCK:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[GRID]], {{.*}} threads({{.*}}) in (%{{.*}} = %[[BLOCK]], {{.*}} workgroup(%[[AT:.*]] : memref<16x16xf16, #gpu.address_space<workgroup>>, %[[BT:.*]] : memref<16x16xbf16, #gpu.address_space<workgroup>>)
// CHECK: scf.for
// CHECK:   memref.load %arg1
// CHECK:   memref.store %{{.*}}, %[[AT]]
// CHECK:   memref.load %arg0
// CHECK:   memref.store %{{.*}}, %[[BT]]
// CHECK:   gpu.barrier
// CHECK:   scf.for
// CHECK:     %[[X:.*]] = memref.load %[[AT]]
// CHECK:     %[[Y:.*]] = memref.load %[[BT]]
// CHECK-DAG: arith.extf %[[X]]
// CHECK-DAG: arith.extf %[[Y]]
// CHECK:     arith.mulf
// CHECK:     arith.addf
// CHECK:   gpu.barrier
func.func private @tiled_batch_matmul(%b: memref<3x24x20xbf16>, %a: memref<3x5x24xf16>, %c: memref<3x5x20xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%b, %a : memref<3x24x20xbf16>, memref<3x5x24xf16>) outs(%c : memref<3x5x20xf32>) {
  ^bb0(%y: bf16, %x: f16, %o: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// B read transposed (n, k) is still a product of an A side without n and
// a B side without m: tiled, each thread gathering B's element by its map.
// CHECK-LABEL: func.func private @transposed_b
// CHECK: gpu.launch {{.*}} workgroup(%[[AT:.*]] : memref<16x16xf32, #gpu.address_space<workgroup>>, %[[BT:.*]] : memref<16x16xf32, #gpu.address_space<workgroup>>)
// CHECK-DAG: %[[TY:.*]] = arith.divui
// CHECK-DAG: %[[TX:.*]] = arith.remui
// CHECK: %[[K:.*]] = arith.addi %{{.*}}, %[[TY]]
// CHECK: memref.load %arg1[%[[TX]], %[[K]]]
// CHECK: memref.store %{{.*}}, %[[BT]][%[[TY]], %[[TX]]]
// CHECK-NOT: gpu.all_reduce
func.func private @transposed_b(%a: memref<2x20xf32>, %b: memref<3x20xf32>, %c: memref<2x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x20xf32>, memref<3x20xf32>) outs(%c : memref<2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A contraction that does not add (max-plus) keeps a block per output
// element with a block reduction over k.
// CHECK-LABEL: func.func private @max_plus
// CHECK-NOT: workgroup
// CHECK: gpu.launch
// CHECK: gpu.all_reduce maximumf
func.func private @max_plus(%a: memref<2x5xf32>, %b: memref<5x3xf32>, %c: memref<2x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d2, d1)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x5xf32>, memref<5x3xf32>) outs(%c : memref<2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.addf %x, %y : f32
    %s = arith.maximumf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func private @consumer_reads_a_neighbour
// CHECK-NOT: workgroup
// CHECK: gpu.launch
// CHECK-NOT: workgroup
// CHECK: return
func.func private @consumer_reads_a_neighbour(%a: memref<2x5xf32>, %b: memref<5x3xf32>, %c: memref<2x3xf32>) {
  %t = memref.alloc() : memref<2x3xf32>
  linalg.matmul ins(%a, %b : memref<2x5xf32>, memref<5x3xf32>) outs(%t : memref<2x3xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 2 - d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<2x3xf32>) outs(%c : memref<2x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
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

// -----

// A convolution (3x3, SAME, NHWC/HWIO), whose image element the body gathers
// with linalg.index and a select to 0 for the padding: output pixels
// (n, oh, ow: 128) are the rows, out-channels (4) the columns, (c, kh, kw)
// the depth (27) in loop order. The A tile's copy runs the gather for the
// thread's pixel and tap; the inner loop only multiplies and adds.
// CHECK-LABEL: func.func private @tiled_convolution
// CHECK-DAG: %[[GRID:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C27:.*]] = arith.constant 27 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[GRID]], {{.*}} workgroup(%[[AT:.*]] : memref<16x16xf32, #gpu.address_space<workgroup>>, %[[BT:.*]] : memref<16x16xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C27]] step
// CHECK:   scf.if
// CHECK:     %[[PIXEL:.*]] = memref.load %arg0
// CHECK:     %[[PADDED:.*]] = arith.select %{{.*}}, %[[PIXEL]], %{{.*}} : f32
// CHECK:     memref.store %[[PADDED]], %[[AT]]
// CHECK:   scf.if
// CHECK:     memref.load %arg1
// CHECK:     memref.store %{{.*}}, %[[BT]]
// CHECK:   gpu.barrier
// CHECK:   scf.for
// CHECK-NOT: memref.load %arg0
// CHECK:     arith.mulf
// CHECK-NEXT: arith.addf
// CHECK:   gpu.barrier
func.func private @tiled_convolution(%arg0: memref<2x8x8x3xf32>, %arg1: memref<3x3x3x4xf32>, %arg2: memref<2x8x8x4xf32>) {
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%arg2 : memref<2x8x8x4xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d5, d6, d4, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg1 : memref<3x3x3x4xf32>) outs(%arg2 : memref<2x8x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = linalg.index 0 : index
    %1 = linalg.index 2 : index
    %2 = linalg.index 3 : index
    %3 = linalg.index 4 : index
    %4 = linalg.index 5 : index
    %5 = linalg.index 6 : index
    %6 = affine.apply affine_map<()[s0, s1] -> (s0 + s1)>()[%1, %4]
    %7 = affine.apply affine_map<()[s0, s1] -> (s0 + s1)>()[%2, %5]
    %8 = arith.subi %6, %c1 : index
    %9 = arith.cmpi sge, %6, %c1 : index
    %10 = arith.cmpi slt, %8, %c8 : index
    %11 = arith.andi %9, %10 : i1
    %12 = arith.select %11, %8, %c0 : index
    %13 = arith.subi %7, %c1 : index
    %14 = arith.cmpi sge, %7, %c1 : index
    %15 = arith.cmpi slt, %13, %c8 : index
    %16 = arith.andi %14, %15 : i1
    %17 = arith.select %16, %13, %c0 : index
    %18 = arith.andi %11, %16 : i1
    %19 = memref.load %arg0[%0, %12, %17, %3] : memref<2x8x8x3xf32>
    %20 = arith.select %18, %19, %cst : f32
    %21 = arith.mulf %20, %in : f32
    %22 = arith.addf %out, %21 : f32
    linalg.yield %22 : f32
  }
  return
}
