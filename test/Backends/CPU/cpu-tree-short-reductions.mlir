// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-tree-short-reductions))' | FileCheck %s

// A sum of 5 elements per row: each position is an operand of its own and
// the values are added pairwise, then added to the accumulator.
// CHECK-DAG: #[[P0:.*]] = affine_map<(d0) -> (d0, 0)>
// CHECK-DAG: #[[P1:.*]] = affine_map<(d0) -> (d0, 1)>
// CHECK-DAG: #[[P4:.*]] = affine_map<(d0) -> (d0, 4)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @row_sum_of_five
// CHECK: linalg.generic {indexing_maps = [#[[P0]], #[[P1]], #{{.*}}, #{{.*}}, #[[P4]], #[[ID]]], iterator_types = ["parallel"]}
// CHECK-SAME: ins(%[[X:.*]], %[[X]], %[[X]], %[[X]], %[[X]] :
// CHECK: ^bb0(%[[A0:.*]]: f32, %[[A1:.*]]: f32, %[[A2:.*]]: f32, %[[A3:.*]]: f32, %[[A4:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[S01:.*]] = arith.addf %[[A0]], %[[A1]] fastmath<reassoc>
// CHECK: %[[S23:.*]] = arith.addf %[[A2]], %[[A3]] fastmath<reassoc>
// CHECK: %[[S0123:.*]] = arith.addf %[[S01]], %[[S23]] fastmath<reassoc>
// CHECK: %[[S:.*]] = arith.addf %[[S0123]], %[[A4]] fastmath<reassoc>
// CHECK: %[[R:.*]] = arith.addf %[[S]], %[[ACC]] fastmath<reassoc>
// CHECK: linalg.yield %[[R]]
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @row_sum_of_five(%x: tensor<4x5xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x5xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Two reduction loops (2 x 3 positions) around a parallel one; the fused
// producer is computed once per position, an operand the reduction does not
// index is read once, and linalg.index of a reduction loop becomes that
// position's constant while the parallel loop keeps its index, renumbered.
// CHECK-DAG: #[[Q00:.*]] = affine_map<(d0) -> (0, d0, 0)>
// CHECK-DAG: #[[Q12:.*]] = affine_map<(d0) -> (1, d0, 2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @product_over_two_loops
// CHECK: linalg.generic {indexing_maps = [#[[Q00]], #{{.*}}, #{{.*}}, #{{.*}}, #{{.*}}, #[[Q12]], #[[B]], #[[B]]], iterator_types = ["parallel"]}
// CHECK-COUNT-6: arith.sitofp
// CHECK-NOT: arith.sitofp
// CHECK: %[[P01:.*]] = arith.mulf {{.*}} fastmath<reassoc>
// CHECK: %[[P23:.*]] = arith.mulf {{.*}} fastmath<reassoc>
// CHECK: %[[P45:.*]] = arith.mulf {{.*}} fastmath<reassoc>
// CHECK: %[[P0123:.*]] = arith.mulf %[[P01]], %[[P23]] fastmath<reassoc>
// CHECK: %[[P:.*]] = arith.mulf %[[P0123]], %[[P45]] fastmath<reassoc>
// CHECK: arith.mulf %[[P]], %{{.*}} fastmath<reassoc>
#x = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#b = affine_map<(d0, d1, d2) -> (d1)>
#o = affine_map<(d0, d1, d2) -> (d1)>
func.func @product_over_two_loops(%x: tensor<2x7x3xf32>, %b: tensor<7xf32>, %init: tensor<7xf32>) -> tensor<7xf32> {
  %r = linalg.generic {indexing_maps = [#x, #b, #o], iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%x, %b : tensor<2x7x3xf32>, tensor<7xf32>) outs(%init : tensor<7xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %ij = arith.addi %i, %j : index
    %ijk = arith.addi %ij, %k : index
    %n = arith.index_cast %ijk : index to i32
    %f = arith.sitofp %n : i32 to f32
    %0 = arith.mulf %a, %c : f32
    %1 = arith.addf %0, %f : f32
    %2 = arith.mulf %1, %acc fastmath<reassoc> : f32
    linalg.yield %2 : f32
  } -> tensor<7xf32>
  return %r : tensor<7xf32>
}

// -----

// The positions' constants replace the reduction loop's index (i + 0
// folds away); the parallel loop's index is the new loop 0.
// CHECK-LABEL: func.func @index_of_reduction_loop
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NOT: linalg.index 1
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: arith.index_cast %[[I]]
// CHECK: %[[J:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[J1:.*]] = arith.addi %[[J]], %[[C1]]
// CHECK-NEXT: arith.index_cast %[[J1]]
#in2 = affine_map<(d0, d1) -> (d0, d1)>
#out2 = affine_map<(d0, d1) -> (d0)>
func.func @index_of_reduction_loop(%x: tensor<3x2xf32>, %init: tensor<3xf32>) -> tensor<3xf32> {
  %r = linalg.generic {indexing_maps = [#in2, #out2], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x2xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %ik = arith.addi %i, %k : index
    %n = arith.index_cast %ik : index to i32
    %f = arith.sitofp %n : i32 to f32
    %0 = arith.addf %a, %f : f32
    %1 = arith.addf %0, %acc fastmath<reassoc> : f32
    linalg.yield %1 : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// Left as loops: 17 positions (LLVM vectorizes long reductions), a
// contraction (its add is not reassociable), integer and max reductions
// (exact in any order), an accumulator the body reads twice, a dynamic
// extent, a window (its map is not a projection), and buffers.
// CHECK-LABEL: func.func @not_rewritten
// CHECK-COUNT-7: iterator_types = ["parallel", "reduction"]
#i = affine_map<(d0, d1) -> (d0, d1)>
#o3 = affine_map<(d0, d1) -> (d0)>
#window = affine_map<(d0, d1) -> (d0 + d1)>
#taps = affine_map<(d0, d1) -> (d1)>
func.func @not_rewritten(%x: tensor<4x17xf32>, %y: tensor<4x3xf32>, %n: tensor<4x3xi32>, %d: tensor<4x?xf32>, %init: tensor<4xf32>, %iinit: tensor<4xi32>, %w: tensor<6xf32>, %k: tensor<3xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %long = linalg.generic {indexing_maps = [#i, #o3], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x17xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %contraction = linalg.generic {indexing_maps = [#i, #i, #o3], iterator_types = ["parallel", "reduction"]}
      ins(%y, %y : tensor<4x3xf32>, tensor<4x3xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  %int = linalg.generic {indexing_maps = [#i, #o3], iterator_types = ["parallel", "reduction"]}
      ins(%n : tensor<4x3xi32>) outs(%iinit : tensor<4xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %0 = arith.addi %a, %acc : i32
    linalg.yield %0 : i32
  } -> tensor<4xi32>
  %max = linalg.generic {indexing_maps = [#i, #o3], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4x3xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.maximumf %a, %acc fastmath<reassoc> : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %twice = linalg.generic {indexing_maps = [#i, #o3], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4x3xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.mulf %a, %acc : f32
    %1 = arith.addf %0, %acc fastmath<reassoc> : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  %dynamic = linalg.generic {indexing_maps = [#i, #o3], iterator_types = ["parallel", "reduction"]}
      ins(%d : tensor<4x?xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %window = linalg.generic {indexing_maps = [#window, #taps, #o3], iterator_types = ["parallel", "reduction"]}
      ins(%w, %k : tensor<6xf32>, tensor<3xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %0, %acc fastmath<reassoc> : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  return %long, %contraction, %int, %max, %twice, %dynamic, %window : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @buffers_are_left_alone
// CHECK: iterator_types = ["parallel", "reduction"]
#ib = affine_map<(d0, d1) -> (d0, d1)>
#ob = affine_map<(d0, d1) -> (d0)>
func.func @buffers_are_left_alone(%x: memref<4x5xf32>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [#ib, #ob], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x5xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %a, %acc fastmath<reassoc> : f32
    linalg.yield %0 : f32
  }
  return
}
