// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-fuse-elementwise-ops))' | FileCheck %s

// tanh feeds a contraction that reads each of its elements once per
// column of %y: fusing would recompute it, so the two ops stay apart.
// CHECK-LABEL: func.func @no_fusion_into_contraction
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: math.tanh
// CHECK: linalg.generic {{.*}} ins(%[[T]], %{{.*}} :
// CHECK-NOT: math.tanh
#id = affine_map<(d0, d1) -> (d0, d1)>
#lhs = affine_map<(d0, d1, d2) -> (d2, d0)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @no_fusion_into_contraction(%x: tensor<4x3xf32>, %y: tensor<4x5xf32>, %acc: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %e = tensor.empty() : tensor<4x3xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x3xf32>) outs(%e : tensor<4x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.tanh %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x3xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%t, %y : tensor<4x3xf32>, tensor<4x5xf32>) outs(%acc : tensor<3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %c, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// -----

// A row sum reads each tanh once: fused into one generic.
// CHECK-LABEL: func.func @fusion_into_row_sum
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: math.tanh
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @fusion_into_row_sum(%x: tensor<4x3xf32>, %acc: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4x3xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x3xf32>) outs(%e : tensor<4x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.tanh %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%t : tensor<4x3xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %c: f32):
    %0 = arith.addf %c, %a : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// hlo.reduce lowers to linalg.reduce: it is generalized so that the square
// fuses into it and x is read once, with no temporary (sum(x * x)).
// CHECK-LABEL: func.func @fusion_into_linalg_reduce
// CHECK-NOT: tensor.empty() : tensor<16xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["reduction"]}
// CHECK-SAME: ins(%{{.*}} : tensor<16xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf {{.*}} fastmath<reassoc>
// CHECK-NOT: linalg.generic
#id1 = affine_map<(d0) -> (d0)>
func.func @fusion_into_linalg_reduce(%x: tensor<16xf32>, %acc: tensor<f32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<16xf32>
  %sq = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %r = linalg.reduce ins(%sq : tensor<16xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init fastmath<reassoc> : f32
      linalg.yield %0 : f32
    }
  return %r : tensor<f32>
}

// -----

// A softmax-like max reduction whose input has a second use: the producer
// is computed once (not fused), and the reduce is still generalized.
// CHECK-LABEL: func.func @no_fusion_of_shared_producer_into_reduce
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[E]] :
// CHECK-NOT: math.exp
// CHECK: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @no_fusion_of_shared_producer_into_reduce(%x: tensor<4x8xf32>, %acc: tensor<4xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %ex = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %r = linalg.reduce ins(%ex : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init fastmath<reassoc> : f32
      linalg.yield %0 : f32
    }
  return %r, %ex : tensor<4xf32>, tensor<4x8xf32>
}

// -----

// Constant folding enumerates every element of the result: a transpose of a
// splat with 2^33 elements stays a loop (filling the splat's value) instead
// of aborting in the folder (found by make fuzz-hlo-opt, seed 3).
// CHECK-LABEL: func.func @transpose_of_a_huge_splat_is_not_enumerated
// CHECK: %[[C:.*]] = arith.constant 7.000000e+00 : f32
// CHECK: linalg.generic
// CHECK: linalg.yield %[[C]] : f32
func.func @transpose_of_a_huge_splat_is_not_enumerated() -> tensor<2x4294967297xf32> {
  %c = arith.constant dense<7.0> : tensor<4294967297x2xf32>
  %e = tensor.empty() : tensor<2x4294967297xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4294967297x2xf32>) outs(%e : tensor<2x4294967297xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x4294967297xf32>
  return %t : tensor<2x4294967297xf32>
}

// -----

// A small constant still folds through its consumer.
// CHECK-LABEL: func.func @transpose_of_a_small_constant_folds
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<{{\[}}[1, 3, 5], [2, 4, 6]]> : tensor<2x3xi32>
// CHECK-NEXT: return %[[C]]
func.func @transpose_of_a_small_constant_folds() -> tensor<2x3xi32> {
  %c = arith.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  %e = tensor.empty() : tensor<2x3xi32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<3x2xi32>) outs(%e : tensor<2x3xi32>) {
  ^bb0(%in: i32, %out: i32):
    linalg.yield %in : i32
  } -> tensor<2x3xi32>
  return %t : tensor<2x3xi32>
}
