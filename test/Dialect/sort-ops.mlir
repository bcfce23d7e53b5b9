// Round trip of hlo.sort.
// RUN: hlo-opt %s -split-input-file | hlo-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @sort_key_value
// CHECK: %{{.*}}:2 = hlo.sort(%{{.*}}, %{{.*}}) dim = 1, num_keys = 1, stable : tensor<3x8xf32>, tensor<3x8xi32>
func.func @sort_key_value(%k: tensor<3x8xf32>, %v: tensor<3x8xi32>) -> (tensor<3x8xf32>, tensor<3x8xi32>) {
  %r:2 = hlo.sort(%k, %v) dim = 1, num_keys = 1, stable : tensor<3x8xf32>, tensor<3x8xi32>
  return %r#0, %r#1 : tensor<3x8xf32>, tensor<3x8xi32>
}

// -----

// CHECK-LABEL: func.func @sort_two_keys_unstable
// CHECK: hlo.sort(%{{.*}}, %{{.*}}) dim = 0, num_keys = 2 : tensor<5xui8>, tensor<5xi1>
// CHECK-NOT: stable
func.func @sort_two_keys_unstable(%a: tensor<5xui8>, %b: tensor<5xi1>) -> tensor<5xi1> {
  %r:2 = hlo.sort(%a, %b) dim = 0, num_keys = 2 : tensor<5xui8>, tensor<5xi1>
  return %r#1 : tensor<5xi1>
}
