// RUN: hlo-translate --hlo-to-stablehlo --split-input-file --verify-diagnostics %s

// Ops without a translation yet are named; nothing is written.
func.func @sort(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'hlo.sort' op has no StableHLO translation yet}}
  %0 = hlo.sort(%x) dim = 1, num_keys = 1 : tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// An op with regions is reported itself, not its terminator.
func.func @fusion(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.fusion' op has no StableHLO translation yet}}
  %r = hlo.fusion loop (%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %e = hlo.exp %a : tensor<4xf32>
    hlo.return %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
