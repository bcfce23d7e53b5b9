// RUN: hlo-opt %s --hlo-to-cpu | FileCheck %s

// The whole CPU pipeline: each callback's declaration gets a body that packs
// its buffers' pointers into two arrays and calls through the exported slot
// @numlir_entry_host_callback with (id, operands, count, results, count). The
// slot starts out at a function that does nothing; the runtime points it at
// its dispatcher. The calls stay in program order in the entry.
// CHECK-LABEL: llvm.func internal @__numlir_host_callback_10
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-DAG: %[[ID:.*]] = llvm.mlir.constant(10 : i64) : i64
// CHECK-DAG: %[[SLOT:.*]] = llvm.mlir.addressof @numlir_entry_host_callback : !llvm.ptr
// CHECK: %[[OPS:.*]] = llvm.alloca %[[ONE]] x !llvm.ptr
// CHECK: %[[RES:.*]] = llvm.alloca %[[ONE]] x !llvm.ptr
// CHECK: %[[FN:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call %[[FN]](%[[ID]], %[[OPS]], %[[ONE]], %[[RES]], %[[ONE]])
// CHECK-LABEL: llvm.func internal @__numlir_host_callback_9
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: llvm.call %{{.*}}(%{{.*}}, %{{.*}}, %{{.*}}, %[[NULL]], %[[ZERO]])
// CHECK-LABEL: llvm.func internal @main
// CHECK: llvm.call @__numlir_host_callback_9(
// CHECK: llvm.call @__numlir_host_callback_10(
// CHECK-LABEL: llvm.func internal @numlir_entry_host_callback_missing
// CHECK-NEXT: llvm.return
// CHECK: llvm.mlir.global external @numlir_entry_host_callback() {{.*}} : !llvm.ptr
// CHECK-NEXT: %[[MISSING:.*]] = llvm.mlir.addressof @numlir_entry_host_callback_missing
// CHECK-NEXT: llvm.return %[[MISSING]]
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = hlo.exp %x : tensor<4xf32>
  hlo.host_callback id = 9 (%e) {has_side_effect} : (tensor<4xf32>) -> ()
  %r = hlo.host_callback id = 10 (%e) : (tensor<4xf32>) -> tensor<4xf32>
  %s = hlo.add %r, %x : tensor<4xf32>
  return %s : tensor<4xf32>
}
