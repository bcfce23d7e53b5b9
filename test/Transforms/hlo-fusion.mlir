// hlo-fusion's decisions (docs/fusion.md): which ops share a kernel, what
// each kernel returns, and what the cost rules keep apart.
// RUN: hlo-opt %s --hlo-fusion --split-input-file | FileCheck %s

// Softmax is one input fusion: both reductions run over the same rows, and
// exp, which both the sum and the division read, is computed once inside.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = hlo.fusion input (%[[A:.*]] = %[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:   %[[M:.*]] = hlo.reduce max %[[A]], dims = [1]
// CHECK-NEXT:   %[[MB:.*]] = hlo.broadcast_in_dim %[[M]], dims = [0]
// CHECK-NEXT:   %[[D:.*]] = hlo.subtract %[[A]], %[[MB]]
// CHECK-NEXT:   %[[E:.*]] = hlo.exp %[[D]]
// CHECK-NEXT:   %[[S:.*]] = hlo.reduce sum %[[E]], dims = [1]
// CHECK-NEXT:   %[[SB:.*]] = hlo.broadcast_in_dim %[[S]], dims = [0]
// CHECK-NEXT:   %[[Q:.*]] = hlo.divide %[[E]], %[[SB]]
// CHECK-NEXT:   hlo.return %[[Q]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = hlo.reduce max %x, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %mb = hlo.broadcast_in_dim %m, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %d = hlo.subtract %x, %mb : tensor<4x8xf32>
  %e = hlo.exp %d : tensor<4x8xf32>
  %s = hlo.reduce sum %e, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %sb = hlo.broadcast_in_dim %s, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %r = hlo.divide %e, %sb : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Layer norm is one input fusion too. rsqrt is expensive and broadcast back
// over the rows, but it works on the reduced values, which a kernel over
// rows computes once per row. The constant 8.0 that both means divide by is
// copied in once.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[R:.*]] = hlo.fusion input (%[[A:.*]] = %[[X]], %[[GA:.*]] = %[[G]], %[[BA:.*]] = %[[B]])
// CHECK-NEXT:   %[[N:.*]] = hlo.constant dense<8.000000e+00>
// CHECK-NEXT:   %[[EPS:.*]] = hlo.constant dense<9.99999974E-6>
// CHECK-NEXT:   %[[S1:.*]] = hlo.reduce sum %[[A]], dims = [1]
// CHECK-NEXT:   %[[MEAN:.*]] = hlo.divide %[[S1]], %[[N]]
// CHECK-NEXT:   %[[MB:.*]] = hlo.broadcast_in_dim %[[MEAN]]
// CHECK-NEXT:   %[[C:.*]] = hlo.subtract %[[A]], %[[MB]]
// CHECK-NEXT:   %[[SQ:.*]] = hlo.multiply %[[C]], %[[C]]
// CHECK-NEXT:   %[[S2:.*]] = hlo.reduce sum %[[SQ]], dims = [1]
// CHECK-NEXT:   %[[VAR:.*]] = hlo.divide %[[S2]], %[[N]]
// CHECK-NEXT:   %[[V:.*]] = hlo.add %[[VAR]], %[[EPS]]
// CHECK-NEXT:   %[[RS:.*]] = hlo.rsqrt %[[V]]
// CHECK-NEXT:   %[[RB:.*]] = hlo.broadcast_in_dim %[[RS]]
// CHECK-NEXT:   %[[Y:.*]] = hlo.multiply %[[C]], %[[RB]]
// CHECK-NEXT:   %[[GB:.*]] = hlo.broadcast_in_dim %[[GA]], dims = [1]
// CHECK-NEXT:   %[[BB:.*]] = hlo.broadcast_in_dim %[[BA]], dims = [1]
// CHECK-NEXT:   %[[Y1:.*]] = hlo.multiply %[[Y]], %[[GB]]
// CHECK-NEXT:   %[[Y2:.*]] = hlo.add %[[Y1]], %[[BB]]
// CHECK-NEXT:   hlo.return %[[Y2]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @layer_norm(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %n = hlo.constant dense<8.0> : tensor<4xf32>
  %eps = hlo.constant dense<1.0e-5> : tensor<4xf32>
  %s1 = hlo.reduce sum %x, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %mean = hlo.divide %s1, %n : tensor<4xf32>
  %mb = hlo.broadcast_in_dim %mean, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %c = hlo.subtract %x, %mb : tensor<4x8xf32>
  %sq = hlo.multiply %c, %c : tensor<4x8xf32>
  %s2 = hlo.reduce sum %sq, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %var = hlo.divide %s2, %n : tensor<4xf32>
  %v = hlo.add %var, %eps : tensor<4xf32>
  %r = hlo.rsqrt %v : tensor<4xf32>
  %rb = hlo.broadcast_in_dim %r, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %y = hlo.multiply %c, %rb : tensor<4x8xf32>
  %gb = hlo.broadcast_in_dim %g, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %bb = hlo.broadcast_in_dim %b, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %y1 = hlo.multiply %y, %gb : tensor<4x8xf32>
  %y2 = hlo.add %y1, %bb : tensor<4x8xf32>
  return %y2 : tensor<4x8xf32>
}

// -----

// An MLP: each layer's matmul takes in its bias and activation (output
// fusion); the tanh stays out of the next matmul, whose operand it is, since
// fused there it would be computed once per output column.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32xf32>, %[[W2:.*]]: tensor<32x4xf32>)
// CHECK-NEXT: %[[H:.*]] = hlo.fusion output (%[[XA:.*]] = %[[X]], %[[WA:.*]] = %[[W]], %[[BA:.*]] = %[[B]])
// CHECK-NEXT:   %[[Z:.*]] = hlo.constant dense<0.000000e+00>
// CHECK-NEXT:   %[[D:.*]] = hlo.dot_general %[[XA]], %[[WA]]
// CHECK-NEXT:   %[[BB:.*]] = hlo.broadcast_in_dim %[[BA]], dims = [1]
// CHECK-NEXT:   %[[S:.*]] = hlo.add %[[D]], %[[BB]]
// CHECK-NEXT:   %[[RELU:.*]] = hlo.maximum %[[S]], %[[Z]]
// CHECK-NEXT:   %[[T:.*]] = hlo.tanh %[[RELU]]
// CHECK-NEXT:   hlo.return %[[T]] : tensor<8x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[O:.*]] = hlo.dot_general %[[H]], %[[W2]]
// CHECK-NEXT: return %[[O]]
func.func @mlp(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>, %w2: tensor<32x4xf32>) -> tensor<8x4xf32> {
  %z = hlo.constant dense<0.0> : tensor<8x32xf32>
  %d = hlo.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %bb = hlo.broadcast_in_dim %b, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %a = hlo.add %d, %bb : tensor<8x32xf32>
  %h = hlo.maximum %a, %z : tensor<8x32xf32>
  %t = hlo.tanh %h : tensor<8x32xf32>
  %o = hlo.dot_general %t, %w2, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<8x32xf32>, tensor<32x4xf32> -> tensor<8x4xf32>
  return %o : tensor<8x4xf32>
}

// -----

// A convolution with its bias and relu epilogue is one output fusion.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x8x3xf32>, %[[K:.*]]: tensor<3x3x3x4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[R:.*]] = hlo.fusion output (%[[XA:.*]] = %[[X]], %[[KA:.*]] = %[[K]], %[[BA:.*]] = %[[B]]) : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<2x8x8x4xf32> {
// CHECK-NEXT:   %[[Z:.*]] = hlo.constant dense<0.000000e+00>
// CHECK-NEXT:   %[[C:.*]] = hlo.convolution %[[XA]], %[[KA]]
// CHECK-NEXT:   %[[BB:.*]] = hlo.broadcast_in_dim %[[BA]], dims = [3]
// CHECK-NEXT:   %[[S:.*]] = hlo.add %[[C]], %[[BB]]
// CHECK-NEXT:   %[[M:.*]] = hlo.maximum %[[S]], %[[Z]]
// CHECK-NEXT:   hlo.return %[[M]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @conv_bias_relu(%x: tensor<2x8x8x3xf32>, %k: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x8x8x4xf32> {
  %z = hlo.constant dense<0.0> : tensor<2x8x8x4xf32>
  %c = hlo.convolution %x, %k, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], padding = [[1, 1], [1, 1]] : tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32> -> tensor<2x8x8x4xf32>
  %bb = hlo.broadcast_in_dim %b, dims = [3] : tensor<4xf32> -> tensor<2x8x8x4xf32>
  %a = hlo.add %c, %bb : tensor<2x8x8x4xf32>
  %r = hlo.maximum %a, %z : tensor<2x8x8x4xf32>
  return %r : tensor<2x8x8x4xf32>
}

// -----

// `sum(x * x)` reads x once: the square is computed inside the reduction.
// CHECK-LABEL: func.func @sum_of_squares
// CHECK-NEXT: hlo.fusion input
// CHECK-NEXT:   hlo.multiply
// CHECK-NEXT:   hlo.reduce sum
// CHECK-NEXT:   hlo.return
func.func @sum_of_squares(%x: tensor<1024xf32>) -> tensor<f32> {
  %sq = hlo.multiply %x, %x : tensor<1024xf32>
  %s = hlo.reduce sum %sq, dims = [0] : tensor<1024xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// exp of a vector is not fused into a consumer that broadcasts it over 64
// columns: that would compute each exp 64 times.
// CHECK-LABEL: func.func @exp_is_not_recomputed_per_broadcast_element
// CHECK-SAME: (%[[V:.*]]: tensor<8xf32>, %[[X:.*]]: tensor<8x64xf32>)
// CHECK-NEXT: %[[E:.*]] = hlo.exp %[[V]] : tensor<8xf32>
// CHECK-NEXT: hlo.fusion loop (%[[EA:.*]] = %[[E]], %[[XA:.*]] = %[[X]])
// CHECK-NEXT:   hlo.broadcast_in_dim %[[EA]]
// CHECK-NEXT:   hlo.multiply
// CHECK-NEXT:   hlo.negate
func.func @exp_is_not_recomputed_per_broadcast_element(%v: tensor<8xf32>, %x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = hlo.exp %v : tensor<8xf32>
  %eb = hlo.broadcast_in_dim %e, dims = [0] : tensor<8xf32> -> tensor<8x64xf32>
  %m = hlo.multiply %x, %eb : tensor<8x64xf32>
  %n = hlo.negate %m : tensor<8x64xf32>
  return %n : tensor<8x64xf32>
}

// -----

// A broadcast that two groups read is cheap to recompute: each gets a copy,
// and the original goes.
// CHECK-LABEL: func.func @broadcast_is_copied_into_each_reader
// CHECK-SAME: (%[[B:.*]]: tensor<4xf32>, %[[X:.*]]: tensor<3x4xf32>, %[[W:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: hlo.fusion output (%[[BA:.*]] = %[[B]], %{{.*}} = %[[X]], %{{.*}} = %[[W]])
// CHECK-NEXT:   hlo.broadcast_in_dim %[[BA]], dims = [1]
// CHECK-NEXT:   hlo.dot_general
// CHECK-NEXT:   hlo.add
// CHECK-NEXT:   hlo.return
// CHECK-NEXT: }
// CHECK-NEXT: hlo.fusion loop (%[[BL:.*]] = %[[B]], %{{.*}} = %[[X]])
// CHECK-NEXT:   hlo.broadcast_in_dim %[[BL]], dims = [1]
// CHECK-NEXT:   hlo.exp
// CHECK-NEXT:   hlo.multiply
// CHECK-NEXT:   hlo.return
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @broadcast_is_copied_into_each_reader(%b: tensor<4xf32>, %x: tensor<3x4xf32>, %w: tensor<4x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %bb = hlo.broadcast_in_dim %b, dims = [1] : tensor<4xf32> -> tensor<3x4xf32>
  %d = hlo.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<3x4xf32>, tensor<4x4xf32> -> tensor<3x4xf32>
  %a = hlo.add %d, %bb : tensor<3x4xf32>
  %e = hlo.exp %x : tensor<3x4xf32>
  %m = hlo.multiply %e, %bb : tensor<3x4xf32>
  return %a, %m : tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// A value the group computes and a later op also reads is a second result
// (multi-output fusion).
// CHECK-LABEL: func.func @value_read_later_is_a_second_result
// CHECK-NEXT: %[[F:.*]]:2 = hlo.fusion input (%{{.*}} = %{{.*}}) : (tensor<16xf32>) -> (tensor<f32>, tensor<16xf32>) {
// CHECK-NEXT:   %[[E:.*]] = hlo.exp
// CHECK-NEXT:   %[[S:.*]] = hlo.reduce sum %[[E]]
// CHECK-NEXT:   hlo.return %[[S]], %[[E]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[K:.*]] = hlo.sort(%[[F]]#1)
// CHECK-NEXT: return %[[F]]#0, %[[K]]
func.func @value_read_later_is_a_second_result(%x: tensor<16xf32>) -> (tensor<f32>, tensor<16xf32>) {
  %e = hlo.exp %x : tensor<16xf32>
  %s = hlo.reduce sum %e, dims = [0] : tensor<16xf32> -> tensor<f32>
  %k = hlo.sort(%e) dim = 0, num_keys = 1 : tensor<16xf32>
  return %s, %k : tensor<f32>, tensor<16xf32>
}

// -----

// A value that an unfusible op reads before the group's last op cannot be
// the group's result (the group would run after its reader), and exp is
// too expensive to copy: it stays out.
// CHECK-LABEL: func.func @value_read_earlier_stays_out
// CHECK-NEXT: %[[E:.*]] = hlo.exp
// CHECK-NEXT: %[[K:.*]] = hlo.sort(%[[E]])
// CHECK-NEXT: hlo.fusion loop (%{{.*}} = %[[E]], %{{.*}} = %[[K]])
// CHECK-NEXT:   hlo.negate
// CHECK-NEXT:   hlo.add
func.func @value_read_earlier_stays_out(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %e = hlo.exp %x : tensor<16xf32>
  %k = hlo.sort(%e) dim = 0, num_keys = 1 : tensor<16xf32>
  %n = hlo.negate %e : tensor<16xf32>
  %a = hlo.add %n, %k : tensor<16xf32>
  return %a, %k : tensor<16xf32>, tensor<16xf32>
}

// -----

// Two reductions of the same rows that nothing connects share one kernel
// (multi-output fusion of siblings).
// CHECK-LABEL: func.func @sibling_reductions_merge
// CHECK-NEXT: %[[F:.*]]:2 = hlo.fusion input (%{{.*}} = %{{.*}}) : (tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:   %[[S:.*]] = hlo.reduce sum
// CHECK-NEXT:   %[[M:.*]] = hlo.reduce max
// CHECK-NEXT:   hlo.return %[[M]], %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]#1, %[[F]]#0
func.func @sibling_reductions_merge(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = hlo.reduce sum %x, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %m = hlo.reduce max %x, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %s, %m : tensor<4xf32>, tensor<4xf32>
}

// -----

// Reductions along different dimensions iterate differently: no merge.
// CHECK-LABEL: func.func @siblings_over_other_rows_stay_apart
// CHECK-NOT: hlo.fusion
// CHECK: return
func.func @siblings_over_other_rows_stay_apart(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  %s = hlo.reduce sum %x, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %m = hlo.reduce max %x, dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  return %s, %m : tensor<4xf32>, tensor<8xf32>
}

// -----

// A kernel has one kind of hero: the reduction, walked first, takes in the
// exp, and the matmul that feeds it stays a kernel of its own.
// CHECK-LABEL: func.func @matmul_then_reduction
// CHECK-NEXT: %[[D:.*]] = hlo.dot_general
// CHECK-NEXT: hlo.fusion input (%{{.*}} = %[[D]])
// CHECK-NEXT:   hlo.exp
// CHECK-NEXT:   hlo.reduce sum
// CHECK-NEXT:   hlo.return
func.func @matmul_then_reduction(%x: tensor<4x4xf32>) -> tensor<4xf32> {
  %d = hlo.dot_general %x, %x, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %e = hlo.exp %d : tensor<4x4xf32>
  %s = hlo.reduce sum %e, dims = [1] : tensor<4x4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// Blocks of control flow are fused like functions.
// CHECK-LABEL: func.func @loop_body
// CHECK: hlo.while
// CHECK: } do {
// CHECK-NEXT: hlo.add
// CHECK-NEXT: hlo.fusion loop
// CHECK-NEXT:   hlo.tanh
// CHECK-NEXT:   hlo.constant
// CHECK-NEXT:   hlo.multiply
func.func @loop_body(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %zero = hlo.constant dense<0> : tensor<i32>
  %one = hlo.constant dense<1> : tensor<i32>
  %r:2 = hlo.while (%i = %zero, %v = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %c = hlo.compare LT, %i, %n : tensor<i32> -> tensor<i1>
    hlo.return %c : tensor<i1>
  } do {
    %i1 = hlo.add %i, %one : tensor<i32>
    %t = hlo.tanh %v : tensor<4xf32>
    %h = hlo.constant dense<0.5> : tensor<4xf32>
    %m = hlo.multiply %t, %h : tensor<4xf32>
    hlo.return %i1, %m : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// -----

// Ops of dynamic shape, and ops no kernel kind holds, are left alone.
// CHECK-LABEL: func.func @nothing_to_fuse
// CHECK-NOT: hlo.fusion
// CHECK: return
func.func @nothing_to_fuse(%x: tensor<16xf32>) -> tensor<16xf32> {
  %k = hlo.sort(%x) dim = 0, num_keys = 1 : tensor<16xf32>
  %n = hlo.negate %k : tensor<16xf32>
  return %n : tensor<16xf32>
}

// -----

// Row sums of a square matrix broadcast along its columns reach every row:
// the reduction stays out of the group that reads them, which a kernel
// over rows could not compute row by row.
// CHECK-LABEL: func.func @row_sums_broadcast_across_rows_stay_out
// CHECK-NEXT: %[[S:.*]] = hlo.reduce sum
// CHECK-NEXT: hlo.fusion loop (%{{.*}} = %[[S]], %{{.*}} = %{{.*}})
// CHECK-NEXT:   hlo.broadcast_in_dim %{{.*}}, dims = [1]
// CHECK-NEXT:   hlo.subtract
func.func @row_sums_broadcast_across_rows_stay_out(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %s = hlo.reduce sum %x, dims = [1] : tensor<4x4xf32> -> tensor<4xf32>
  %b = hlo.broadcast_in_dim %s, dims = [1] : tensor<4xf32> -> tensor<4x4xf32>
  %d = hlo.subtract %x, %b : tensor<4x4xf32>
  return %d : tensor<4x4xf32>
}
