// RUN: hlo-translate --hlo-to-stablehlo --split-input-file --verify-diagnostics %s

// Ops without a translation yet are named; nothing is written.
func.func @cumulative(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.cumulative' op has no StableHLO translation yet}}
  %0 = hlo.cumulative sum %x, dim = 0, reverse = false : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An op with regions is reported itself, not its terminator.
func.func @while_loop(%n: tensor<i32>) -> tensor<i32> {
  // expected-error@+1 {{'hlo.while' op has no StableHLO translation yet}}
  %r = hlo.while (%i = %n) : tensor<i32> cond {
    %c = hlo.compare LT, %i, %n : tensor<i32> -> tensor<i1>
    hlo.return %c : tensor<i1>
  } do {
    hlo.return %i : tensor<i32>
  }
  return %r : tensor<i32>
}
