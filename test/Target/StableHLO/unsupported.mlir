// RUN: hlo-translate --hlo-to-stablehlo --split-input-file --verify-diagnostics %s

// Ops without a translation yet are named; nothing is written.
func.func @convolution(%x: tensor<1x4x8xf32>, %w: tensor<6x4x3xf32>) -> tensor<1x6x6xf32> {
  // expected-error@+1 {{'hlo.convolution' op has no StableHLO translation yet}}
  %0 = hlo.convolution %x, %w, dims = [b, f, 0]x[o, i, 0]->[b, f, 0] : tensor<1x4x8xf32>, tensor<6x4x3xf32> -> tensor<1x6x6xf32>
  return %0 : tensor<1x6x6xf32>
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
