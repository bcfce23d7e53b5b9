// Every verifier error of hlo.custom_call.
// RUN: hlo-opt %s -split-input-file -verify-diagnostics

func.func @unknown(%a: tensor<4x4xf32>) {
  // expected-error@+1 {{'hlo.custom_call' op unknown call target 'lapack.potri'; the targets are lapack.potrf, lapack.getrf, lapack.trsm, lapack.geqrf, lapack.orgqr, lapack.syevd, lapack.gesdd, lapack.geev, lapack.gees and numlir.fft}}
  %0 = hlo.custom_call "lapack.potri" (%a) config = [] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @counts(%a: tensor<4x4xf32>) {
  // expected-error@+1 {{'lapack.potrf' takes 1 operand(s) and gives 1 result(s), got 2 and 1}}
  %0 = hlo.custom_call "lapack.potrf" (%a, %a) config = [] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @config_size(%a: tensor<4x4xf32>) {
  // expected-error@+1 {{'lapack.potrf' takes 0 config value(s), got 1}}
  %0 = hlo.custom_call "lapack.potrf" (%a) config = [1] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @integer_matrix(%a: tensor<4x4xi32>) {
  // expected-error@+1 {{operand must be a batch of f32, f64 or complex matrices (rank >= 2), got 'tensor<4x4xi32>'}}
  %0 = hlo.custom_call "lapack.potrf" (%a) config = [] : (tensor<4x4xi32>) -> tensor<4x4xi32>
  return
}

// -----

func.func @vector(%a: tensor<4xf32>) {
  // expected-error@+1 {{operand must be a batch of f32, f64 or complex matrices (rank >= 2), got 'tensor<4xf32>'}}
  %0 = hlo.custom_call "lapack.potrf" (%a) config = [] : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @not_square(%a: tensor<4x3xf32>) {
  // expected-error@+1 {{operand must hold square matrices, got 'tensor<4x3xf32>'}}
  %0 = hlo.custom_call "lapack.potrf" (%a) config = [] : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @potrf_result(%a: tensor<4x4xf32>) {
  // expected-error@+1 {{result must be 'tensor<4x4xf32>', got 'tensor<4x4xf64>'}}
  %0 = hlo.custom_call "lapack.potrf" (%a) config = [] : (tensor<4x4xf32>) -> tensor<4x4xf64>
  return
}

// -----

func.func @getrf_pivots(%a: tensor<2x5x3xf32>) {
  // expected-error@+1 {{result #1 (pivots) must be 'tensor<2x3xi32>', got 'tensor<2x5xi32>'}}
  %0:3 = hlo.custom_call "lapack.getrf" (%a) config = [] : (tensor<2x5x3xf32>) -> (tensor<2x5x3xf32>, tensor<2x5xi32>, tensor<2x5xi32>)
  return
}

// -----

func.func @getrf_permutation(%a: tensor<2x5x3xf32>) {
  // expected-error@+1 {{result #2 (permutation) must be 'tensor<2x5xi32>', got 'tensor<2x3xi64>'}}
  %0:3 = hlo.custom_call "lapack.getrf" (%a) config = [] : (tensor<2x5x3xf32>) -> (tensor<2x5x3xf32>, tensor<2x3xi32>, tensor<2x3xi64>)
  return
}

// -----

func.func @trsm_config(%a: tensor<4x4xf32>, %b: tensor<4x2xf32>) {
  // expected-error@+1 {{'lapack.trsm' config is [left_side (0/1), lower (0/1), transpose (0 none, 1 transpose, 2 adjoint), unit_diagonal (0/1)], got [1, 0, 3, 0]}}
  %0 = hlo.custom_call "lapack.trsm" (%a, %b) config = [1, 0, 3, 0] : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @trsm_types(%a: tensor<4x4xf32>, %b: tensor<4x2xf64>) {
  // expected-error@+1 {{a and b element types must be equal, got 'f32' and 'f64'}}
  %0 = hlo.custom_call "lapack.trsm" (%a, %b) config = [1, 0, 0, 0] : (tensor<4x4xf32>, tensor<4x2xf64>) -> tensor<4x2xf64>
  return
}

// -----

func.func @trsm_batch(%a: tensor<3x4x4xf32>, %b: tensor<2x4x2xf32>) {
  // expected-error@+1 {{a and b must have the same batch dimensions, got 'tensor<3x4x4xf32>' and 'tensor<2x4x2xf32>'}}
  %0 = hlo.custom_call "lapack.trsm" (%a, %b) config = [1, 0, 0, 0] : (tensor<3x4x4xf32>, tensor<2x4x2xf32>) -> tensor<2x4x2xf32>
  return
}

// -----

func.func @trsm_right_side(%a: tensor<4x4xf32>, %b: tensor<4x2xf32>) {
  // expected-error@+1 {{b's columns (2) must match a's order (4)}}
  %0 = hlo.custom_call "lapack.trsm" (%a, %b) config = [0, 0, 0, 0] : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @orgqr_wide(%a: tensor<3x5xf32>, %t: tensor<3xf32>) {
  // expected-error@+1 {{'lapack.orgqr' needs reflectors (..., m, n) with m >= n and taus (..., k) with k <= n of their type, got 'tensor<3x5xf32>' and 'tensor<3xf32>'}}
  %0 = hlo.custom_call "lapack.orgqr" (%a, %t) config = [] : (tensor<3x5xf32>, tensor<3xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @syevd_values(%a: tensor<3x3xcomplex<f32>>) {
  // expected-error@+1 {{result #1 (values) must be 'tensor<3xf32>', got 'tensor<3xcomplex<f32>>'}}
  %0:2 = hlo.custom_call "lapack.syevd" (%a) config = [0] : (tensor<3x3xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xcomplex<f32>>)
  return
}

// -----

func.func @syevd_flag(%a: tensor<3x3xf32>) {
  // expected-error@+1 {{'lapack.syevd' config is [lower], each 0 or 1, got [2]}}
  %0:2 = hlo.custom_call "lapack.syevd" (%a) config = [2] : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @gesdd_reduced_u(%a: tensor<5x3xf32>) {
  // expected-error@+1 {{result #1 (u) must be 'tensor<5x3xf32>', got 'tensor<5x5xf32>'}}
  %0:3 = hlo.custom_call "lapack.gesdd" (%a) config = [0, 1] : (tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x5xf32>, tensor<3x3xf32>)
  return
}

// -----

func.func @gesdd_values_only(%a: tensor<5x3xf32>) {
  // expected-error@+1 {{'lapack.gesdd' takes 1 operand(s) and gives 1 result(s), got 1 and 3}}
  %0:3 = hlo.custom_call "lapack.gesdd" (%a) config = [0, 0] : (tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>, tensor<3x3xf32>)
  return
}

// -----

func.func @geev_real_values(%a: tensor<3x3xf64>) {
  // expected-error@+1 {{result #0 (values) must be 'tensor<3xcomplex<f64>>', got 'tensor<3xf64>'}}
  %0 = hlo.custom_call "lapack.geev" (%a) config = [0] : (tensor<3x3xf64>) -> tensor<3xf64>
  return
}

// -----

func.func @gees_square(%a: tensor<3x4xf64>) {
  // expected-error@+1 {{operand must hold square matrices, got 'tensor<3x4xf64>'}}
  %0:2 = hlo.custom_call "lapack.gees" (%a) config = [] : (tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return
}

// -----

func.func @fft_type(%x: tensor<16xcomplex<f32>>) {
  // expected-error@+1 {{fft_type must be 0 (FFT), 1 (IFFT), 2 (RFFT) or 3 (IRFFT), got 4}}
  %0 = hlo.custom_call "numlir.fft" (%x) config = [4, 16] : (tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>>
  return
}

// -----

func.func @fft_rank(%x: tensor<2x2x2x2xcomplex<f32>>) {
  // expected-error@+1 {{'numlir.fft' config is [fft_type, 1 to 3 lengths], got 5 value(s)}}
  %0 = hlo.custom_call "numlir.fft" (%x) config = [0, 2, 2, 2, 2] : (tensor<2x2x2x2xcomplex<f32>>) -> tensor<2x2x2x2xcomplex<f32>>
  return
}

// -----

func.func @fft_zero_length(%x: tensor<0xcomplex<f32>>) {
  // expected-error@+1 {{fft lengths must be positive, got [0]}}
  %0 = hlo.custom_call "numlir.fft" (%x) config = [0, 0] : (tensor<0xcomplex<f32>>) -> tensor<0xcomplex<f32>>
  return
}

// -----

func.func @rfft_of_complex(%x: tensor<16xcomplex<f32>>) {
  // expected-error@+1 {{RFFT needs a real operand, got 'tensor<16xcomplex<f32>>'}}
  %0 = hlo.custom_call "numlir.fft" (%x) config = [2, 16] : (tensor<16xcomplex<f32>>) -> tensor<9xcomplex<f32>>
  return
}

// -----

func.func @fft_of_real(%x: tensor<16xf32>) {
  // expected-error@+1 {{FFT, IFFT and IRFFT need a complex operand, got 'tensor<16xf32>'}}
  %0 = hlo.custom_call "numlir.fft" (%x) config = [0, 16] : (tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @irfft_input(%x: tensor<4x16xcomplex<f64>>) {
  // expected-error@+1 {{operand's trailing dimensions must be [9], got 'tensor<4x16xcomplex<f64>>'}}
  %0 = hlo.custom_call "numlir.fft" (%x) config = [3, 16] : (tensor<4x16xcomplex<f64>>) -> tensor<4x16xf64>
  return
}

// -----

func.func @rfft_result(%x: tensor<4x16xf64>) {
  // expected-error@+1 {{result must be 'tensor<4x9xcomplex<f64>>', got 'tensor<4x16xcomplex<f64>>'}}
  %0 = hlo.custom_call "numlir.fft" (%x) config = [2, 16] : (tensor<4x16xf64>) -> tensor<4x16xcomplex<f64>>
  return
}

// -----

func.func @fft_integer(%x: tensor<16xi32>) {
  // expected-error@+1 {{operand must hold f32, f64 or complex values, got 'tensor<16xi32>'}}
  %0 = hlo.custom_call "numlir.fft" (%x) config = [2, 16] : (tensor<16xi32>) -> tensor<9xcomplex<f32>>
  return
}
