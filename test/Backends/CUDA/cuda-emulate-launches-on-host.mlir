// RUN: hlo-opt %s --pass-pipeline="builtin.module(func.func(cuda-emulate-launches-on-host),canonicalize,cse)" | FileCheck %s

// A launch becomes a loop over blocks; inside, each segment between
// barriers and block reductions is a loop over threads. A thread's value
// used after the cut lives in a per-thread slot; the reduction combines
// the slots in thread order; the block id is computed once per block.
// CHECK-LABEL: func.func @row_max
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[SLOT:.*]] = memref.alloca() : memref<64xf32>
// CHECK: scf.for %[[B:.*]] = %[[C0]] to %[[C3]] step %[[C1]]
// CHECK:   scf.for %[[T:.*]] = %[[C0]] to %[[C64]] step %[[C1]]
// CHECK:     %[[V:.*]] = memref.load %arg0[%[[B]], %[[T]]]
// CHECK:     memref.store %[[V]], %[[SLOT]][%[[T]]]
// CHECK:   %[[FIRST:.*]] = memref.load %[[SLOT]][%[[C0]]]
// CHECK:   %[[MAX:.*]] = scf.for %[[I:.*]] = %[[C1]] to %[[C64]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[FIRST]])
// CHECK:     %[[NEXT:.*]] = memref.load %[[SLOT]][%[[I]]]
// CHECK:     arith.maximumf %[[ACC]], %[[NEXT]]
// CHECK:   scf.for %[[T2:.*]] = %[[C0]] to %[[C64]] step %[[C1]]
// CHECK:     arith.cmpi eq, %[[T2]], %[[C0]]
// CHECK:     memref.store %[[MAX]], %arg1[%[[B]]]
// CHECK-NOT: gpu.
func.func @row_max(%x: memref<3x64xf32>, %y: memref<3xf32>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c3, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%b, %t] : memref<3x64xf32>
    %m = gpu.all_reduce maximumf %v uniform {} : (f32) -> f32
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      memref.store %m, %y[%b] : memref<3xf32>
    }
    gpu.terminator
  }
  return
}
