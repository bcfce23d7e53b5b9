// RUN: hlo-translate --hlo-to-stablehlo --split-input-file %s | FileCheck %s

// dot_general packs its dimension lists into one attribute, leaving out the
// empty ones, and asks for full precision (a TPU's default rounds f32 to bf16).
// CHECK-LABEL: sym_name = "batched_matmul"
// CHECK: "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]}
// CHECK: #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>
func.func @batched_matmul(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %m: tensor<3x4xf32>, %n: tensor<4x5xf32>) -> (tensor<2x3x5xf32>, tensor<3x5xf32>) {
  %0 = hlo.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [2] x [1] : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  %1 = hlo.dot_general %m, %n, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
  return %0, %1 : tensor<2x3x5xf32>, tensor<3x5xf32>
}

// -----

// reduce gets its combiner's identity as the init value and the combiner as
// a body on 0-d tensors: -inf for a float max, the unsigned minimum 0 for an
// unsigned max, all ones for and, (1, 0) for a complex product.
// CHECK-LABEL: sym_name = "reductions"
// CHECK: %[[NEG_INF:.*]] = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>}
// CHECK: "stablehlo.reduce"(%arg0, %[[NEG_INF]]) ({
// CHECK: ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>):
// CHECK: %[[M:.*]] = "stablehlo.maximum"(%[[A]], %[[B]])
// CHECK: "stablehlo.return"(%[[M]])
// CHECK: }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK: "stablehlo.constant"() {value = dense<0> : tensor<ui8>}
// CHECK: "stablehlo.maximum"
// CHECK: "stablehlo.constant"() {value = dense<true> : tensor<i1>}
// CHECK: "stablehlo.and"
// CHECK: "stablehlo.constant"() {value = dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>}
// CHECK: "stablehlo.multiply"
// CHECK: "stablehlo.constant"() {value = dense<2147483647> : tensor<i32>}
// CHECK: "stablehlo.minimum"
func.func @reductions(%f: tensor<2x3xf32>, %u: tensor<2x3xui8>, %b: tensor<2x3xi1>, %z: tensor<2x3xcomplex<f32>>, %i: tensor<2x3xi32>)
    -> (tensor<2xf32>, tensor<3xui8>, tensor<i1>, tensor<2xcomplex<f32>>, tensor<2xi32>) {
  %0 = hlo.reduce max %f, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %1 = hlo.reduce max %u, dims = [0] : tensor<2x3xui8> -> tensor<3xui8>
  %2 = hlo.reduce and %b, dims = [0, 1] : tensor<2x3xi1> -> tensor<i1>
  %3 = hlo.reduce prod %z, dims = [1] : tensor<2x3xcomplex<f32>> -> tensor<2xcomplex<f32>>
  %4 = hlo.reduce min %i, dims = [1] : tensor<2x3xi32> -> tensor<2xi32>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<3xui8>, tensor<i1>, tensor<2xcomplex<f32>>, tensor<2xi32>
}

// -----

// dynamic_update_slice takes the update before the start indices in
// StableHLO; shape ops keep their attributes; a donated argument's output is
// named where PJRT looks for it.
// CHECK: "func.func"() <{arg_attrs = [{tf.aliasing_output = 0 : i32}, {}, {}]
// CHECK-SAME: sym_name = "slicing"
// CHECK: ^bb0(%[[X:.*]]: tensor<4x4xf32>, %[[U:.*]]: tensor<2x2xf32>, %[[I:.*]]: tensor<i32>)
// CHECK: "stablehlo.dynamic_update_slice"(%[[X]], %[[U]], %[[I]], %[[I]])
// CHECK: "stablehlo.slice"({{.*}}) {limit_indices = array<i64: 4, 4>, start_indices = array<i64: 0, 1>, strides = array<i64: 2, 1>}
// CHECK: "stablehlo.pad"({{.*}}) {edge_padding_high = array<i64: 0, 2>, edge_padding_low = array<i64: 1, 0>, interior_padding = array<i64: 0, 1>}
// CHECK: "stablehlo.transpose"({{.*}}) {permutation = array<i64: 1, 0>}
// CHECK-NOT: numlir.
func.func @slicing(%x: tensor<4x4xf32> {numlir.aliasing_output = 0 : i32}, %u: tensor<2x2xf32>, %i: tensor<i32>)
    -> (tensor<4x4xf32>, tensor<2x3xf32>, tensor<3x7xf32>, tensor<4x4xf32>) {
  %0 = hlo.dynamic_update_slice %x[%i, %i], %u : tensor<4x4xf32>[tensor<i32>, tensor<i32>], tensor<2x2xf32>
  %1 = hlo.slice %x, start = [0, 1], limit = [4, 4], strides = [2, 1] : tensor<4x4xf32> -> tensor<2x3xf32>
  %zero = hlo.constant dense<0.0> : tensor<f32>
  %2 = hlo.pad %1, %zero, low = [1, 0], high = [0, 2], interior = [0, 1] : tensor<2x3xf32>, tensor<f32> -> tensor<3x7xf32>
  %3 = hlo.transpose %x, dims = [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  return %0, %1, %2, %3 : tensor<4x4xf32>, tensor<2x3xf32>, tensor<3x7xf32>, tensor<4x4xf32>
}

// -----

// while, if and case keep their operands and regions; hlo.return becomes
// stablehlo.return, inside the moved regions too.
// CHECK-LABEL: sym_name = "control_flow"
// CHECK: "stablehlo.while"(%arg0, %arg1) ({
// CHECK: ^bb0(%[[I:.*]]: tensor<i32>, %[[X:.*]]: tensor<4xf32>):
// CHECK: "stablehlo.compare"(%[[I]], %arg2)
// CHECK: "stablehlo.return"
// CHECK: }, {
// CHECK: "stablehlo.multiply"
// CHECK: "stablehlo.return"
// CHECK: }) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
// CHECK: "stablehlo.if"(%{{.*}}) ({
// CHECK: "stablehlo.return"
// CHECK: }, {
// CHECK: "stablehlo.negate"
// CHECK: "stablehlo.case"(%arg2) ({
// CHECK: }, {
// CHECK: }, {
// CHECK-NOT: "hlo.
func.func @control_flow(%zero: tensor<i32>, %init: tensor<4xf32>, %n: tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %one = hlo.constant dense<1> : tensor<i32>
  %r:2 = hlo.while (%i = %zero, %x = %init) : tensor<i32>, tensor<4xf32> cond {
    %c = hlo.compare LT, %i, %n : tensor<i32> -> tensor<i1>
    hlo.return %c : tensor<i1>
  } do {
    %i1 = hlo.add %i, %one : tensor<i32>
    %x1 = hlo.multiply %x, %x : tensor<4xf32>
    hlo.return %i1, %x1 : tensor<i32>, tensor<4xf32>
  }
  %p = hlo.compare GT, %n, %zero : tensor<i32> -> tensor<i1>
  %s = hlo.if %p -> (tensor<4xf32>) {
    hlo.return %init : tensor<4xf32>
  } else {
    %m = hlo.negate %init : tensor<4xf32>
    hlo.return %m : tensor<4xf32>
  }
  %t = hlo.case %n -> (tensor<4xf32>) {
    hlo.return %init : tensor<4xf32>
  }, {
    hlo.return %s : tensor<4xf32>
  }, {
    hlo.return %r#1 : tensor<4xf32>
  }
  return %r#1, %s, %t : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// cumulative is a reduce_window over the whole dimension, padded before each
// element (after, when reversed) with the combiner's identity.
// CHECK-LABEL: sym_name = "scans"
// CHECK: %[[ZERO:.*]] = "stablehlo.constant"() {value = dense<0.000000e+00> : tensor<f32>}
// CHECK: "stablehlo.reduce_window"(%arg0, %[[ZERO]]) ({
// CHECK: "stablehlo.add"
// CHECK: }) {padding = dense<{{\[\[}}0, 0], [4, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 5>, window_strides = array<i64: 1, 1>}
// CHECK: %[[ONE:.*]] = "stablehlo.constant"() {value = dense<1> : tensor<i32>}
// CHECK: "stablehlo.reduce_window"(%arg1, %[[ONE]]) ({
// CHECK: "stablehlo.multiply"
// CHECK: }) {padding = dense<{{\[\[}}0, 2]]> : tensor<1x2xi64>, window_dimensions = array<i64: 3>, window_strides = array<i64: 1>}
func.func @scans(%x: tensor<2x5xf32>, %i: tensor<3xi32>) -> (tensor<2x5xf32>, tensor<3xi32>) {
  %0 = hlo.cumulative sum %x, dim = 1, reverse = false : tensor<2x5xf32>
  %1 = hlo.cumulative prod %i, dim = 0, reverse = true : tensor<3xi32>
  return %0, %1 : tensor<2x5xf32>, tensor<3xi32>
}

// -----

// arg_reduce is a reduce of (value, index) pairs whose body picks, in one
// total order, the extreme value, NaN above numbers, then the lower index.
// CHECK-LABEL: sym_name = "argmax"
// CHECK: %[[IOTA:.*]] = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<4x3xi32>
// CHECK: %[[LOW:.*]] = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>}
// CHECK: %[[ZERO:.*]] = "stablehlo.constant"() {value = dense<0> : tensor<i32>}
// CHECK: %{{.*}}:2 = "stablehlo.reduce"(%arg0, %[[IOTA]], %[[LOW]], %[[ZERO]]) ({
// CHECK: ^bb0(%[[A:.*]]: tensor<f32>, %[[AI:.*]]: tensor<i32>, %[[B:.*]]: tensor<f32>, %[[BI:.*]]: tensor<i32>):
// CHECK: "stablehlo.compare"(%[[B]], %[[A]]) {{.*}}comparison_direction GT
// CHECK: "stablehlo.compare"(%[[A]], %[[A]]) {{.*}}comparison_direction NE
// CHECK: "stablehlo.compare"(%[[BI]], %[[AI]]) {compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}
// CHECK: "stablehlo.return"
// CHECK: }) {dimensions = array<i64: 1>} : (tensor<4x3xf32>, tensor<4x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
func.func @argmax(%x: tensor<4x3xf32>) -> tensor<4xi32> {
  %0 = hlo.arg_reduce max %x, dim = 1 : tensor<4x3xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// reduce_window keeps its attributes but the padding, which StableHLO takes
// as an N x 2 tensor; the init value is the combiner's identity.
// CHECK-LABEL: sym_name = "pooling"
// CHECK: %[[LOW:.*]] = "stablehlo.constant"() {value = dense<0xFF80> : tensor<bf16>}
// CHECK: "stablehlo.reduce_window"(%arg0, %[[LOW]]) ({
// CHECK: "stablehlo.maximum"
// CHECK: }) {base_dilations = array<i64: 1, 1>, padding = dense<{{\[\[}}0, 1], [1, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 1>}
func.func @pooling(%x: tensor<4x6xbf16>) -> tensor<2x6xbf16> {
  %0 = hlo.reduce_window max %x, window = [2, 2], strides = [2, 1], padding = [[0, 1], [1, 0]] : tensor<4x6xbf16> -> tensor<2x6xbf16>
  return %0 : tensor<2x6xbf16>
}

// -----

// sort's comparator is numlir's order: lexicographic over the keys, each
// float key below NaN; the values follow.
// CHECK-LABEL: sym_name = "sort_two_keys"
// CHECK: "stablehlo.sort"(%arg0, %arg1, %arg2) ({
// CHECK: ^bb0(%[[A0:.*]]: tensor<f32>, %[[B0:.*]]: tensor<f32>, %[[A1:.*]]: tensor<i32>, %[[B1:.*]]: tensor<i32>, %{{.*}}: tensor<ui16>, %{{.*}}: tensor<ui16>):
// CHECK: "stablehlo.compare"(%[[A1]], %[[B1]]) {compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}
// CHECK: "stablehlo.compare"(%[[A0]], %[[A0]]) {{.*}}comparison_direction EQ
// CHECK: "stablehlo.compare"(%[[B0]], %[[B0]]) {{.*}}comparison_direction NE
// CHECK: "stablehlo.compare"(%[[A0]], %[[B0]]) {{.*}}comparison_direction LT
// CHECK: "stablehlo.return"
// CHECK: }) {dimension = 1 : i64, is_stable = true}
func.func @sort_two_keys(%k: tensor<3x8xf32>, %j: tensor<3x8xi32>, %v: tensor<3x8xui16>) -> (tensor<3x8xf32>, tensor<3x8xi32>, tensor<3x8xui16>) {
  %r:3 = hlo.sort(%k, %j, %v) dim = 1, num_keys = 2, stable : tensor<3x8xf32>, tensor<3x8xi32>, tensor<3x8xui16>
  return %r#0, %r#1, %r#2 : tensor<3x8xf32>, tensor<3x8xi32>, tensor<3x8xui16>
}

// -----

// gather and scatter pack their dimension numbers into StableHLO's struct
// attributes; scatter's body combines the element with the update.
// CHECK-LABEL: sym_name = "gather_scatter"
// CHECK: "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}
// CHECK: "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
// CHECK: ^bb0(%[[OLD:.*]]: tensor<f32>, %[[NEW:.*]]: tensor<f32>):
// CHECK: %[[SUM:.*]] = "stablehlo.add"(%[[OLD]], %[[NEW]])
// CHECK: "stablehlo.return"(%[[SUM]])
// CHECK: }) {indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}
// CHECK: "stablehlo.scatter"
// CHECK: ^bb0(%{{.*}}: tensor<f32>, %[[UPDATE:.*]]: tensor<f32>):
// CHECK-NEXT: "stablehlo.return"(%[[UPDATE]])
func.func @gather_scatter(%x: tensor<5x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>) {
  %0 = hlo.gather %x[%i], offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3] : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
  %1 = hlo.scatter add %x[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  %2 = hlo.scatter set %x[%i], %u, update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>
}

// -----

// convolution's dimension numbers in StableHLO's raw form, its window as
// StableHLO's attributes, and full precision.
// CHECK-LABEL: sym_name = "conv"
// CHECK: "stablehlo.convolution"(%arg0, %arg1) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 1, input_spatial_dimensions = [2], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [2], output_batch_dimension = 0, output_feature_dimension = 1, output_spatial_dimensions = [2]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1>, padding = dense<0> : tensor<1x2xi64>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>], rhs_dilation = array<i64: 1>, window_strides = array<i64: 1>}
func.func @conv(%x: tensor<1x4x8xf32>, %w: tensor<6x4x3xf32>) -> tensor<1x6x6xf32> {
  %0 = hlo.convolution %x, %w, dims = [b, f, 0]x[o, i, 0]->[b, f, 0] : tensor<1x4x8xf32>, tensor<6x4x3xf32> -> tensor<1x6x6xf32>
  return %0 : tensor<1x6x6xf32>
}
