// RUN: hlo-opt %s --hlo-to-cpu | FileCheck %s

// The whole CPU pipeline: each library call's declaration gets a body that
// packs its buffers' pointers into one array and calls through the exported
// slot @numlir_entry_library_call with (routine, descriptor, buffers). The
// descriptor is [version, operands, results, per buffer: dtype, rank, dims,
// then the config size and config]: here one complex<f32> (13) operand and
// result of shape 2x16, config [0, 16]. The routines are listed for the
// runtime to check at load.
// CHECK-LABEL: llvm.func internal @__numlir_library_call_0
// CHECK-DAG: %[[TWO:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-DAG: %[[SLOT:.*]] = llvm.mlir.addressof @numlir_entry_library_call : !llvm.ptr
// CHECK-DAG: %[[NAME:.*]] = llvm.mlir.addressof @__numlir_library_call_0_routine : !llvm.ptr
// CHECK-DAG: %[[DESC:.*]] = llvm.mlir.addressof @__numlir_library_call_0_descriptor : !llvm.ptr
// CHECK: %[[BUFS:.*]] = llvm.alloca %[[TWO]] x !llvm.ptr
// CHECK: %[[FN:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call %[[FN]](%[[NAME]], %[[DESC]], %[[BUFS]])
// CHECK-LABEL: llvm.func internal @main
// CHECK: llvm.call @__numlir_library_call_0(
// CHECK-LABEL: llvm.func internal @numlir_entry_library_call_missing
// CHECK-NEXT: llvm.return
// CHECK: llvm.mlir.global external @numlir_entry_library_call() {{.*}} : !llvm.ptr
// CHECK: llvm.mlir.global internal constant @__numlir_library_call_0_descriptor(dense<[1, 1, 1, 13, 2, 2, 16, 13, 2, 2, 16, 2, 0, 16]> : tensor<14xi64>)
// CHECK: llvm.mlir.global internal constant @__numlir_library_call_0_routine("numlir.fft\00")
// CHECK: llvm.mlir.global external constant @numlir_entry_library_routines("numlir.fft\00")
func.func @main(%x: tensor<2x16xcomplex<f32>>) -> tensor<2x16xcomplex<f32>> {
  %y = hlo.custom_call "numlir.fft" (%x) config = [0, 16] : (tensor<2x16xcomplex<f32>>) -> tensor<2x16xcomplex<f32>>
  return %y : tensor<2x16xcomplex<f32>>
}
