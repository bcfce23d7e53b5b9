// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// A bottom-up merge sort per row: the first pass (runs of 1) reads the
// operands and writes the results; then pairs of passes ping-pong through
// one-row scratch tensors. The key decides; the payload follows.
// CHECK-LABEL: func.func @sort_rows
// CHECK-SAME: (%[[K:.*]]: tensor<3x5xf32>, %[[V:.*]]: tensor<3x5xi32>)
// CHECK-DAG: %[[RK:.*]] = bufferization.alloc_tensor() : tensor<3x5xf32>
// CHECK-DAG: %[[RV:.*]] = bufferization.alloc_tensor() : tensor<3x5xi32>
// CHECK-DAG: %[[SK:.*]] = bufferization.alloc_tensor() : tensor<5xf32>
// CHECK-DAG: %[[SV:.*]] = bufferization.alloc_tensor() : tensor<5xi32>
// CHECK: %[[NEST:.*]]:4 = scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[RK]], %{{.*}} = %[[RV]], %{{.*}} = %[[SK]], %{{.*}} = %[[SV]])
// CHECK:   scf.for
// CHECK:     scf.for %[[OUT:.*]] = {{.*}} iter_args(%[[I:.*]] = %{{.*}}, %[[J:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (index, index, tensor<3x5xf32>, tensor<3x5xi32>)
// CHECK:       %[[L:.*]] = tensor.extract %[[K]][%[[ROW]], %{{.*}}] : tensor<3x5xf32>
// CHECK:       %[[R:.*]] = tensor.extract %[[K]][%[[ROW]], %{{.*}}] : tensor<3x5xf32>
// Floats: ordered less, or a number below a NaN.
// CHECK:       arith.cmpf olt, %[[R]], %[[L]] : f32
// CHECK:       arith.cmpf ord, %[[R]], %[[R]] : f32
// CHECK:       arith.cmpf uno, %[[L]], %[[L]] : f32
// CHECK:       tensor.insert %{{.*}} into %{{.*}}[%[[ROW]], %[[OUT]]] : tensor<3x5xf32>
// CHECK:       tensor.extract %[[V]][%[[ROW]], %{{.*}}] : tensor<3x5xi32>
// CHECK:       tensor.insert %{{.*}} into %{{.*}}[%[[ROW]], %[[OUT]]] : tensor<3x5xi32>
// CHECK:   scf.for {{.*}} -> (tensor<3x5xf32>, tensor<3x5xi32>, tensor<5xf32>, tensor<5xi32>)
// CHECK:     tensor.insert %{{.*}} into %{{.*}}[%{{.*}}] : tensor<5xf32>
// CHECK:     tensor.insert %{{.*}} into %{{.*}}[%[[ROW]], %{{.*}}] : tensor<3x5xf32>
// CHECK: return %[[NEST]]#0, %[[NEST]]#1
func.func @sort_rows(%k: tensor<3x5xf32>, %v: tensor<3x5xi32>) -> (tensor<3x5xf32>, tensor<3x5xi32>) {
  %r:2 = hlo.sort(%k, %v) dim = 1, num_keys = 1, stable : tensor<3x5xf32>, tensor<3x5xi32>
  return %r#0, %r#1 : tensor<3x5xf32>, tensor<3x5xi32>
}

// -----

// Two keys compare lexicographically; unsigned keys compare unsigned.
// CHECK-LABEL: func.func @sort_two_keys
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi ult
// CHECK: arith.cmpi ult
// CHECK: arith.xori
// CHECK: arith.andi
// CHECK: arith.ori
func.func @sort_two_keys(%a: tensor<6xui8>, %b: tensor<6xi32>) -> (tensor<6xui8>, tensor<6xi32>) {
  %r:2 = hlo.sort(%a, %b) dim = 0, num_keys = 2 : tensor<6xui8>, tensor<6xi32>
  return %r#0, %r#1 : tensor<6xui8>, tensor<6xi32>
}

// -----

// A sort dimension of size 0 or 1 is the identity.
// CHECK-LABEL: func.func @sort_trivial
// CHECK-SAME: (%[[A:.*]]: tensor<4x1xf32>, %[[B:.*]]: tensor<0xf32>)
// CHECK-NOT: scf.for
// CHECK: return %[[A]], %[[B]]
func.func @sort_trivial(%a: tensor<4x1xf32>, %b: tensor<0xf32>) -> (tensor<4x1xf32>, tensor<0xf32>) {
  %r = hlo.sort(%a) dim = 1, num_keys = 1 : tensor<4x1xf32>
  %s = hlo.sort(%b) dim = 0, num_keys = 1 : tensor<0xf32>
  return %r, %s : tensor<4x1xf32>, tensor<0xf32>
}
