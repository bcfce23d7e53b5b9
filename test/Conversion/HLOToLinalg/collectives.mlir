// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s
// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --buffer-results-to-out-params="hoist-static-allocs modify-public-functions" \
// RUN:   | FileCheck %s --check-prefix=BUF

// The operand is passed as its own buffer, read only (the runtime never
// writes it, so nothing copies it), the result gets a fresh one, and
// each collective becomes a call of its own private declaration carrying its
// record: index, op code, reduce kind, the runtime's dtype (ui32 is 11: the
// signedness lives on in the record after the types turn signless) and the
// groups.
// CHECK-LABEL: func.func private @__numlir_collective_1
// CHECK-SAME: (memref<i32>)
// CHECK-SAME: numlir.collective = 1 : i64
// CHECK-SAME: numlir.collective_dtype = 11 : i64
// CHECK-SAME: numlir.collective_kind = -1 : i64
// CHECK-SAME: numlir.collective_op = 1 : i64
// CHECK-LABEL: func.func private @__numlir_collective_0
// CHECK-SAME: (memref<8x3xf32>, memref<8x3xf32>)
// CHECK-SAME: numlir.collective = 0 : i64
// CHECK-SAME: numlir.collective_dtype = 2 : i64
// CHECK-SAME: numlir.collective_kind = 0 : i64
// CHECK-SAME: numlir.collective_op = 0 : i64
// CHECK-SAME: numlir.replica_groups = dense<{{\[}}[0, 2], [1, 3]]> : tensor<2x2xi64>
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:[^:]*]]: tensor<8x3xf32>)
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<8x3xf32> to memref<8x3xf32>
// CHECK-NOT: materialize_in_destination
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<8x3xf32>
// CHECK: call @__numlir_collective_0(%[[IN]], %[[OUT]])
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: %[[ID:.*]] = memref.alloc() : memref<i32>
// CHECK: call @__numlir_collective_1(%[[ID]])
// CHECK: bufferization.to_tensor %[[ID]] restrict writable
module attributes {numlir.num_replicas = 4 : i64} {
  func.func @main(%x: tensor<8x3xf32>) -> (tensor<8x3xf32>, tensor<ui32>) {
    %s = hlo.all_reduce sum %x, replica_groups = [[0, 2], [1, 3]] : tensor<8x3xf32>
    %i = hlo.replica_id : tensor<ui32>
    return %s, %i : tensor<8x3xf32>, tensor<ui32>
  }
}

// -----

// Two identical all_reduces are two records: each is its own meeting point.
// CHECK-LABEL: func.func @twice
// CHECK: call @__numlir_collective_0(
// CHECK: call @__numlir_collective_1(
func.func @twice(%x: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xui8>) {
  %a = hlo.all_reduce max %x, replica_groups = [[0, 1]] : tensor<4xui8>
  %b = hlo.all_reduce max %x, replica_groups = [[0, 1]] : tensor<4xui8>
  return %a, %b : tensor<4xui8>, tensor<4xui8>
}

// -----

// A gather along dim 1: the operand goes dim 1 first ([3, 2]), the runtime
// fills [6, 2], and the result comes back as [2, 6].
// CHECK-LABEL: func.func private @__numlir_collective_0
// CHECK-SAME: (memref<3x2xf32>, memref<6x2xf32>)
// CHECK-SAME: numlir.collective_op = 2 : i64
// CHECK-LABEL: func.func @gather_dim_1
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<3x2xf32>) permutation = [1, 0]
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[T]] read_only : tensor<3x2xf32> to memref<3x2xf32>
// CHECK: call @__numlir_collective_0(%[[IN]],
// CHECK: %[[R:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<6x2xf32>
// CHECK: linalg.transpose ins(%[[R]] : tensor<6x2xf32>) outs(%{{.*}} : tensor<2x6xf32>) permutation = [1, 0]
func.func @gather_dim_1(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %g = hlo.all_gather %x, dim = 1, replica_groups = [[0, 1]] : tensor<2x3xf32> -> tensor<2x6xf32>
  return %g : tensor<2x6xf32>
}

// -----

// all_to_all, split 0 and concat 1 over 2 replicas: the runtime swaps the
// [2, 3] blocks of the [4, 3] operand; the received [2, 2, 3] blocks go in
// front of dim 1 ([2, 2, 3] -> [2, 2, 3] with the block axis second) and merge
// into it: [2, 6].
// CHECK-LABEL: func.func private @__numlir_collective_0
// CHECK-SAME: (memref<4x3xf32>, memref<4x3xf32>)
// CHECK-SAME: numlir.collective_op = 3 : i64
// CHECK-LABEL: func.func @all_to_all
// CHECK: call @__numlir_collective_0(
// CHECK: %[[R:.*]] = bufferization.to_tensor %{{.*}} : memref<4x3xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[R]] {{\[}}[0, 1], [2]] output_shape [2, 2, 3] : tensor<4x3xf32> into tensor<2x2x3xf32>
// CHECK: %[[P:.*]] = linalg.transpose ins(%[[E]] : tensor<2x2x3xf32>) outs(%{{.*}} : tensor<2x2x3xf32>) permutation = [1, 0, 2]
// CHECK: tensor.collapse_shape %[[P]] {{\[}}[0], [1, 2]] : tensor<2x2x3xf32> into tensor<2x6xf32>
func.func @all_to_all(%x: tensor<4x3xf32>) -> tensor<2x6xf32> {
  %t = hlo.all_to_all %x, split_dim = 0, concat_dim = 1, replica_groups = [[0, 1]] : tensor<4x3xf32> -> tensor<2x6xf32>
  return %t : tensor<2x6xf32>
}

// -----

// CHECK-LABEL: func.func private @__numlir_collective_1
// CHECK-SAME: numlir.collective_op = 5 : i64
// CHECK-SAME: numlir.replica_groups = dense<{{\[}}[0, 1], [1, 0]]> : tensor<2x2xi64>
// CHECK-LABEL: func.func private @__numlir_collective_0
// CHECK-SAME: (memref<8xf32>, memref<2xf32>)
// CHECK-SAME: numlir.collective_kind = 2 : i64
// CHECK-SAME: numlir.collective_op = 4 : i64
func.func @scatter_and_permute(%x: tensor<8xf32>) -> (tensor<2xf32>, tensor<8xf32>) {
  %r = hlo.reduce_scatter max %x, dim = 0, replica_groups = [[0, 1, 2, 3]] : tensor<8xf32> -> tensor<2xf32>
  %p = hlo.collective_permute %x, pairs = [[0, 1], [1, 0]] : tensor<8xf32>
  return %r, %p : tensor<2xf32>, tensor<8xf32>
}

// -----

// Bufferized, as the CPU pipeline does: an argument and a computed value reach
// the call as their own buffers (no copy), and the result is written straight
// into the function's output; a strided slice, whose buffer the identity-layout
// declaration cannot take, is copied into a dense one.
// BUF-LABEL: func.func @operands_as_they_are
// BUF-SAME: (%[[X:[^:]*]]: memref<8x6xf32>, %[[OUT0:[^:]*]]: memref<8x6xf32>, %[[OUT1:[^:]*]]: memref<8x6xf32>, %[[OUT2:[^:]*]]: memref<8x3xf32>)
// BUF-NOT: memref.copy
// BUF: call @__numlir_collective_0(%[[X]], %[[OUT0]])
// BUF: linalg.generic {{.*}} ins(%[[X]] : memref<8x6xf32>) outs(%[[E:[^ ]*]] : memref<8x6xf32>)
// BUF: call @__numlir_collective_1(%[[E]], %[[OUT1]])
// BUF: %[[SLICE:.*]] = memref.subview %[[X]][0, 0] [8, 3] [1, 2]
// BUF: %[[DENSE:.*]] = memref.alloc() {{.*}} : memref<8x3xf32>
// BUF: linalg.copy ins(%[[SLICE]] : {{.*}}) outs(%[[DENSE]] : memref<8x3xf32>)
// BUF: call @__numlir_collective_2(%[[DENSE]], %[[OUT2]])
module attributes {numlir.num_replicas = 2 : i64} {
  func.func @operands_as_they_are(%x: tensor<8x6xf32>) -> (tensor<8x6xf32>, tensor<8x6xf32>, tensor<8x3xf32>) {
    %s = hlo.all_reduce sum %x, replica_groups = [[0, 1]] : tensor<8x6xf32>
    %e = hlo.exp %x : tensor<8x6xf32>
    %m = hlo.all_reduce max %e, replica_groups = [[0, 1]] : tensor<8x6xf32>
    %c = hlo.slice %x, start = [0, 0], limit = [8, 6], strides = [1, 2] : tensor<8x6xf32> -> tensor<8x3xf32>
    %p = hlo.collective_permute %c, pairs = [[0, 1], [1, 0]] : tensor<8x3xf32>
    return %s, %m, %p : tensor<8x6xf32>, tensor<8x6xf32>, tensor<8x3xf32>
  }
}
