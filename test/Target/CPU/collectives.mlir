// RUN: hlo-opt %s --hlo-to-cpu --split-input-file | FileCheck %s

// The whole CPU pipeline: each collective's declaration gets a body that
// calls through the exported slot @numlir_entry_collective with (index,
// operand, result); replica_id passes no operand. The slot starts out at a
// function that does nothing; the runtime points it at its dispatcher. The
// entry also exports the replica count and the record table, whose layout is
// the runtime's ABI (docs/runtime.md#collectives), and the user lines:
//   [version 1, length 23, count 2, offset 5, offset 14,
//    all_reduce: op 0, kind 0 (sum), dtype 2 (f32), 4 elements, 1 group of 2: 0 1, location 0,
//    replica_id: op 1, kind -1, dtype 11 (ui32), 1 element, 1 group of 2: 0 1, location 1]
// CHECK-LABEL: llvm.func internal @__numlir_collective_1
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-DAG: %[[SLOT:.*]] = llvm.mlir.addressof @numlir_entry_collective : !llvm.ptr
// CHECK: %[[FN:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call %[[FN]](%[[ONE]], %[[NULL]], %{{.*}})
// CHECK-LABEL: llvm.func internal @__numlir_collective_0
// CHECK-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: llvm.call %{{.*}}(%[[ZERO]], %{{.*}}, %{{.*}})
// CHECK-LABEL: llvm.func internal @main
// CHECK: llvm.call @__numlir_collective_0(
// CHECK: llvm.call @__numlir_collective_1(
// CHECK: llvm.mlir.global external constant @numlir_entry_num_replicas(dense<2> : tensor<1xi64>)
// CHECK: llvm.mlir.global external constant @numlir_entry_collectives(dense<[1, 23, 2, 5, 14, 0, 0, 2, 4, 1, 2, 0, 1, 0, 1, -1, 11, 1, 1, 2, 0, 1, 1]> : tensor<23xi64>)
// CHECK: llvm.mlir.global external constant @numlir_entry_collective_locations("model.py:12:5\0Amodel.py:13:9\00")
// CHECK-LABEL: llvm.func internal @numlir_entry_collective_missing
// CHECK-NEXT: llvm.return
// CHECK: llvm.mlir.global external @numlir_entry_collective() {{.*}} : !llvm.ptr
module attributes {numlir.num_replicas = 2 : i64} {
  func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<ui32>) {
    %e = hlo.exp %x : tensor<4xf32>
    %s = hlo.all_reduce sum %e, replica_groups = [[0, 1]] : tensor<4xf32> loc("model.py":12:5)
    %i = hlo.replica_id : tensor<ui32> loc("model.py":13:9)
    return %s, %i : tensor<4xf32>, tensor<ui32>
  }
}

// -----

// Records of the block collectives: all_gather (op 2) counts its operand's 6
// elements, whatever dim it gathers along (the lowering transposes it
// outermost); collective_permute (op 5) lists its one (source, target) pair
// where the groups go.
// CHECK-LABEL: llvm.func internal @main
// CHECK: llvm.mlir.global external constant @numlir_entry_collectives(dense<[1, 23, 2, 5, 14, 2, -1, 2, 6, 1, 2, 0, 1, -1, 5, -1, 7, 4, 1, 2, 1, 0, -1]> : tensor<23xi64>)
module attributes {numlir.num_replicas = 2 : i64} {
  func.func @main(%x: tensor<2x3xf32>, %y: tensor<4xi32>) -> (tensor<2x6xf32>, tensor<4xi32>) {
    %g = hlo.all_gather %x, dim = 1, replica_groups = [[0, 1]] : tensor<2x3xf32> -> tensor<2x6xf32>
    %p = hlo.collective_permute %y, pairs = [[1, 0]] : tensor<4xi32>
    return %g, %p : tensor<2x6xf32>, tensor<4xi32>
  }
}
