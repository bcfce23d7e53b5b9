// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// Without padding or base dilation the window loop reads the operand
// directly: output dims are parallel, window dims (sized by an empty
// tensor) are reductions, the input map is `out * stride + window`.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0 + d4, d1 * 2 + d5, d2 * 2 + d6, d3 + d7)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d5, d6, d7)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pool
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x4x3xf32>)
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[WINDOW:.*]] = tensor.empty() : tensor<1x2x2x1xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<1x2x2x3xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%[[EMPTY]] : tensor<1x2x2x3xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[WIN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[WINDOW]] : tensor<1x4x4x3xf32>, tensor<1x2x2x1xf32>) outs(%[[INIT]] : tensor<1x2x2x3xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %{{.*}}: f32, %[[ACC:.*]]: f32):
// CHECK: %[[M:.*]] = arith.maximumf %[[A]], %[[ACC]] fastmath<reassoc> : f32
// CHECK: linalg.yield %[[M]] : f32
// CHECK: return %[[R]]
func.func @max_pool(%x: tensor<1x4x4x3xf32>) -> tensor<1x2x2x3xf32> {
  %0 = hlo.reduce_window max %x, window = [1, 2, 2, 1], strides = [1, 2, 2, 1] : tensor<1x4x4x3xf32> -> tensor<1x2x2x3xf32>
  return %0 : tensor<1x2x2x3xf32>
}

// -----

// Padding and base dilation materialize the padded operand: each index
// reads the element it lands on, or yields the identity (0 for unsigned
// max) in holes and padding. Negative padding first crops the operand to the
// elements that remain: here high = -1 drops the last element, and the hole
// before it is left as one position of high padding. The window dilation is
// the window's coefficient in the input map.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d0 * 2 + d1 * 2)>
// CHECK-LABEL: func.func @dilated_unsigned
// CHECK-SAME: (%[[X:.*]]: tensor<5xi8>) -> tensor<3xi8>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK: %[[KEPT:.*]] = tensor.extract_slice %[[X]][0] [4] [1] : tensor<5xi8> to tensor<4xi8>
// CHECK: %[[PADDED:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<10xi8>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[SHIFTED:.*]] = arith.subi %[[I]], %{{.*}} : index
// CHECK: %[[REM:.*]] = arith.remsi %[[SHIFTED]], %{{.*}} : index
// CHECK: %[[NOT_HOLE:.*]] = arith.cmpi eq, %[[REM]], %{{.*}} : index
// CHECK: %[[SRC:.*]] = arith.divsi %[[SHIFTED]], %{{.*}} : index
// CHECK: %[[AFTER_LOW:.*]] = arith.cmpi sge, %[[I]], %{{.*}} : index
// CHECK: %[[BEFORE_HIGH:.*]] = arith.cmpi slt, %[[SRC]], %{{.*}} : index
// CHECK: %[[IN_RANGE:.*]] = arith.andi %[[AFTER_LOW]], %[[BEFORE_HIGH]] : i1
// CHECK: %[[CLAMPED:.*]] = arith.select %[[IN_RANGE]], %[[SRC]], %{{.*}} : index
// CHECK: %[[VALID:.*]] = arith.andi %[[IN_RANGE]], %[[NOT_HOLE]] : i1
// CHECK: %[[E:.*]] = tensor.extract %[[KEPT]][%[[CLAMPED]]] : tensor<4xi8>
// CHECK: %[[V:.*]] = arith.select %[[VALID]], %[[E]], %[[ZERO]] : i8
// CHECK: linalg.yield %[[V]] : i8
// CHECK: linalg.fill ins(%[[ZERO]] : i8)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], {{.*}}], iterator_types = ["parallel", "reduction"]} ins(%[[PADDED]], %{{.*}} : tensor<10xi8>, tensor<3xi8>)
// CHECK: arith.maxui
func.func @dilated_unsigned(%x: tensor<5xui8>) -> tensor<3xui8> {
  %0 = hlo.reduce_window max %x, window = [3], strides = [2], padding = [[2, -1]], base_dilations = [2], window_dilations = [2] : tensor<5xui8> -> tensor<3xui8>
  return %0 : tensor<3xui8>
}

// -----

// Integer kinds start from their identities; on i1, max is `or`.
// CHECK-LABEL: func.func @identities
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: linalg.fill ins(%[[ONE]] : i32)
// CHECK: arith.muli
// CHECK: %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK: linalg.fill ins(%[[MAX]] : i32)
// CHECK: arith.minsi
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: linalg.fill ins(%[[FALSE]] : i1)
// CHECK: arith.ori {{.*}} : i1
func.func @identities(%a: tensor<6xi32>, %p: tensor<6xi1>) -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi1>) {
  %0 = hlo.reduce_window prod %a, window = [2] : tensor<6xi32> -> tensor<5xi32>
  %1 = hlo.reduce_window min %a, window = [2] : tensor<6xi32> -> tensor<5xi32>
  %2 = hlo.reduce_window max %p, window = [2] : tensor<6xi1> -> tensor<5xi1>
  return %0, %1, %2 : tensor<5xi32>, tensor<5xi32>, tensor<5xi1>
}

// -----

// No windows fit: the result is empty and nothing is computed.
// CHECK-LABEL: func.func @no_windows
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<0xf32>
// CHECK-NEXT: return %[[E]]
func.func @no_windows(%x: tensor<3xf32>) -> tensor<0xf32> {
  %0 = hlo.reduce_window sum %x, window = [4] : tensor<3xf32> -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// Negative padding without dilation is a crop: no padded copy at all.
// CHECK-LABEL: func.func @negative_padding_is_a_crop
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK: %[[KEPT:.*]] = tensor.extract_slice %[[X]][2] [5] [1] : tensor<8xf32> to tensor<5xf32>
// CHECK-NOT: linalg.index
// CHECK: linalg.generic {{.*}} ins(%[[KEPT]], %{{.*}} : tensor<5xf32>, tensor<2xf32>)
func.func @negative_padding_is_a_crop(%x: tensor<8xf32>) -> tensor<4xf32> {
  %0 = hlo.reduce_window sum %x, window = [2], padding = [[-2, -1]] : tensor<8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Paddings near +-2^63 that cancel out are cropped before any index is
// computed, so none overflows (found probing the 2^63 boundaries: index - low
// wrapped around and read the operand as if it were unpadded). Here the
// low padding crops every element: the padded operand is all identity.
// CHECK-LABEL: func.func @cancelling_paddings_near_int64_min
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PADDED:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<7xf32>)
// CHECK-NOT: tensor.extract
// CHECK: linalg.generic {{.*}} ins(%[[PADDED]], %{{.*}} : tensor<7xf32>, tensor<3xf32>)
func.func @cancelling_paddings_near_int64_min(%x: tensor<8xf32>) -> tensor<5xf32> {
  %0 = hlo.reduce_window sum %x, window = [3], padding = [[-9223372036854775808, 9223372036854775807]] : tensor<8xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
