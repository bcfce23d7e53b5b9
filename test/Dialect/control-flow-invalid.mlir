// Every verifier error of hlo.while, hlo.if, hlo.case and hlo.return.
// RUN: hlo-opt %s -split-input-file -verify-diagnostics

func.func @while_result_count(%x: tensor<f32>, %p: tensor<i1>) {
  // expected-error@+1 {{'hlo.while' op has 1 operands but 0 results; they must be the carried values}}
  "hlo.while"(%x) ({
  ^bb0(%a: tensor<f32>):
    hlo.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>):
    hlo.return %a : tensor<f32>
  }) : (tensor<f32>) -> ()
  return
}

// -----

func.func @while_result_type(%x: tensor<f32>, %p: tensor<i1>) {
  // expected-error@+1 {{'hlo.while' op result #0 has type 'tensor<f64>', but operand #0 has type 'tensor<f32>'}}
  %r = "hlo.while"(%x) ({
  ^bb0(%a: tensor<f32>):
    hlo.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>):
    hlo.return %a : tensor<f32>
  }) : (tensor<f32>) -> tensor<f64>
  return
}

// -----

func.func @while_cond_arg_count(%x: tensor<f32>, %p: tensor<i1>) {
  // expected-error@+1 {{'hlo.while' op cond region must take 1 arguments, one per operand, got 0}}
  %r = "hlo.while"(%x) ({
    hlo.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>):
    hlo.return %a : tensor<f32>
  }) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @while_body_arg_type(%x: tensor<f32>, %p: tensor<i1>) {
  // expected-error@+1 {{'hlo.while' op body region argument #0 has type 'tensor<i32>', but operand #0 has type 'tensor<f32>'}}
  %r = "hlo.while"(%x) ({
  ^bb0(%a: tensor<f32>):
    hlo.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<i32>):
    hlo.return %x : tensor<f32>
  }) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @while_cond_not_pred(%x: tensor<f32>) {
  // expected-error@+1 {{'hlo.while' op cond region must return one tensor<i1>, got ('tensor<f32>')}}
  %r = hlo.while (%a = %x) : tensor<f32> cond {
    hlo.return %a : tensor<f32>
  } do {
    hlo.return %a : tensor<f32>
  }
  return
}

// -----

func.func @while_cond_no_value(%x: tensor<f32>) {
  // expected-error@+1 {{'hlo.while' op cond region must return one tensor<i1>, got no values}}
  %r = hlo.while (%a = %x) : tensor<f32> cond {
    hlo.return
  } do {
    hlo.return %a : tensor<f32>
  }
  return
}

// -----

func.func @while_body_result_count(%x: tensor<f32>, %p: tensor<i1>) {
  // expected-error@+1 {{'hlo.while' op body region must return 1 values, one per operand, got 2}}
  %r = hlo.while (%a = %x) : tensor<f32> cond {
    hlo.return %p : tensor<i1>
  } do {
    hlo.return %a, %a : tensor<f32>, tensor<f32>
  }
  return
}

// -----

func.func @while_body_result_type(%x: tensor<f32>, %y: tensor<2xf32>, %p: tensor<i1>) {
  // expected-error@+1 {{'hlo.while' op body region result #1 has type 'tensor<f32>', but operand #1 has type 'tensor<2xf32>'}}
  %r:2 = hlo.while (%a = %x, %b = %y) : tensor<f32>, tensor<2xf32> cond {
    hlo.return %p : tensor<i1>
  } do {
    hlo.return %a, %a : tensor<f32>, tensor<f32>
  }
  return
}

// -----

func.func @while_type_count(%x: tensor<f32>) {
  // expected-error@+1 {{expected 1 types, one per carried value, got 2}}
  %r = hlo.while (%a = %x) : tensor<f32>, tensor<f32> cond {
    hlo.return %a : tensor<f32>
  } do {
    hlo.return %a : tensor<f32>
  }
  return
}

// -----

func.func @while_wrong_terminator(%x: tensor<f32>) {
  // expected-error@+1 {{'hlo.while' op cond region must end with hlo.return}}
  %r = "hlo.while"(%x) ({
  ^bb0(%a: tensor<f32>):
    llvm.unreachable
  }, {
  ^bb0(%a: tensor<f32>):
    hlo.return %a : tensor<f32>
  }) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @if_pred_not_scalar(%p: tensor<2xi1>, %x: tensor<f32>) {
  // expected-error@+1 {{'hlo.if' op operand #0 must be scalar pred tensor (tensor<i1>), but got 'tensor<2xi1>'}}
  %r = "hlo.if"(%p) ({
    hlo.return %x : tensor<f32>
  }, {
    hlo.return %x : tensor<f32>
  }) : (tensor<2xi1>) -> tensor<f32>
  return
}

// -----

func.func @if_then_result_count(%p: tensor<i1>, %x: tensor<f32>) {
  // expected-error@+1 {{'hlo.if' op then_branch returns 2 values, but the op has 1 results}}
  %r = hlo.if %p -> (tensor<f32>) {
    hlo.return %x, %x : tensor<f32>, tensor<f32>
  } else {
    hlo.return %x : tensor<f32>
  }
  return
}

// -----

func.func @if_else_result_type(%p: tensor<i1>, %x: tensor<f32>, %y: tensor<i32>) {
  // expected-error@+1 {{'hlo.if' op else_branch result #0 has type 'tensor<i32>', but the op's result #0 has type 'tensor<f32>'}}
  %r = hlo.if %p -> (tensor<f32>) {
    hlo.return %x : tensor<f32>
  } else {
    hlo.return %y : tensor<i32>
  }
  return
}

// -----

func.func @if_branch_arguments(%p: tensor<i1>, %x: tensor<f32>) {
  // expected-error@+1 {{'hlo.if' op then_branch must take no arguments, got 1}}
  %r = "hlo.if"(%p) ({
  ^bb0(%a: tensor<f32>):
    hlo.return %a : tensor<f32>
  }, {
    hlo.return %x : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  return
}

// -----

func.func @case_index_type(%i: tensor<i64>, %x: tensor<f32>) {
  // expected-error@+1 {{'hlo.case' op operand #0 must be scalar i32 tensor (tensor<i32>), but got 'tensor<i64>'}}
  %r = "hlo.case"(%i) ({
    hlo.return %x : tensor<f32>
  }) : (tensor<i64>) -> tensor<f32>
  return
}

// -----

func.func @case_no_branches(%i: tensor<i32>) {
  // expected-error@+1 {{'hlo.case' op must have at least one branch}}
  "hlo.case"(%i) : (tensor<i32>) -> ()
  return
}

// -----

func.func @case_branch_result_type(%i: tensor<i32>, %x: tensor<f32>, %y: tensor<2xf32>) {
  // expected-error@+1 {{'hlo.case' op branch #1 result #0 has type 'tensor<2xf32>', but the op's result #0 has type 'tensor<f32>'}}
  %r = hlo.case %i -> (tensor<f32>) {
    hlo.return %x : tensor<f32>
  }, {
    hlo.return %y : tensor<2xf32>
  }
  return
}

// -----

func.func @case_branch_result_count(%i: tensor<i32>, %x: tensor<f32>) {
  // expected-error@+1 {{'hlo.case' op branch #0 returns 0 values, but the op has 1 results}}
  %r = hlo.case %i -> (tensor<f32>) {
    hlo.return
  }
  return
}

// -----

func.func @return_outside_control_flow(%x: tensor<f32>) {
  // expected-error@+1 {{'hlo.return' op expects parent op to be one of 'hlo.while, hlo.if, hlo.case, hlo.fusion'}}
  hlo.return %x : tensor<f32>
}
