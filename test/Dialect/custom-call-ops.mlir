// RUN: hlo-opt %s | hlo-opt | FileCheck %s
// Every hlo.custom_call target round-trips through its assembly format.

// CHECK-LABEL: func.func @targets
func.func @targets(%a: tensor<8x4x4xf32>, %w: tensor<2x5x3xf64>,
                   %c: tensor<3x3xcomplex<f64>>, %b: tensor<8x4x2xf32>,
                   %x: tensor<2x16xcomplex<f32>>, %r: tensor<3x6x9xf64>) {
  // CHECK: hlo.custom_call "lapack.potrf"(%{{.*}}) config = [] : (tensor<8x4x4xf32>) -> tensor<8x4x4xf32>
  %0 = hlo.custom_call "lapack.potrf" (%a) config = [] : (tensor<8x4x4xf32>) -> tensor<8x4x4xf32>
  // CHECK: hlo.custom_call "lapack.getrf"(%{{.*}}) config = [] : (tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>, tensor<2x3xi32>, tensor<2x5xi32>)
  %1:3 = hlo.custom_call "lapack.getrf" (%w) config = [] : (tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>, tensor<2x3xi32>, tensor<2x5xi32>)
  // CHECK: hlo.custom_call "lapack.trsm"(%{{.*}}, %{{.*}}) config = [1, 0, 2, 1]
  %2 = hlo.custom_call "lapack.trsm" (%a, %b) config = [1, 0, 2, 1] : (tensor<8x4x4xf32>, tensor<8x4x2xf32>) -> tensor<8x4x2xf32>
  // CHECK: hlo.custom_call "lapack.geqrf"
  %3:2 = hlo.custom_call "lapack.geqrf" (%w) config = [] : (tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>, tensor<2x3xf64>)
  // CHECK: hlo.custom_call "lapack.orgqr"
  %4 = hlo.custom_call "lapack.orgqr" (%3#0, %3#1) config = [] : (tensor<2x5x3xf64>, tensor<2x3xf64>) -> tensor<2x5x3xf64>
  // CHECK: hlo.custom_call "lapack.syevd"(%{{.*}}) config = [1] : (tensor<3x3xcomplex<f64>>) -> (tensor<3x3xcomplex<f64>>, tensor<3xf64>)
  %5:2 = hlo.custom_call "lapack.syevd" (%c) config = [1] : (tensor<3x3xcomplex<f64>>) -> (tensor<3x3xcomplex<f64>>, tensor<3xf64>)
  // CHECK: hlo.custom_call "lapack.gesdd"(%{{.*}}) config = [0, 1] : (tensor<2x5x3xf64>) -> (tensor<2x3xf64>, tensor<2x5x3xf64>, tensor<2x3x3xf64>)
  %6:3 = hlo.custom_call "lapack.gesdd" (%w) config = [0, 1] : (tensor<2x5x3xf64>) -> (tensor<2x3xf64>, tensor<2x5x3xf64>, tensor<2x3x3xf64>)
  // CHECK: hlo.custom_call "lapack.gesdd"(%{{.*}}) config = [1, 0] : (tensor<2x5x3xf64>) -> tensor<2x3xf64>
  %7 = hlo.custom_call "lapack.gesdd" (%w) config = [1, 0] : (tensor<2x5x3xf64>) -> tensor<2x3xf64>
  // CHECK: hlo.custom_call "lapack.geev"(%{{.*}}) config = [1] : (tensor<8x4x4xf32>) -> (tensor<8x4xcomplex<f32>>, tensor<8x4x4xcomplex<f32>>)
  %8:2 = hlo.custom_call "lapack.geev" (%a) config = [1] : (tensor<8x4x4xf32>) -> (tensor<8x4xcomplex<f32>>, tensor<8x4x4xcomplex<f32>>)
  // CHECK: hlo.custom_call "lapack.gees"
  %9:2 = hlo.custom_call "lapack.gees" (%c) config = [] : (tensor<3x3xcomplex<f64>>) -> (tensor<3x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>)
  // CHECK: hlo.custom_call "numlir.fft"(%{{.*}}) config = [1, 16] : (tensor<2x16xcomplex<f32>>) -> tensor<2x16xcomplex<f32>>
  %10 = hlo.custom_call "numlir.fft" (%x) config = [1, 16] : (tensor<2x16xcomplex<f32>>) -> tensor<2x16xcomplex<f32>>
  // CHECK: hlo.custom_call "numlir.fft"(%{{.*}}) config = [2, 6, 9] : (tensor<3x6x9xf64>) -> tensor<3x6x5xcomplex<f64>>
  %11 = hlo.custom_call "numlir.fft" (%r) config = [2, 6, 9] : (tensor<3x6x9xf64>) -> tensor<3x6x5xcomplex<f64>>
  // CHECK: hlo.custom_call "numlir.fft"(%{{.*}}) config = [3, 6, 9] : (tensor<3x6x5xcomplex<f64>>) -> tensor<3x6x9xf64>
  %12 = hlo.custom_call "numlir.fft" (%11) config = [3, 6, 9] : (tensor<3x6x5xcomplex<f64>>) -> tensor<3x6x9xf64>
  return
}
