// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// Operands are copied into fresh dense buffers, results get fresh buffers,
// and the op becomes a call of a private declaration that carries the
// routine, its config and the operand count.
// CHECK-LABEL: func.func private @__numlir_library_call_0
// CHECK-SAME: (memref<2x5x3xf64>, memref<2x5x3xf64>, memref<2x3xi32>, memref<2x5xi32>)
// CHECK-SAME: numlir.library_config = array<i64>
// CHECK-SAME: numlir.library_operands = 1 : i64
// CHECK-SAME: numlir.library_routine = "lapack.getrf"
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:[^:]*]]: tensor<2x5x3xf64>)
// CHECK: %[[BA:.*]] = memref.alloc() : memref<2x5x3xf64>
// CHECK: bufferization.materialize_in_destination %[[A]] in restrict writable %[[BA]]
// CHECK: %[[LU:.*]] = memref.alloc() : memref<2x5x3xf64>
// CHECK: %[[PIV:.*]] = memref.alloc() : memref<2x3xi32>
// CHECK: %[[PERM:.*]] = memref.alloc() : memref<2x5xi32>
// CHECK: call @__numlir_library_call_0(%[[BA]], %[[LU]], %[[PIV]], %[[PERM]])
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[LU]] restrict writable
// CHECK: return %[[T]]
func.func @main(%a: tensor<2x5x3xf64>) -> tensor<2x5x3xf64> {
  %r:3 = hlo.custom_call "lapack.getrf" (%a) config = [] : (tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>, tensor<2x3xi32>, tensor<2x5xi32>)
  return %r#0 : tensor<2x5x3xf64>
}

// -----

// Calls of one routine with one config and buffer types share a
// declaration; another config gets its own.
// CHECK-LABEL: func.func private @__numlir_library_call_1
// CHECK-SAME: numlir.library_config = array<i64: 1, 16>
// CHECK-LABEL: func.func private @__numlir_library_call_0
// CHECK-SAME: numlir.library_config = array<i64: 0, 16>
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @shared
// CHECK: call @__numlir_library_call_0(
// CHECK: call @__numlir_library_call_0(
// CHECK: call @__numlir_library_call_1(
func.func @shared(%x: tensor<16xcomplex<f32>>) -> (tensor<16xcomplex<f32>>, tensor<16xcomplex<f32>>, tensor<16xcomplex<f32>>) {
  %0 = hlo.custom_call "numlir.fft" (%x) config = [0, 16] : (tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>>
  %1 = hlo.custom_call "numlir.fft" (%0) config = [0, 16] : (tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>>
  %2 = hlo.custom_call "numlir.fft" (%1) config = [1, 16] : (tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>>
  return %0, %1, %2 : tensor<16xcomplex<f32>>, tensor<16xcomplex<f32>>, tensor<16xcomplex<f32>>
}
