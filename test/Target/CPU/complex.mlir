// RUN: hlo-opt %s --hlo-to-cpu --split-input-file | FileCheck %s
// RUN: hlo-opt %s --hlo-to-cpu --split-input-file | FileCheck %s --check-prefix=LLVM-ONLY
// RUN: hlo-opt %s --hlo-to-cpu --split-input-file | mlir-translate --mlir-to-llvmir --split-input-file | FileCheck %s --check-prefix=IR

// Complex programs go through the whole CPU pipeline: the complex dialect
// expands into float arithmetic on the parts, and complex values are
// {float, float} (or {double, double}) structs, laid out as numpy's
// complex64 and complex128; the signature spells them c64 and c128.
// LLVM-ONLY-NOT: {{ (hlo|linalg|memref|tensor|bufferization|arith|math|scf|cf|func|affine|complex)\.}}
// LLVM-ONLY-NOT: unrealized_conversion_cast

// Elementwise ops, a row reduction, a matrix product and parts.
// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("c64[8,16];c64[16,4];f32[8,16]->c64[8,4];c64[8];f32[8,16]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
// IR: @numlir_entry_signature = constant {{.*}} c"c64[8,16];c64[16,4];f32[8,16]->c64[8,4];c64[8];f32[8,16]\00"
// IR: define internal void @main(
// IR: { float, float }
// IR: define void @numlir_entry(ptr %{{.*}})
func.func @main(%a: tensor<8x16xcomplex<f32>>, %b: tensor<16x4xcomplex<f32>>, %x: tensor<8x16xf32>) -> (tensor<8x4xcomplex<f32>>, tensor<8xcomplex<f32>>, tensor<8x16xf32>) {
  %c = hlo.constant dense<(1.0, 2.0)> : tensor<8x16xcomplex<f32>>
  %s = hlo.add %a, %c : tensor<8x16xcomplex<f32>>
  %m = hlo.multiply %s, %a : tensor<8x16xcomplex<f32>>
  %d = hlo.divide %m, %c : tensor<8x16xcomplex<f32>>
  %e = hlo.exp %d : tensor<8x16xcomplex<f32>>
  %l = hlo.log %e : tensor<8x16xcomplex<f32>>
  %q = hlo.sqrt %l : tensor<8x16xcomplex<f32>>
  %dot = hlo.dot_general %q, %b, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<8x16xcomplex<f32>>, tensor<16x4xcomplex<f32>> -> tensor<8x4xcomplex<f32>>
  %r = hlo.reduce sum %q, dims = [1] : tensor<8x16xcomplex<f32>> -> tensor<8xcomplex<f32>>
  %ab = hlo.abs %q : tensor<8x16xcomplex<f32>> -> tensor<8x16xf32>
  %re = hlo.real %q : tensor<8x16xcomplex<f32>> -> tensor<8x16xf32>
  %y = hlo.add %ab, %re : tensor<8x16xf32>
  %y2 = hlo.add %y, %x : tensor<8x16xf32>
  return %dot, %r, %y2 : tensor<8x4xcomplex<f32>>, tensor<8xcomplex<f32>>, tensor<8x16xf32>
}

// -----

// Large enough for the parallel loops, row tiles and split reductions; in
// complex<f64>, with conversions, compare, select and the transcendental
// ops.
// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("c128[256,1024];f64[256,1024]->c128[256,1024];c128[];c128[4];i1[256,1024]\00")
// IR: @numlir_entry_signature = constant {{.*}} c"c128[256,1024];f64[256,1024]->c128[256,1024];c128[];c128[4];i1[256,1024]\00"
// IR: { double, double }
func.func @main(%x: tensor<256x1024xcomplex<f64>>, %f: tensor<256x1024xf64>) -> (tensor<256x1024xcomplex<f64>>, tensor<complex<f64>>, tensor<4xcomplex<f64>>, tensor<256x1024xi1>) {
  %e = hlo.exp %x : tensor<256x1024xcomplex<f64>>
  %s = hlo.reduce sum %e, dims = [1] : tensor<256x1024xcomplex<f64>> -> tensor<256xcomplex<f64>>
  %b = hlo.broadcast_in_dim %s, dims = [0] : tensor<256xcomplex<f64>> -> tensor<256x1024xcomplex<f64>>
  %d = hlo.divide %e, %b : tensor<256x1024xcomplex<f64>>
  %t = hlo.reduce sum %x, dims = [0, 1] : tensor<256x1024xcomplex<f64>> -> tensor<complex<f64>>
  %c = hlo.convert %f : tensor<256x1024xf64> -> tensor<256x1024xcomplex<f64>>
  %eq = hlo.compare EQ, %c, %x : tensor<256x1024xcomplex<f64>> -> tensor<256x1024xi1>
  %w = hlo.select %eq, %d, %c : tensor<256x1024xi1>, tensor<256x1024xcomplex<f64>>
  %p = hlo.power %w, %x : tensor<256x1024xcomplex<f64>>
  %g = hlo.sign %p : tensor<256x1024xcomplex<f64>>
  %h = hlo.tanh %g : tensor<256x1024xcomplex<f64>>
  %sl = hlo.slice %h, start = [0, 0], limit = [4, 1024], strides = [1, 1] : tensor<256x1024xcomplex<f64>> -> tensor<4x1024xcomplex<f64>>
  %pr = hlo.reduce prod %sl, dims = [1] : tensor<4x1024xcomplex<f64>> -> tensor<4xcomplex<f64>>
  return %h, %t, %pr, %eq : tensor<256x1024xcomplex<f64>>, tensor<complex<f64>>, tensor<4xcomplex<f64>>, tensor<256x1024xi1>
}
