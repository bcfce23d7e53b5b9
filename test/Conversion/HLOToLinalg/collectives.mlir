// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// The operand is copied into a fresh dense buffer, the result gets one, and
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
// CHECK: %[[IN:.*]] = memref.alloc() : memref<8x3xf32>
// CHECK: bufferization.materialize_in_destination %[[X]] in restrict writable %[[IN]]
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
