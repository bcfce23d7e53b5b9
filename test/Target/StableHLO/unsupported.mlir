// RUN: hlo-translate --hlo-to-stablehlo --split-input-file --verify-diagnostics %s

// Ops without a translation yet are named; nothing is written.
func.func @host_callback(%x: tensor<4xf32>) {
  // expected-error@+1 {{'hlo.host_callback' op has no StableHLO translation yet}}
  hlo.host_callback id = 0 (%x) {has_side_effect} : (tensor<4xf32>) -> ()
  return
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

// -----

// Collectives: pmap's modules run on numlir's CPU devices for now.
func.func @all_reduce(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.all_reduce' op has no StableHLO translation yet}}
  %r = hlo.all_reduce sum %x, replica_groups = [[0, 1]] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Library calls exist only in numlir's CPU runtime.
func.func @custom_call(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'hlo.custom_call' op calls a library routine of numlir's CPU runtime, which PJRT compilers do not have; export the module lowered without library calls (numlir's StableHLO export does so)}}
  %r = hlo.custom_call "lapack.potrf" (%x) config = [] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
