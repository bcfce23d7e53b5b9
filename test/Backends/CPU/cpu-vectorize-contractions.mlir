// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-vectorize-contractions{register-bits=512 rows=8 cache-lanes=64 cache-reduction=2}))' | FileCheck %s --check-prefix=CACHE
// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-vectorize-contractions{register-bits=512 rows=8}))' | FileCheck %s
// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-vectorize-contractions{register-bits=256 rows=6}))' | FileCheck %s --check-prefix=AVX2

// A matmul whose shape divides the 8x32 register tile: one loop nest over
// tiles, the accumulator carried through the k loop in registers and
// updated by FMAs.
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: linalg.
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[ACC:.*]] = vector.transfer_read
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK: vector.fma {{.*}} : vector<32xf32>
// CHECK: vector.transfer_write
func.func @matmul(%a: memref<16x4xf32>, %b: memref<4x64xf32>, %c: memref<16x64xf32>) {
  linalg.matmul ins(%a, %b : memref<16x4xf32>, memref<4x64xf32>) outs(%c : memref<16x64xf32>)
  return
}

// -----

// Cache tiles of 64 lanes by 2 reduction steps around the register tiles;
// the accumulator is reloaded once per reduction block.
// CACHE-LABEL: func.func @matmul_cache_tiles
// CACHE: scf.for {{.*}} = %c0 to %c128 step %c64
// CACHE: scf.for {{.*}} = %c0 to %c4 step %c2
// CACHE: scf.for {{.*}} = %c0 to %c16 step %c8
// CACHE: scf.for {{.*}} = %c0 to %c64 step %c32
// CACHE: vector.transfer_read {{.*}} vector<8x32xf32>
// CACHE: scf.for {{.*}} iter_args
// CACHE: vector.fma
func.func @matmul_cache_tiles(%a: memref<16x4xf32>, %b: memref<4x128xf32>, %c: memref<16x128xf32>) {
  linalg.matmul ins(%a, %b : memref<16x4xf32>, memref<4x128xf32>) outs(%c : memref<16x128xf32>)
  return
}

// -----

// Remainders are peeled into tiles of static size: 10 rows = 8 + 2 and
// 40 columns = 16 + 16 + 8 (two 512-bit registers hold 16 f64 lanes).
// CHECK-LABEL: func.func @matmul_remainders
// CHECK-NOT: linalg.
// CHECK-DAG: vector<8x16xf64>
// CHECK-DAG: vector<8x8xf64>
// CHECK-DAG: vector<2x16xf64>
// CHECK-DAG: vector<2x8xf64>
func.func @matmul_remainders(%a: memref<10x3xf64>, %b: memref<3x40xf64>, %c: memref<10x40xf64>) {
  linalg.matmul ins(%a, %b : memref<10x3xf64>, memref<3x40xf64>) outs(%c : memref<10x40xf64>)
  return
}

// -----

// Lanes that are not a power of two run on the next one: 27 columns on 32
// lanes and 11 rows of 2 on 16. The lanes operand is a masked load, the
// accumulator a masked read and write kept in registers across the k loop
// (one mask for both), and the FMAs are whole registers; no vector of 27
// or 11 lanes is left for LLVM to legalize piece by piece.
// CHECK-LABEL: func.func @ragged_lanes_run_on_a_power_of_two
// CHECK-NOT: vector<27x
// CHECK-NOT: vector<27xf32>
// CHECK-DAG: %[[ROW:.*]] = vector.extract %{{.*}}[0] : vector<32xi1> from vector<1x32xi1>
// CHECK-DAG: %[[TILE:.*]] = vector.create_mask %c8, %c27 : vector<8x32xi1>
// CHECK: %[[ACC:.*]] = vector.transfer_read %{{.*}}[%c0, %c0], %{{.*}}, %[[TILE]] {{.*}} : memref<8x27xf32>, vector<8x32xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK: vector.maskedload %{{.*}}, %[[ROW]], %{{.*}} : memref<4x27xf32>, vector<32xi1>, vector<32xf32> into vector<32xf32>
// CHECK: vector.fma {{.*}} : vector<32xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%c0, %c0], %[[TILE]] {{.*}} : vector<8x32xf32>, memref<8x27xf32>
// CHECK-NOT: vector<27xf32>
// With 256-bit registers (16 f32 lanes a tile), 27 columns are 16 + 11, and the 11 run
// on 16; rows 8 = 6 + 2.
// AVX2-LABEL: func.func @ragged_lanes_run_on_a_power_of_two
// AVX2-DAG: vector.create_mask %c6, %c11 : vector<6x16xi1>
// AVX2-DAG: vector.create_mask %c2, %c11 : vector<2x16xi1>
// AVX2: vector.fma {{.*}} : vector<16xf32>
// AVX2-NOT: vector<11xf32>
func.func @ragged_lanes_run_on_a_power_of_two(%a: memref<8x4xf32>, %b: memref<4x27xf32>, %c: memref<8x27xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x27xf32>) outs(%c : memref<8x27xf32>)
  return
}

// -----

// In f64 (16 lanes a tile): 11 columns run on 16, rows 8 + 2 as before.
// CHECK-LABEL: func.func @ragged_f64_lanes_run_on_a_power_of_two
// CHECK-NOT: vector<{{[0-9]+}}x11xf64>
// CHECK-DAG: vector.create_mask %c8, %c11 : vector<8x16xi1>
// CHECK-DAG: vector.create_mask %c2, %c11 : vector<2x16xi1>
// CHECK: vector.fma {{.*}} : vector<16xf64>
// CHECK-NOT: vector<11xf64>
func.func @ragged_f64_lanes_run_on_a_power_of_two(%a: memref<10x3xf64>, %b: memref<3x11xf64>, %c: memref<10x11xf64>) {
  linalg.matmul ins(%a, %b : memref<10x3xf64>, memref<3x11xf64>) outs(%c : memref<10x11xf64>)
  return
}

// -----

// A batched dot_general as DotGeneralToLinalg emits it (batch dim first,
// rhs contracted on its last dim): the batch loop stays outermost.
// CHECK-LABEL: func.func @batched_dot_general
// CHECK-NOT: linalg.
// CHECK: scf.for
// CHECK: vector.fma {{.*}} : vector<16xf32>
#lhs = affine_map<(b, m, n, k) -> (b, m, k)>
#rhs = affine_map<(b, m, n, k) -> (b, n, k)>
#out = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @batched_dot_general(%a: memref<2x8x5xf32>, %b: memref<2x16x5xf32>, %c: memref<2x8x16xf32>) {
  linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x8x5xf32>, memref<2x16x5xf32>) outs(%c : memref<2x8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The output's contiguous dimension (n) is a free dimension of input 0, as
// in a kernel gradient written as HWOI: the inputs are swapped, so the FMAs
// run along the 32 contiguous lanes with one broadcast of input 1 per row,
// not along the 8 rows with the accumulator gathered column by column.
// CHECK-LABEL: func.func @lanes_in_input_zero
// CHECK-NOT: linalg.
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8x32xf32>)
// CHECK: vector.load %{{.*}} : memref<4x16xf32>, vector<8xf32>
// CHECK: vector.load %{{.*}} : memref<4x64xf32>, vector<32xf32>
// CHECK: vector.broadcast %{{.*}} : f32 to vector<32xf32>
// CHECK: vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT: vector.fma {{.*}} : vector<8xf32>
#lhs_t = affine_map<(n, m, k) -> (k, n)>
#rhs_t = affine_map<(n, m, k) -> (k, m)>
#out_t = affine_map<(n, m, k) -> (m, n)>
func.func @lanes_in_input_zero(%a: memref<4x64xf32>, %b: memref<4x16xf32>, %c: memref<16x64xf32>) {
  linalg.generic {indexing_maps = [#lhs_t, #rhs_t, #out_t], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x64xf32>, memref<4x16xf32>) outs(%c : memref<16x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Integer contractions and mat-vec products keep the scalar path.
// CHECK-LABEL: func.func @integer_matmul
// CHECK: linalg.matmul
func.func @integer_matmul(%a: memref<16x4xi32>, %b: memref<4x64xi32>, %c: memref<16x64xi32>) {
  linalg.matmul ins(%a, %b : memref<16x4xi32>, memref<4x64xi32>) outs(%c : memref<16x64xi32>)
  return
}

// CHECK-LABEL: func.func @matvec
// CHECK: linalg.matvec
func.func @matvec(%a: memref<16x4xf32>, %x: memref<4xf32>, %y: memref<16xf32>) {
  linalg.matvec ins(%a, %x : memref<16x4xf32>, memref<4xf32>) outs(%y : memref<16xf32>)
  return
}

// CHECK-LABEL: func.func @tensor_matmul
// CHECK: linalg.matmul
func.func @tensor_matmul(%a: tensor<16x4xf32>, %b: tensor<4x64xf32>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x4xf32>, tensor<4x64xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

// An operand behind a reshape view that adds a unit dimension (x[0] @ y[0]
// under jit): its transfers stay on the view, which has the operand's rank.
// Folding them through the expand_shape (memref's alias folding in MLIR 22)
// kept a minor-identity map of the smaller rank and read three rows out of
// the unit dimension 0 of memref<1x3x4xf32>.
// CHECK-LABEL: func.func @operand_behind_unit_dim_expand_shape
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<1x3x4xf32>
// CHECK: %[[VIEW:.*]] = memref.expand_shape %[[A]]
// CHECK-NOT: vector.transfer_read %[[A]]
// CHECK: vector.transfer_read %[[VIEW]][{{.*}}]{{.*}} : memref<1x3x1x4xf32>, vector<3x1x1xf32>
// CHECK-NOT: vector.transfer_read %[[A]]
#lhs4 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#rhs4 = affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>
#out4 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>
func.func @operand_behind_unit_dim_expand_shape(%a: memref<1x3x4xf32>, %b: memref<1x4x2xf32>, %c: memref<1x3x2xf32>) {
  %view = memref.expand_shape %a [[0], [1], [2, 3]] output_shape [1, 3, 1, 4] : memref<1x3x4xf32> into memref<1x3x1x4xf32>
  linalg.generic {indexing_maps = [#lhs4, #rhs4, #out4], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%view, %b : memref<1x3x1x4xf32>, memref<1x4x2xf32>) outs(%c : memref<1x3x2xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The accumulator stays in registers even when another op takes a view of
// the output (here the chunks of cpu-parallelize-loops: a fill of one half
// and a matmul into each half): upstream's hoisting gives up on any view
// user of the buffer, and every FMA step then stored and reloaded the tile.
// CHECK-LABEL: func.func @accumulator_hoisted_despite_views_of_the_output
// CHECK: scf.parallel
// CHECK: %[[ACC:.*]] = vector.transfer_read %[[C:[a-z0-9_]+]][
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK-NOT: vector.transfer_write
// CHECK: vector.fma
// CHECK-NOT: vector.transfer_write
// CHECK: scf.yield
// CHECK: vector.transfer_write %[[SUM]], %[[C]][
func.func @accumulator_hoisted_despite_views_of_the_output(%a: memref<16x4xf32>, %b: memref<4x64xf32>, %c: memref<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c16) step (%c8) {
    %rows = memref.subview %c[%i, 0] [8, 64] [1, 1] : memref<16x64xf32> to memref<8x64xf32, strided<[64, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%rows : memref<8x64xf32, strided<[64, 1], offset: ?>>)
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c8) {
    %lhs = memref.subview %a[%i, 0] [8, 4] [1, 1] : memref<16x4xf32> to memref<8x4xf32, strided<[4, 1], offset: ?>>
    %out = memref.subview %c[%i, 0] [8, 64] [1, 1] : memref<16x64xf32> to memref<8x64xf32, strided<[64, 1], offset: ?>>
    linalg.matmul ins(%lhs, %b : memref<8x4xf32, strided<[4, 1], offset: ?>>, memref<4x64xf32>) outs(%out : memref<8x64xf32, strided<[64, 1], offset: ?>>)
    scf.reduce
  }
  return
}

// -----

// An operand that is a view of the output's own allocation may overlap the
// accumulator tile: the tile is then stored and reloaded at every step.
// CHECK-LABEL: func.func @accumulator_kept_in_memory_when_an_operand_views_the_output
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: vector.transfer_write
func.func @accumulator_kept_in_memory_when_an_operand_views_the_output(%buffer: memref<16x68xf32>, %b: memref<4x64xf32>) {
  %lhs = memref.subview %buffer[0, 64] [16, 4] [1, 1] : memref<16x68xf32> to memref<16x4xf32, strided<[68, 1], offset: 64>>
  %out = memref.subview %buffer[0, 0] [16, 64] [1, 1] : memref<16x68xf32> to memref<16x64xf32, strided<[68, 1]>>
  linalg.matmul ins(%lhs, %b : memref<16x4xf32, strided<[68, 1], offset: 64>>, memref<4x64xf32>) outs(%out : memref<16x64xf32, strided<[68, 1]>>)
  return
}

// -----

// A body with more than the multiply-add (a negation fused into a generic
// contraction) stays a generic: restating it as linalg.contract would drop
// the negation (found by fuzzing the cuda backend, seed 314, program 205).
// CHECK-LABEL: func.func @negated_operand_is_kept
// CHECK-NOT: vector.fma
// CHECK: linalg.generic
// CHECK: arith.negf
func.func @negated_operand_is_kept(%a: memref<1x2xf64>, %b: memref<1x1x2xf64>, %o: memref<2x1x2xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d0)>, affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<1x2xf64>, memref<1x1x2xf64>) outs(%o : memref<2x1x2xf64>) {
  ^bb0(%in: f64, %in_0: f64, %out: f64):
    %n = arith.negf %in : f64
    %m = arith.mulf %n, %in_0 : f64
    %s = arith.addf %out, %m : f64
    linalg.yield %s : f64
  }
  return
}
