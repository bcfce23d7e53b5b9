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
