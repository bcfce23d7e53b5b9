// RUN: hlo-opt %s --cpu-copy-repeated-results --split-input-file | FileCheck %s

// A value returned twice: the second occurrence becomes a copy.
// CHECK-LABEL: func.func @twice
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK: %[[E:.*]] = math.exp %[[X]]
// CHECK: %[[C:.*]] = bufferization.alloc_tensor() copy(%[[E]]) : tensor<3xf32>
// CHECK: return %[[E]], %[[C]]
func.func @twice(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %e = math.exp %x : tensor<3xf32>
  return %e, %e : tensor<3xf32>, tensor<3xf32>
}

// -----

// Every repeat gets its own copy; distinct values and scalars are left alone.
// CHECK-LABEL: func.func @three_times
// CHECK-SAME: (%[[X:.*]]: tensor<2xi32>, %[[Y:.*]]: tensor<2xi32>, %[[S:.*]]: i32)
// CHECK: %[[C1:.*]] = bufferization.alloc_tensor() copy(%[[X]])
// CHECK: %[[C2:.*]] = bufferization.alloc_tensor() copy(%[[X]])
// CHECK-NOT: alloc_tensor
// CHECK: return %[[X]], %[[Y]], %[[C1]], %[[S]], %[[S]], %[[C2]]
func.func @three_times(%x: tensor<2xi32>, %y: tensor<2xi32>, %s: i32)
    -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, i32, i32, tensor<2xi32>) {
  return %x, %y, %x, %s, %s, %x : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, i32, i32, tensor<2xi32>
}

// -----

// Nothing repeated: unchanged.
// CHECK-LABEL: func.func @distinct
// CHECK-NOT: alloc_tensor
// CHECK: return %arg0, %arg1
func.func @distinct(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  return %x, %y : tensor<2xf32>, tensor<2xf32>
}

// -----

// IR on buffers: a repeated static buffer is copied into an allocation of
// its own (buffer-results-to-out-params crashed on one allocation returned
// twice).
// CHECK-LABEL: func.func private @buffers
// CHECK: %[[E:.*]] = memref.alloc() : memref<2x7x5xf32>
// CHECK: %[[C:.*]] = memref.alloc() : memref<2x7x5xf32>
// CHECK: memref.copy %[[E]], %[[C]]
// CHECK: return %[[E]], %[[C]]
func.func private @buffers() -> (memref<2x7x5xf32>, memref<2x7x5xf32>) {
  %e = memref.alloc() : memref<2x7x5xf32>
  return %e, %e : memref<2x7x5xf32>, memref<2x7x5xf32>
}
