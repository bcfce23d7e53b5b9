// RUN: hlo-opt %s --pass-pipeline='builtin.module(func.func(cpu-split-reductions{min-reduction=64}))' | FileCheck %s

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// A full float sum (reassociable, as hlo.reduce marks it) becomes 16
// partial sums of consecutive blocks, then a sum of the partials.
// CHECK-LABEL: func.func @full_sum
// CHECK: %[[BLOCKS:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [16, 64] : tensor<1024xf32> into tensor<16x64xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<16xf32>)
// CHECK: %[[PARTIALS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[BLOCKS]] : tensor<16x64xf32>) outs(%[[INIT]] : tensor<16xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf {{.*}} fastmath<reassoc>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[PARTIALS]] : tensor<16xf32>)
func.func @full_sum(%x: tensor<1024xf32>, %init: tensor<f32>) -> tensor<f32> {
  %0 = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]}
      ins(%x : tensor<1024xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}

// Float max is exact in any order; its partials start at its identity.
// CHECK-LABEL: func.func @full_max
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: tensor<16xf32>
// CHECK: arith.maximumf
func.func @full_max(%x: tensor<1024xf32>, %init: tensor<f32>) -> tensor<f32> {
  %0 = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]}
      ins(%x : tensor<1024xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}

// Two long rows: two outputs, each split into 16 partials, which lie
// next to each other.
// CHECK-LABEL: func.func @two_long_rows
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [2, 16, 64]
// CHECK: outs(%{{.*}} : tensor<2x16xi32>)
// CHECK: arith.addi
func.func @two_long_rows(%x: tensor<2x1024xi32>, %init: tensor<2xi32>) -> tensor<2xi32> {
  %0 = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x1024xi32>) outs(%init : tensor<2xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.addi %a, %acc : i32
    linalg.yield %s : i32
  } -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// A loop of 1000 takes the largest power of two up to 16 that divides it: 8.
// CHECK-LABEL: func.func @divisor
// CHECK: output_shape [8, 125]
func.func @divisor(%x: tensor<1000xi32>, %init: tensor<i32>) -> tensor<i32> {
  %0 = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]}
      ins(%x : tensor<1000xi32>) outs(%init : tensor<i32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.addi %a, %acc : i32
    linalg.yield %s : i32
  } -> tensor<i32>
  return %0 : tensor<i32>
}

// Left alone: a float sum not marked reassoc (its order is fixed), an odd
// extent, a reduction to many outputs (its rows are the threads' work), a
// short one, and a contraction-like body with two reduction loops.
// CHECK-LABEL: func.func @ordered_sum
// CHECK-NOT: tensor.expand_shape
// CHECK-LABEL: func.func @odd
// CHECK-NOT: tensor.expand_shape
// CHECK-LABEL: func.func @many_rows
// CHECK-NOT: tensor.expand_shape
// CHECK-LABEL: func.func @short
// CHECK-NOT: tensor.expand_shape
// CHECK-LABEL: func.func @two_reduction_loops
// CHECK-NOT: tensor.expand_shape
// CHECK-LABEL: func.func @window
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @ordered_sum(%x: tensor<1024xf32>, %init: tensor<f32>) -> tensor<f32> {
  %0 = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]}
      ins(%x : tensor<1024xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @odd(%x: tensor<1023xi32>, %init: tensor<i32>) -> tensor<i32> {
  %0 = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]}
      ins(%x : tensor<1023xi32>) outs(%init : tensor<i32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.addi %a, %acc : i32
    linalg.yield %s : i32
  } -> tensor<i32>
  return %0 : tensor<i32>
}
func.func @many_rows(%x: tensor<64x1024xi32>, %init: tensor<64xi32>) -> tensor<64xi32> {
  %0 = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x1024xi32>) outs(%init : tensor<64xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.addi %a, %acc : i32
    linalg.yield %s : i32
  } -> tensor<64xi32>
  return %0 : tensor<64xi32>
}
func.func @short(%x: tensor<32xi32>, %init: tensor<i32>) -> tensor<i32> {
  %0 = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]}
      ins(%x : tensor<32xi32>) outs(%init : tensor<i32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.addi %a, %acc : i32
    linalg.yield %s : i32
  } -> tensor<i32>
  return %0 : tensor<i32>
}
#all = affine_map<(d0, d1) -> ()>
func.func @two_reduction_loops(%x: tensor<64x64xi32>, %init: tensor<i32>) -> tensor<i32> {
  %0 = linalg.generic {indexing_maps = [#id2, #all], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<64x64xi32>) outs(%init : tensor<i32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.addi %a, %acc : i32
    linalg.yield %s : i32
  } -> tensor<i32>
  return %0 : tensor<i32>
}
// A window (the input read at d0 + d1; fuzzer finding, seed 8, program 328):
// splitReduction cannot reshape it.
#window_in = affine_map<(d0, d1) -> (d0 + d1)>
#window_shape = affine_map<(d0, d1) -> (d1)>
#window_out = affine_map<(d0, d1) -> (d0)>
func.func @window(%x: tensor<1027xf32>, %shape: tensor<1024xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [#window_in, #window_shape, #window_out], iterator_types = ["parallel", "reduction"]}
      ins(%x, %shape : tensor<1027xf32>, tensor<1024xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
