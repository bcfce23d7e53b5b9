// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// A reduction is linalg.reduce over an init filled with the identity.
// CHECK-LABEL: func.func @sum_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4xf32>)
// CHECK: %[[R:.*]] = linalg.reduce ins(%[[A]] : tensor<4x3xf32>) outs(%[[INIT]] : tensor<4xf32>) dimensions = [1]
// CHECK: (%[[X:.*]]: f32, %[[ACC:.*]]: f32) {
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[ACC]] fastmath<reassoc> : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @sum_f32(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  %0 = hlo.reduce sum %a, dims = [1] : tensor<4x3xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @int_kinds
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: linalg.fill ins(%[[ONE]] : i32) outs(%{{.*}} : tensor<i32>)
// CHECK: linalg.reduce {{.*}} dimensions = [0, 1]
// CHECK: arith.muli
// CHECK: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: linalg.fill ins(%[[MIN]] : i32)
// CHECK: arith.maxsi
// CHECK: %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK: linalg.fill ins(%[[MAX]] : i32)
// CHECK: arith.minsi
// CHECK: %[[ONES:.*]] = arith.constant -1 : i32
// CHECK: linalg.fill ins(%[[ONES]] : i32)
// CHECK: arith.andi
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: linalg.fill ins(%[[ZERO]] : i32)
// CHECK: arith.ori
func.func @int_kinds(%a: tensor<2x3xi32>) -> (tensor<i32>, tensor<2xi32>, tensor<3xi32>, tensor<2xi32>, tensor<2xi32>) {
  %0 = hlo.reduce prod %a, dims = [0, 1] : tensor<2x3xi32> -> tensor<i32>
  %1 = hlo.reduce max %a, dims = [1] : tensor<2x3xi32> -> tensor<2xi32>
  %2 = hlo.reduce min %a, dims = [0] : tensor<2x3xi32> -> tensor<3xi32>
  %3 = hlo.reduce and %a, dims = [1] : tensor<2x3xi32> -> tensor<2xi32>
  %4 = hlo.reduce or %a, dims = [1] : tensor<2x3xi32> -> tensor<2xi32>
  return %0, %1, %2, %3, %4 : tensor<i32>, tensor<2xi32>, tensor<3xi32>, tensor<2xi32>, tensor<2xi32>
}

// -----

// Float max/min start from -inf/+inf and propagate NaN.
// CHECK-LABEL: func.func @float_minmax
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFFF0000000000000 : f64
// CHECK: linalg.fill ins(%[[NEG_INF]] : f64)
// CHECK: arith.maximumf
// CHECK: %[[INF:.*]] = arith.constant 0x7FF0000000000000 : f64
// CHECK: linalg.fill ins(%[[INF]] : f64)
// CHECK: arith.minimumf
// CHECK: %[[FONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: linalg.fill ins(%[[FONE]] : f64)
// CHECK: arith.mulf
func.func @float_minmax(%f: tensor<2x3xf64>) -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) {
  %0 = hlo.reduce max %f, dims = [1] : tensor<2x3xf64> -> tensor<2xf64>
  %1 = hlo.reduce min %f, dims = [1] : tensor<2x3xf64> -> tensor<2xf64>
  %2 = hlo.reduce prod %f, dims = [1] : tensor<2x3xf64> -> tensor<2xf64>
  return %0, %1, %2 : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
}

// -----

// On i1, and/min start from true and combine with `and`; or/max start from
// false and combine with `or`.
// CHECK-LABEL: func.func @pred_kinds
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: linalg.fill ins(%[[TRUE]] : i1)
// CHECK: arith.andi {{.*}} : i1
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: linalg.fill ins(%[[FALSE]] : i1)
// CHECK: arith.ori {{.*}} : i1
// CHECK: linalg.fill ins(%{{.*}} : i1)
// CHECK: arith.andi {{.*}} : i1
// CHECK: linalg.fill ins(%{{.*}} : i1)
// CHECK: arith.ori {{.*}} : i1
func.func @pred_kinds(%p: tensor<2x3xi1>) -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %0 = hlo.reduce and %p, dims = [1] : tensor<2x3xi1> -> tensor<2xi1>
  %1 = hlo.reduce or %p, dims = [1] : tensor<2x3xi1> -> tensor<2xi1>
  %2 = hlo.reduce min %p, dims = [1] : tensor<2x3xi1> -> tensor<2xi1>
  %3 = hlo.reduce max %p, dims = [1] : tensor<2x3xi1> -> tensor<2xi1>
  return %0, %1, %2, %3 : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// -----

// Reducing a size-0 dimension leaves the filled identity.
// CHECK-LABEL: func.func @sum_size0
// CHECK: linalg.reduce ins(%{{.*}} : tensor<3x0xf32>) outs(%{{.*}} : tensor<3xf32>) dimensions = [1]
func.func @sum_size0(%a: tensor<3x0xf32>) -> tensor<3xf32> {
  %0 = hlo.reduce sum %a, dims = [1] : tensor<3x0xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// arg_reduce is one generic with a reduction iterator and two outputs (value
// and index), starting from (identity, 0); NaN beats numbers, ties keep the
// smaller index.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @arg_reduce_max
// CHECK-DAG: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[VALUES:.*]] = linalg.fill ins(%[[NEG_INF]] : f32)
// CHECK-DAG: %[[INDICES:.*]] = linalg.fill ins(%[[ZERO]] : i32)
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK-SAME: indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]]]
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: outs(%[[VALUES]], %[[INDICES]] : tensor<4xf32>, tensor<4xi32>)
// CHECK: linalg.index 1
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpi slt
// CHECK: return %[[R]]#1
func.func @arg_reduce_max(%x: tensor<4x3xf32>) -> tensor<4xi32> {
  %0 = hlo.arg_reduce max %x, dim = 1 : tensor<4x3xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// cumulative copies the first slice, then loops over the rest, combining
// operand slice i with result slice i - 1 (i + 1 when reversed).
// CHECK-LABEL: func.func @cumulative_sum_reverse
// CHECK: linalg.copy
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[POS:.*]] = arith.subi %{{.*}}, %[[I]] : index
// CHECK: %[[PREV:.*]] = arith.addi %[[POS]], %{{.*}} : index
// CHECK: tensor.extract_slice %{{.*}}[0, %[[POS]]] [4, 1] [1, 1]
// CHECK: tensor.extract_slice %{{.*}}[0, %[[PREV]]] [4, 1] [1, 1]
// CHECK: arith.addf
// CHECK: linalg.copy
// CHECK: tensor.insert_slice
// CHECK: scf.yield
func.func @cumulative_sum_reverse(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = hlo.cumulative sum %x, dim = 1, reverse = true : tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
