// Every verifier error of hlo's collectives.
// RUN: hlo-opt %s -split-input-file -verify-diagnostics

func.func @no_groups(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.all_reduce' op needs at least one replica group of at least one replica, got shape [0, 0]}}
  %r = hlo.all_reduce sum %x, replica_groups = [] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @ragged_groups(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{replica groups must have one size, got 2 and 1}}
  %r = hlo.all_reduce sum %x, replica_groups = [[0, 1], [2]] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @negative_id(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.all_reduce' op replica id -1 is negative}}
  %r = hlo.all_reduce sum %x, replica_groups = [[0, -1]] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @repeated_id(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.all_reduce' op replica id 1 appears in more than one place of the groups}}
  %r = hlo.all_reduce sum %x, replica_groups = [[0, 1], [1, 2]] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

module attributes {numlir.num_replicas = 2 : i64} {
  func.func @id_out_of_range(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error@+1 {{'hlo.all_reduce' op replica id 2 is out of range for a module of 2 replicas}}
    %r = hlo.all_reduce sum %x, replica_groups = [[0, 2]] : tensor<4xf32>
    return %r : tensor<4xf32>
  }
}

// -----

module attributes {numlir.num_replicas = 4 : i64} {
  func.func @replica_left_out(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error@+1 {{'hlo.all_reduce' op replica groups name 3 of the module's 4 replicas; every replica must be in one group}}
    %r = hlo.all_reduce sum %x, replica_groups = [[0, 1, 2]] : tensor<4xf32>
    return %r : tensor<4xf32>
  }
}

// -----

func.func @max_of_complex(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error@+1 {{'hlo.all_reduce' op 'max' reduction needs a real element type, got 'complex<f32>'}}
  %r = hlo.all_reduce max %x, replica_groups = [[0, 1]] : tensor<4xcomplex<f32>>
  return %r : tensor<4xcomplex<f32>>
}

// -----

func.func @sum_of_pred(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{'hlo.all_reduce' op 'sum' reduction needs a float or integer element type, got i1}}
  %r = hlo.all_reduce sum %x, replica_groups = [[0, 1]] : tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

func.func @and_of_floats(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.all_reduce' op 'and' reduction needs an integer or i1 element type, got 'f32'}}
  %r = hlo.all_reduce and %x, replica_groups = [[0, 1]] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @unknown_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unknown reduce_kind 'mean'}}
  %r = hlo.all_reduce mean %x, replica_groups = [[0, 1]] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @replica_id_type() -> tensor<i32> {
  // expected-error@+1 {{'hlo.replica_id' op result #0 must be 0D tensor of 32-bit unsigned integer values, but got 'tensor<i32>'}}
  %r = hlo.replica_id : tensor<i32>
  return %r : tensor<i32>
}

// -----

func.func @gather_shape(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'hlo.all_gather' op result shape [2, 3] must be [4, 3]}}
  %r = hlo.all_gather %x, dim = 0, replica_groups = [[0, 1]] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func @gather_dim(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'hlo.all_gather' op gather dimension 2 is out of range for an operand of rank 2}}
  %r = hlo.all_gather %x, dim = 2, replica_groups = [[0, 1]] : tensor<2x3xf32> -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

func.func @gather_types(%x: tensor<2x3xf32>) -> tensor<4x3xf64> {
  // expected-error@+1 {{'hlo.all_gather' op operand and result element types must be equal, got 'f32' and 'f64'}}
  %r = hlo.all_gather %x, dim = 0, replica_groups = [[0, 1]] : tensor<2x3xf32> -> tensor<4x3xf64>
  return %r : tensor<4x3xf64>
}

// -----

func.func @all_to_all_indivisible(%x: tensor<3x2xf32>) -> tensor<1x6xf32> {
  // expected-error@+1 {{'hlo.all_to_all' op operand dimension 0 of size 3 does not divide into the 2 members of a replica group}}
  %r = hlo.all_to_all %x, split_dim = 0, concat_dim = 1, replica_groups = [[0, 1]] : tensor<3x2xf32> -> tensor<1x6xf32>
  return %r : tensor<1x6xf32>
}

// -----

func.func @all_to_all_concat_dim(%x: tensor<4x2xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{'hlo.all_to_all' op concat dimension -1 is out of range for an operand of rank 2}}
  %r = hlo.all_to_all %x, split_dim = 0, concat_dim = -1, replica_groups = [[0, 1]] : tensor<4x2xf32> -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

func.func @reduce_scatter_kind(%x: tensor<4xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  // expected-error@+1 {{'hlo.reduce_scatter' op 'min' reduction needs a real element type, got 'complex<f32>'}}
  %r = hlo.reduce_scatter min %x, dim = 0, replica_groups = [[0, 1]] : tensor<4xcomplex<f32>> -> tensor<2xcomplex<f32>>
  return %r : tensor<2xcomplex<f32>>
}

// -----

func.func @reduce_scatter_shape(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.reduce_scatter' op result shape [4] must be [2]}}
  %r = hlo.reduce_scatter sum %x, dim = 0, replica_groups = [[0, 1]] : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @permute_pairs_shape(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.collective_permute' op pairs must be a [pairs, 2] array of (source, target), got shape [1, 3]}}
  %r = hlo.collective_permute %x, pairs = [[0, 1, 2]] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @permute_sends_twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.collective_permute' op replica 0 sends more than once}}
  %r = hlo.collective_permute %x, pairs = [[0, 1], [0, 2]] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @permute_receives_twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.collective_permute' op replica 2 receives more than once}}
  %r = hlo.collective_permute %x, pairs = [[0, 2], [1, 2]] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

module attributes {numlir.num_replicas = 2 : i64} {
  func.func @permute_out_of_range(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error@+1 {{'hlo.collective_permute' op replica id 5 is out of range for a module of 2 replicas}}
    %r = hlo.collective_permute %x, pairs = [[0, 5]] : tensor<4xf32>
    return %r : tensor<4xf32>
  }
}
