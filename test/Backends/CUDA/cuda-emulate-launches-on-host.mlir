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

// A loop whose bounds every thread shares, with barriers in it, runs as a
// loop of the block whose body is cut into segments like a launch body.
// The carried value differs per thread: it lives in a slot, stored before
// the loop and at the end of each iteration, and the loop's result is read
// back from it. Shared memory is one host buffer for all the blocks.
// CHECK-LABEL: func.func @rotate_and_sum
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[TILE:.*]] = memref.alloca() : memref<1x4xf32>
// CHECK-DAG: %[[CARRIED:.*]] = memref.alloca() : memref<4xf32>
// CHECK: scf.for %[[B:.*]] = %[[C0]] to %[[C2]] step %[[C1]]
// CHECK:   scf.for %[[T0:.*]] = %[[C0]] to %[[C4]] step %[[C1]]
// CHECK:     memref.store %[[ZERO]], %[[CARRIED]][%[[T0]]]
// CHECK:   scf.for %[[I:.*]] = %[[C0]] to %[[C3]] step %[[C1]]
// CHECK:     scf.for %[[T1:.*]] = %[[C0]] to %[[C4]] step %[[C1]]
// CHECK:       %[[V:.*]] = memref.load %arg0[%[[I]], %[[T1]]]
// CHECK:       memref.store %[[V]], %[[TILE]][%[[C0]], %[[T1]]]
// CHECK:     scf.for %[[T2:.*]] = %[[C0]] to %[[C4]] step %[[C1]]
// CHECK:       %[[W:.*]] = memref.load %[[TILE]]
// CHECK:       %[[ACC:.*]] = memref.load %[[CARRIED]][%[[T2]]]
// CHECK:       arith.addf %[[ACC]], %[[W]]
// CHECK:     scf.for %[[T3:.*]] = %[[C0]] to %[[C4]] step %[[C1]]
// CHECK:       memref.store %{{.*}}, %[[CARRIED]][%[[T3]]]
// CHECK:   scf.for %[[T4:.*]] = %[[C0]] to %[[C4]] step %[[C1]]
// CHECK:     %[[SUM:.*]] = memref.load %[[CARRIED]][%[[T4]]]
// CHECK:     memref.store %[[SUM]], %arg1[%[[T4]]]
// CHECK-NOT: gpu.
func.func @rotate_and_sum(%x: memref<3x4xf32>, %y: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<1x4xf32, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%i, %t] : memref<3x4xf32>
      memref.store %v, %tile[%c0, %t] : memref<1x4xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %t1 = arith.addi %t, %c1 : index
      %next = arith.remui %t1, %c4 : index
      %w = memref.load %tile[%c0, %next] : memref<1x4xf32, #gpu.address_space<workgroup>>
      %s = arith.addf %acc, %w : f32
      gpu.barrier
      scf.yield %s : f32
    }
    memref.store %sum, %y[%t] : memref<4xf32>
    gpu.terminator
  }
  return
}
