// RUN: hlo-opt %s --split-input-file --cpu-share-kernels | FileCheck %s

// Two matmuls of the same shapes on different buffers share one kernel; the
// one of other shapes occurs once and stays; the one that writes a buffer it
// also reads (%c into %c) stays, since in the kernel every operand is an
// argument and the contraction kernel takes arguments to be distinct.
// CHECK-LABEL: func.func @main
// CHECK: %[[T:.*]] = memref.alloc() : memref<64x64xf32>
// CHECK: call @[[K:numlir_kernel]](%arg0, %arg1, %[[T]])
// CHECK: call @[[K]](%[[T]], %arg1, %arg2)
// CHECK: linalg.matmul ins(%arg2, %arg2 : {{.*}}) outs(%arg2 : memref<64x64xf32>)
// CHECK: linalg.matmul ins(%arg3, %arg4 : memref<64x32xf32>, memref<32x16xf32>)
// CHECK: call @[[K]](%arg0, %arg0, %arg5)
// CHECK: func.func private @[[K]](%{{.*}}: memref<64x64xf32> {llvm.noalias}, %{{.*}}: memref<64x64xf32> {llvm.noalias}, %{{.*}}: memref<64x64xf32> {llvm.noalias})
// CHECK-SAME: attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: return
// CHECK-NOT: func.func
func.func @main(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>,
                %x: memref<64x32xf32>, %y: memref<32x16xf32>, %d: memref<64x64xf32>,
                %e: memref<64x16xf32>) {
  %t = memref.alloc() : memref<64x64xf32>
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%t : memref<64x64xf32>)
  linalg.matmul ins(%t, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%c, %c : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) outs(%e : memref<64x16xf32>)
  linalg.matmul ins(%a, %a : memref<64x64xf32>, memref<64x64xf32>) outs(%d : memref<64x64xf32>)
  memref.dealloc %t : memref<64x64xf32>
  return
}

// -----

// Operands are matched and passed by position: the first matmul reads %a
// twice, the second %a and %t, and the kernel still has two inputs of its
// own (built from the first, it once read its first argument twice, and the
// second call computed t @ t).
// CHECK-LABEL: func.func @one_buffer_twice_first
// CHECK: call @[[K:numlir_kernel.*]](%arg0, %arg0, %[[T:.*]]) :
// CHECK: call @[[K]](%arg0, %[[T]], %arg1) :
// CHECK: func.func private @[[K]](%[[X:.*]]: memref<8x8xf32> {llvm.noalias}, %[[Y:.*]]: memref<8x8xf32> {llvm.noalias}, %[[Z:.*]]: memref<8x8xf32> {llvm.noalias})
// CHECK-NEXT: linalg.matmul ins(%[[X]], %[[Y]] : {{.*}}) outs(%[[Z]] : memref<8x8xf32>)
func.func @one_buffer_twice_first(%a: memref<8x8xf32>, %out: memref<8x8xf32>) {
  %t = memref.alloc() : memref<8x8xf32>
  linalg.matmul ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>) outs(%t : memref<8x8xf32>)
  linalg.matmul ins(%a, %t : memref<8x8xf32>, memref<8x8xf32>) outs(%out : memref<8x8xf32>)
  memref.dealloc %t : memref<8x8xf32>
  return
}

// -----

// Convolutions (an input read through a window) are kernels too. Their
// bodies use a constant from outside: equal constants share a kernel, which
// gets its own copy of the constant; a different constant is another kernel.
// CHECK-LABEL: func.func @convolutions
// CHECK: %[[QUARTER:.*]] = arith.constant 2.500000e-01
// CHECK: call @[[K:numlir_kernel]](%arg0, %arg1, %arg2)
// CHECK: call @[[K]](%arg4, %arg1, %arg3)
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %[[QUARTER]]
// CHECK: func.func private @[[K]]
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %[[HALF]]
#in = affine_map<(d0, d1) -> (d0 + d1)>
#k = affine_map<(d0, d1) -> (d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @convolutions(%x: memref<20xf32>, %w: memref<5xf32>, %y: memref<16xf32>,
                        %z: memref<16xf32>, %x2: memref<20xf32>) {
  %half = arith.constant 0.5 : f32
  %half_again = arith.constant 0.5 : f32
  %quarter = arith.constant 0.25 : f32
  linalg.generic {indexing_maps = [#in, #k, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : memref<20xf32>, memref<5xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.mulf %p, %half : f32
    %r = arith.addf %o, %s : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#in, #k, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x2, %w : memref<20xf32>, memref<5xf32>) outs(%z : memref<16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.mulf %p, %half_again : f32
    %r = arith.addf %o, %s : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#in, #k, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : memref<20xf32>, memref<5xf32>) outs(%z : memref<16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.mulf %p, %quarter : f32
    %r = arith.addf %o, %s : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Every repeated loop nest is shared, not only contractions: the two
// negations are one kernel and the two row sums another (a deep network's
// repeated layers then compile once, and the entry function is a line of
// calls). The contractions inside a loop stay where they are.
// CHECK-LABEL: func.func @elementwise_and_reductions
// CHECK: call @[[NEG:numlir_kernel[_0-9]*]](%arg0, %arg1)
// CHECK: call @[[NEG]](%arg0, %arg2)
// CHECK: call @[[SUM:numlir_kernel[_0-9]*]](%arg0, %arg3)
// CHECK: call @[[SUM]](%arg1, %arg4)
// CHECK: scf.for
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: linalg.matmul
// CHECK-DAG: func.func private @[[NEG]]({{.*}}) attributes
// CHECK-DAG: func.func private @[[SUM]]({{.*}}) attributes
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @elementwise_and_reductions(%x: memref<8x8xf32>, %y: memref<8x8xf32>, %z: memref<8x8xf32>,
                       %s: memref<8xf32>, %t: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x8xf32>) outs(%z : memref<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x8xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%y : memref<8x8xf32>) outs(%t : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  }
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c2 step %c1 {
    linalg.matmul ins(%x, %y : memref<8x8xf32>, memref<8x8xf32>) outs(%z : memref<8x8xf32>)
    linalg.matmul ins(%y, %x : memref<8x8xf32>, memref<8x8xf32>) outs(%z : memref<8x8xf32>)
  }
  return
}
