// RUN: hlo-translate --hlo-to-stablehlo --split-input-file --verify-diagnostics %s

// Ops without a translation yet are named; nothing is written.
func.func @scatter(%a: tensor<5xf32>, %i: tensor<2x1xi32>, %u: tensor<2xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{'hlo.scatter' op has no StableHLO translation yet}}
  %0 = hlo.scatter max %a[%i], %u, update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<5xf32>[tensor<2x1xi32>], tensor<2xf32>
  return %0 : tensor<5xf32>
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
