// Round trip of hlo's collectives. Identical all_reduces both survive CSE
// and an unused one survives DCE: each exchanges values with the other
// replicas, which must all reach it. Two replica_ids merge: within one
// replica the id is a constant.
// RUN: hlo-opt %s -split-input-file | hlo-opt -split-input-file | FileCheck %s
// RUN: hlo-opt %s -split-input-file -canonicalize -cse | FileCheck %s --check-prefix=OPT

// CHECK-LABEL: func.func @all_reduce
// CHECK: hlo.all_reduce sum %{{.*}}, replica_groups = {{\[}}[0, 1, 2, 3]] : tensor<8x3xf32>
// CHECK: hlo.all_reduce max %{{.*}}, replica_groups = {{\[}}[0, 2], [1, 3]] : tensor<i32>
// CHECK: hlo.all_reduce or %{{.*}}, replica_groups = {{\[}}[3], [2], [1], [0]] : tensor<2xi1>
// OPT-LABEL: func.func @all_reduce
// OPT-COUNT-2: hlo.all_reduce sum
// OPT: hlo.all_reduce max
// OPT: hlo.all_reduce or
module attributes {numlir.num_replicas = 4 : i64} {
  func.func @all_reduce(%x: tensor<8x3xf32>, %i: tensor<i32>, %p: tensor<2xi1>)
      -> (tensor<8x3xf32>, tensor<8x3xf32>) {
    %a = hlo.all_reduce sum %x, replica_groups = [[0, 1, 2, 3]] : tensor<8x3xf32>
    %b = hlo.all_reduce sum %x, replica_groups = [[0, 1, 2, 3]] : tensor<8x3xf32>
    %m = hlo.all_reduce max %i, replica_groups = [[0, 2], [1, 3]] : tensor<i32>
    %o = hlo.all_reduce or %p, replica_groups = [[3], [2], [1], [0]] : tensor<2xi1>
    return %a, %b : tensor<8x3xf32>, tensor<8x3xf32>
  }
}

// -----

// Without numlir.num_replicas the groups are not checked against a count.
// CHECK-LABEL: func.func @complex_prod
// CHECK: hlo.all_reduce prod %{{.*}}, replica_groups = {{\[}}[0, 1]] : tensor<4xcomplex<f64>>
func.func @complex_prod(%x: tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>> {
  %r = hlo.all_reduce prod %x, replica_groups = [[0, 1]] : tensor<4xcomplex<f64>>
  return %r : tensor<4xcomplex<f64>>
}

// -----

// CHECK-LABEL: func.func @replica_id
// CHECK: hlo.replica_id : tensor<ui32>
// OPT-LABEL: func.func @replica_id
// OPT-COUNT-1: hlo.replica_id
// OPT-NOT: hlo.replica_id
func.func @replica_id() -> (tensor<ui32>, tensor<ui32>) {
  %a = hlo.replica_id : tensor<ui32>
  %b = hlo.replica_id : tensor<ui32>
  return %a, %b : tensor<ui32>, tensor<ui32>
}

// -----

// CHECK-LABEL: func.func @exchanges
// CHECK: hlo.all_gather %{{.*}}, dim = 0, replica_groups = {{\[}}[0, 2], [1, 3]] : tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK: hlo.all_to_all %{{.*}}, split_dim = 0, concat_dim = 1, replica_groups = {{\[}}[0, 1], [2, 3]] : tensor<4x3xf32> -> tensor<2x6xf32>
// CHECK: hlo.reduce_scatter sum %{{.*}}, dim = 1, replica_groups = {{\[}}[0, 1, 2, 3]] : tensor<2x8xi32> -> tensor<2x2xi32>
// CHECK: hlo.collective_permute %{{.*}}, pairs = {{\[}}[0, 1], [1, 2], [2, 0]] : tensor<4xf32>
// OPT-LABEL: func.func @exchanges
// OPT-COUNT-2: hlo.all_gather
// OPT: hlo.all_to_all
// OPT: hlo.reduce_scatter
// OPT: hlo.collective_permute
module attributes {numlir.num_replicas = 4 : i64} {
  func.func @exchanges(%x: tensor<2x3xf32>, %y: tensor<4x3xf32>, %z: tensor<2x8xi32>,
                       %w: tensor<4xf32>) -> tensor<4x3xf32> {
    %g = hlo.all_gather %x, dim = 0, replica_groups = [[0, 2], [1, 3]] : tensor<2x3xf32> -> tensor<4x3xf32>
    %h = hlo.all_gather %x, dim = 0, replica_groups = [[0, 2], [1, 3]] : tensor<2x3xf32> -> tensor<4x3xf32>
    %t = hlo.all_to_all %y, split_dim = 0, concat_dim = 1, replica_groups = [[0, 1], [2, 3]] : tensor<4x3xf32> -> tensor<2x6xf32>
    %r = hlo.reduce_scatter sum %z, dim = 1, replica_groups = [[0, 1, 2, 3]] : tensor<2x8xi32> -> tensor<2x2xi32>
    %p = hlo.collective_permute %w, pairs = [[0, 1], [1, 2], [2, 0]] : tensor<4xf32>
    return %g : tensor<4x3xf32>
  }
}
