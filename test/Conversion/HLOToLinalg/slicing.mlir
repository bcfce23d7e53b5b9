// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// A static slice is copied out of a strided extract_slice, so no strided
// view reaches the function boundary.
// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[A]][1, 0] [2, 2] [1, 2] : tensor<4x4xf32> to tensor<2x2xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK: %[[R:.*]] = linalg.copy ins(%[[S]] : tensor<2x2xf32>) outs(%[[E]] : tensor<2x2xf32>)
// CHECK: return %[[R]]
func.func @slice(%a: tensor<4x4xf32>) -> tensor<2x2xf32> {
  %0 = hlo.slice %a, start = [1, 0], limit = [3, 4], strides = [1, 2] : tensor<4x4xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Unsigned starts are zero-extended and clamped with minui; a dimension the
// slice covers entirely starts at 0.
// CHECK-LABEL: func.func @dynamic_slice_unsigned
// CHECK-SAME: (%[[A:.*]]: tensor<4x5xf32>, %[[I:.*]]: tensor<i8>, %{{.*}}: tensor<i8>)
// CHECK: %[[X:.*]] = tensor.extract %[[I]][] : tensor<i8>
// CHECK: %[[W:.*]] = arith.extui %[[X]] : i8 to i64
// CHECK: %[[HI:.*]] = arith.constant 2 : i64
// CHECK: %[[C:.*]] = arith.minui %[[W]], %[[HI]] : i64
// CHECK: %[[O:.*]] = arith.index_cast %[[C]] : i64 to index
// CHECK: %[[S:.*]] = tensor.extract_slice %[[A]][%[[O]], 0] [2, 5] [1, 1]
// CHECK: linalg.copy ins(%[[S]] : tensor<2x5xf32>)
func.func @dynamic_slice_unsigned(%a: tensor<4x5xf32>, %i: tensor<ui8>, %j: tensor<ui8>) -> tensor<2x5xf32> {
  %0 = hlo.dynamic_slice %a[%i, %j], sizes = [2, 5] : tensor<4x5xf32>[tensor<ui8>, tensor<ui8>] -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Signed starts are clamped to [0, dim - size] with maxsi/minsi; the update
// is written element by element into the operand.
// CHECK-LABEL: func.func @dynamic_update_slice
// CHECK-SAME: (%[[A:.*]]: tensor<4x5xi32>, %[[I:.*]]: tensor<i64>, %[[U:.*]]: tensor<2x3xi32>)
// CHECK: %[[X:.*]] = tensor.extract %[[I]][] : tensor<i64>
// CHECK-DAG: %[[HI:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[LO:.*]] = arith.constant 0 : i64
// CHECK: %[[M:.*]] = arith.maxsi %[[X]], %[[LO]] : i64
// CHECK: %[[C:.*]] = arith.minsi %[[M]], %[[HI]] : i64
// CHECK: %[[O0:.*]] = arith.index_cast %[[C]] : i64 to index
// CHECK: %[[O1:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[R:.*]] = scf.for %[[P:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %[[A]])
// CHECK: scf.for %[[Q:.*]] = %{{.*}} iter_args(%[[ACC2:.*]] = %[[ACC]])
// CHECK: %[[R0:.*]] = arith.addi %[[P]], %[[O0]] : index
// CHECK: %[[R1:.*]] = arith.addi %[[Q]], %[[O1]] : index
// CHECK: %[[V:.*]] = tensor.extract %[[U]][%[[P]], %[[Q]]]
// CHECK: tensor.insert %[[V]] into %[[ACC2]][%[[R0]], %[[R1]]]
// CHECK: return %[[R]]
func.func @dynamic_update_slice(%a: tensor<4x5xi32>, %i: tensor<i64>, %u: tensor<2x3xi32>) -> tensor<4x5xi32> {
  %0 = hlo.dynamic_update_slice %a[%i, %i], %u : tensor<4x5xi32>[tensor<i64>, tensor<i64>], tensor<2x3xi32>
  return %0 : tensor<4x5xi32>
}

// -----

// Each input is copied into its window of the result; empty inputs are
// skipped.
// CHECK-LABEL: func.func @concatenate
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x0xf32>, %[[C:.*]]: tensor<2x1xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[W0:.*]] = tensor.extract_slice %[[E]][0, 0] [2, 3] [1, 1]
// CHECK: %[[C0:.*]] = linalg.copy ins(%[[A]] : tensor<2x3xf32>) outs(%[[W0]] : tensor<2x3xf32>)
// CHECK: %[[R0:.*]] = tensor.insert_slice %[[C0]] into %[[E]][0, 0] [2, 3] [1, 1]
// CHECK: %[[W1:.*]] = tensor.extract_slice %[[R0]][0, 3] [2, 1] [1, 1]
// CHECK: %[[C1:.*]] = linalg.copy ins(%[[C]] : tensor<2x1xf32>) outs(%[[W1]] : tensor<2x1xf32>)
// CHECK: %[[R1:.*]] = tensor.insert_slice %[[C1]] into %[[R0]][0, 3] [2, 1] [1, 1]
// CHECK: return %[[R1]]
func.func @concatenate(%a: tensor<2x3xf32>, %b: tensor<2x0xf32>, %c: tensor<2x1xf32>) -> tensor<2x4xf32> {
  %0 = hlo.concatenate dim = 1, %a, %b, %c : tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Negative low padding drops operand elements; interior padding is a stride
// on the insertion. Dim 1: low -1 and stride 2 drop operand column 0 and
// place column j at 2 * j - 1.
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>, %[[V:.*]]: tensor<f32>)
// CHECK: %[[P:.*]] = tensor.extract %[[V]][] : tensor<f32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[P]] : f32) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[A]][0, 1] [3, 3] [1, 1] : tensor<4x4xf32> to tensor<3x3xf32>
// CHECK: %[[W:.*]] = tensor.extract_slice %[[F]][1, 1] [3, 3] [1, 2]
// CHECK: %[[C:.*]] = linalg.copy ins(%[[S]] : tensor<3x3xf32>) outs(%[[W]] : tensor<3x3xf32>)
// CHECK: %[[R:.*]] = tensor.insert_slice %[[C]] into %[[F]][1, 1] [3, 3] [1, 2]
// CHECK: return %[[R]]
func.func @pad(%a: tensor<4x4xf32>, %v: tensor<f32>) -> tensor<4x8xf32> {
  %0 = hlo.pad %a, %v, low = [1, -1], high = [-1, 2], interior = [0, 1] : tensor<4x4xf32>, tensor<f32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Padding that crops every operand element away is just the fill.
// CHECK-LABEL: func.func @pad_all_cropped
// CHECK: %[[F:.*]] = linalg.fill
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[F]]
func.func @pad_all_cropped(%a: tensor<3xf32>, %v: tensor<f32>) -> tensor<2xf32> {
  %0 = hlo.pad %a, %v, low = [-4], high = [3], interior = [0] : tensor<3xf32>, tensor<f32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (-d0 + 3, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @reverse
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]]
func.func @reverse(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = hlo.reverse %a, dims = [0] : tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Zero-element results are a bare tensor.empty.
// CHECK-LABEL: func.func @empty_result
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<0x3xf32>
// CHECK-NEXT: return %[[E]]
func.func @empty_result(%a: tensor<0x3xf32>) -> tensor<0x3xf32> {
  %0 = hlo.reverse %a, dims = [0] : tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// -----

// Gather is a generic over the result that reads the index vector, clamps
// the start to [0, dim - slice size] and reads the operand.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[A:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<2x1xi32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[O:.*]] = linalg.index 1 : index
// CHECK: %[[X:.*]] = tensor.extract %[[I]][%[[B]], %{{.*}}] : tensor<2x1xi32>
// CHECK: arith.extsi %[[X]] : i32 to i64
// CHECK: arith.constant 4 : i64
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: %[[S:.*]] = arith.index_cast
// CHECK: %[[P:.*]] = arith.addi %{{.*}}, %[[S]] : index
// CHECK: %[[V:.*]] = tensor.extract %[[A]][%[[P]], %[[O]]] : tensor<5x3xf32>
// CHECK: linalg.yield %[[V]]
func.func @gather(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  %0 = hlo.gather %a[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Scatter loops over the index vectors; a window that sticks out of the
// operand is skipped (scf.if), the others are combined element by element.
// CHECK-LABEL: func.func @scatter
// CHECK-SAME: (%[[A:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<2x1xi32>, %[[U:.*]]: tensor<2x3xf32>)
// CHECK: %[[R:.*]] = scf.for %[[P:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %[[A]]) -> (tensor<5x3xf32>)
// CHECK: %[[X:.*]] = tensor.extract %[[I]][%[[P]], %{{.*}}] : tensor<2x1xi32>
// CHECK: %[[W:.*]] = arith.extsi %[[X]] : i32 to i64
// CHECK: %[[LE:.*]] = arith.cmpi sle, %[[W]], %{{.*}} : i64
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[W]], %{{.*}} : i64
// CHECK: %[[S:.*]] = arith.index_cast %[[W]] : i64 to index
// CHECK: scf.if %{{.*}} -> (tensor<5x3xf32>)
// CHECK: scf.for %[[Q:.*]] = %{{.*}} iter_args(%[[T:.*]] = %[[ACC]])
// CHECK: %[[C:.*]] = arith.addi %{{.*}}, %[[Q]] : index
// CHECK: %[[NEW:.*]] = tensor.extract %[[U]][%[[P]], %[[Q]]]
// CHECK: %[[OLD:.*]] = tensor.extract %[[T]][%[[S]], %[[C]]]
// CHECK: %[[SUM:.*]] = arith.addf %[[OLD]], %[[NEW]] : f32
// CHECK: tensor.insert %[[SUM]] into %[[T]][%[[S]], %[[C]]]
// CHECK: } else {
// CHECK: scf.yield %[[ACC]]
// CHECK: return %[[R]]
func.func @scatter(%a: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> tensor<5x3xf32> {
  %0 = hlo.scatter add %a[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// The combiners: unsigned min/max use minui/maxui, float ones propagate NaN.
// CHECK-LABEL: func.func @scatter_combiners
// CHECK: arith.minui
// CHECK: arith.maximumf
// CHECK: arith.muli
func.func @scatter_combiners(%a: tensor<5xui8>, %f: tensor<5xf32>, %i: tensor<2x1xi32>, %u: tensor<2xui8>, %v: tensor<2xf32>) -> (tensor<5xui8>, tensor<5xf32>, tensor<5xui8>) {
  %0 = hlo.scatter min %a[%i], %u, update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5xui8>[tensor<2x1xi32>], tensor<2xui8>
  %1 = hlo.scatter max %f[%i], %v, update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5xf32>[tensor<2x1xi32>], tensor<2xf32>
  %2 = hlo.scatter mul %a[%i], %u, update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5xui8>[tensor<2x1xi32>], tensor<2xui8>
  return %0, %1, %2 : tensor<5xui8>, tensor<5xf32>, tensor<5xui8>
}
