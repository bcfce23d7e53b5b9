// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s
// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(convert-hlo-to-linalg,func.func(cpu-fuse-elementwise-ops),canonicalize,cse)' | FileCheck %s --check-prefix=FOLDED

// The slices of a cumulative keep the scanned dimension with extent 1, so
// their type says which dimension is sliced even when others are 1 too.
// Rank-reducing slices (tensor<1x3xf32> out of tensor<1x3x2xf32>) were
// ambiguous: once the loop of a length-2 axis folded away, the slice was
// re-inferred along dimension 2 with extent 3 ("slice along dimension 2
// runs out-of-bounds").
// CHECK-LABEL: func.func @cumulative_length_two_axis_with_unit_dims
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [1, 3, 1] [1, 1, 1] : tensor<1x3x2xf32> to tensor<1x3x1xf32>
// CHECK: scf.for
// CHECK: tensor.extract_slice {{.*}} : tensor<1x3x2xf32> to tensor<1x3x1xf32>
// FOLDED-LABEL: func.func @cumulative_length_two_axis_with_unit_dims
// FOLDED: linalg.generic
// FOLDED-NOT: tensor<1x3xf32>
func.func @cumulative_length_two_axis_with_unit_dims(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %0 = hlo.cumulative sum %x, dim = 2, reverse = false : tensor<1x3x2xf32>
  return %0 : tensor<1x3x2xf32>
}

// -----

// The cumulative sum of a constant: elementwise fusion folds the constant
// into the loop body (the rank-reducing slices made linalg's constant
// folding read past the constant's elements and crash).
// FOLDED-LABEL: func.func @cumulative_of_constant
// FOLDED: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// FOLDED: scf.for
// FOLDED: linalg.generic
// FOLDED: arith.addf %{{.*}}, %[[ONE]]
func.func @cumulative_of_constant() -> tensor<3xf32> {
  %c = hlo.constant dense<1.0> : tensor<3xf32>
  %0 = hlo.cumulative sum %c, dim = 0, reverse = false : tensor<3xf32>
  return %0 : tensor<3xf32>
}
