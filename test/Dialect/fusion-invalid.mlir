// Every verifier and parser error of hlo.fusion.
// RUN: hlo-opt %s -split-input-file -verify-diagnostics

func.func @unknown_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{expected a fusion kind (loop, input or output), got 'row'}}
  %r = hlo.fusion row (%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    hlo.return %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @fewer_types_than_arguments(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{expected 2 operand types, one per body argument, got 1}}
  %r = hlo.fusion loop (%a = %x, %b = %y) : (tensor<4xf32>) -> tensor<4xf32> {
    hlo.return %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @body_argument_type_mismatch(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.fusion' op body argument #0 has type 'tensor<4xf16>', but operand #0 has type 'tensor<4xf32>'}}
  %r = "hlo.fusion"(%x) ({
  ^bb0(%a: tensor<4xf16>):
    %c = hlo.convert %a : tensor<4xf16> -> tensor<4xf32>
    hlo.return %c : tensor<4xf32>
  }) {kind = #hlo<fusion_kind loop>} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @missing_body_argument(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.fusion' op body must take 1 arguments, one per operand, got 0}}
  %r = "hlo.fusion"(%x) ({
    %c = hlo.constant dense<1.0> : tensor<4xf32>
    hlo.return %c : tensor<4xf32>
  }) {kind = #hlo<fusion_kind loop>} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @no_results(%x: tensor<4xf32>) {
  // expected-error@+1 {{'hlo.fusion' op must return at least one value}}
  hlo.fusion loop (%a = %x) : (tensor<4xf32>) -> () {
    hlo.return
  }
  return
}

// -----

func.func @returns_the_wrong_type(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error@+1 {{'hlo.fusion' op body result #0 has type 'tensor<4xf32>', but the op's result #0 has type 'tensor<4xf64>'}}
  %r = hlo.fusion loop (%a = %x) : (tensor<4xf32>) -> tensor<4xf64> {
    %n = hlo.negate %a : tensor<4xf32>
    hlo.return %n : tensor<4xf32>
  }
  return %r : tensor<4xf64>
}

// -----

func.func @returns_too_few_values(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error@+1 {{'hlo.fusion' op body returns 1 values, but the op has 2 results}}
  %r:2 = hlo.fusion loop (%a = %x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    hlo.return %a : tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @captures_from_above(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note@+1 {{required by region isolation constraints}}
  %r = hlo.fusion loop () : () -> tensor<4xf32> {
    // expected-error@+1 {{'hlo.negate' op using value defined outside the region}}
    %n = hlo.negate %x : tensor<4xf32>
    hlo.return %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @holds_an_op_of_another_dialect(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.fusion' op body may hold only hlo ops without regions, got 'arith.negf'}}
  %r = hlo.fusion loop (%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %n = arith.negf %a : tensor<4xf32>
    hlo.return %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @loop_fusion_with_a_reduction(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error@+1 {{'hlo.fusion' op of kind loop may not hold a reduction, dot_general or convolution}}
  %r = hlo.fusion loop (%a = %x) : (tensor<4xf32>) -> tensor<f32> {
    %s = hlo.reduce sum %a, dims = [0] : tensor<4xf32> -> tensor<f32>
    hlo.return %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

func.func @input_fusion_without_a_reduction(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.fusion' op of kind input must hold an hlo.reduce and no dot_general or convolution}}
  %r = hlo.fusion input (%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %n = hlo.negate %a : tensor<4xf32>
    hlo.return %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @output_fusion_with_two_contractions(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error@+1 {{'hlo.fusion' op of kind output must hold exactly one dot_general or convolution and no hlo.reduce, got 2 and 0}}
  %r = hlo.fusion output (%a = %x) : (tensor<2x2xf32>) -> tensor<2x2xf32> {
    %0 = hlo.dot_general %a, %a, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
    %1 = hlo.dot_general %0, %a, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
    hlo.return %1 : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}
