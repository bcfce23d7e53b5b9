// RUN: hlo-opt %s -cse -canonicalize | FileCheck %s

// A call is pure: an unused one is removed, and two equal ones merge.
// CHECK-LABEL: func.func @pure
// CHECK-COUNT-1: hlo.custom_call
// CHECK-NOT: hlo.custom_call
func.func @pure(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = hlo.custom_call "lapack.potrf" (%a) config = [] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = hlo.custom_call "lapack.potrf" (%a) config = [] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = hlo.custom_call "lapack.potrf" (%0) config = [] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}
