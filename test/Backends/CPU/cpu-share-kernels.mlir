// RUN: hlo-opt %s --split-input-file --cpu-share-kernels | FileCheck %s

// Two matmuls of the same shapes on different buffers share one kernel; the
// one of other shapes occurs once and gets a kernel of its own (where its
// buffers are noalias too); the one that writes a buffer it also reads (%c
// into %c) stays, since in the kernel every operand is an argument and the
// contraction kernel takes arguments to be distinct.
// CHECK-LABEL: func.func @main
// CHECK: %[[T:.*]] = memref.alloc() : memref<64x64xf32>
// CHECK: call @[[K:numlir_kernel]](%arg0, %arg1, %[[T]])
// CHECK: call @[[K]](%[[T]], %arg1, %arg2)
// CHECK: linalg.matmul ins(%arg2, %arg2 : {{.*}}) outs(%arg2 : memref<64x64xf32>)
// CHECK: call @[[ONCE:numlir_kernel_0]](%arg3, %arg4, %arg6)
// CHECK: call @[[K]](%arg0, %arg0, %arg5)
// CHECK: func.func private @[[K]](%{{.*}}: memref<64x64xf32> {llvm.noalias}, %{{.*}}: memref<64x64xf32> {llvm.noalias}, %{{.*}}: memref<64x64xf32> {llvm.noalias})
// CHECK-SAME: attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: return
// CHECK: func.func private @[[ONCE]](%{{.*}}: memref<64x32xf32> {llvm.noalias}, %{{.*}}: memref<32x16xf32> {llvm.noalias}, %{{.*}}: memref<64x16xf32> {llvm.noalias})
// CHECK-NEXT: linalg.matmul
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
// CHECK: call @[[K:numlir_kernel]](%arg0, %arg1, %arg2)
// CHECK: call @[[K]](%arg4, %arg1, %arg3)
// CHECK: call @[[Q:numlir_kernel_0]](%arg0, %arg1, %arg3)
// CHECK: func.func private @[[K]]
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %[[HALF]]
// CHECK: func.func private @[[Q]]
// CHECK: %[[QUARTER:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %[[QUARTER]]
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

// -----

// A body that loads from a buffer it indexes itself (a gather, a padded
// copy) and compares with a size computed outside: the buffer and the size
// become kernel arguments after the operands, in the order the body first
// uses them, so two such ops on other buffers share the kernel. The loaded
// buffer is noalias like the operands.
// CHECK-LABEL: func.func @captured_buffers_and_values
// CHECK: %[[N:.*]] = memref.load %arg4
// CHECK: call @[[G:numlir_kernel]](%arg1, %arg2, %[[N]], %arg0)
// CHECK: call @[[G]](%arg1, %arg3, %[[N]], %arg5)
// CHECK: func.func private @[[G]](%[[IDX:.*]]: memref<4xindex> {llvm.noalias}, %[[OUT:.*]]: memref<4xf32> {llvm.noalias}, %[[SIZE:.*]]: index, %[[SRC:.*]]: memref<8xf32> {llvm.noalias})
// CHECK: linalg.generic {{.*}} ins(%[[IDX]] : memref<4xindex>) outs(%[[OUT]] : memref<4xf32>)
// CHECK: arith.minsi %{{.*}}, %[[SIZE]]
// CHECK: memref.load %[[SRC]]
#id1 = affine_map<(d0) -> (d0)>
func.func @captured_buffers_and_values(%src: memref<8xf32>, %idx: memref<4xindex>,
                                       %out: memref<4xf32>, %out2: memref<4xf32>,
                                       %n: memref<index>, %src2: memref<8xf32>) {
  %size = memref.load %n[] : memref<index>
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%idx : memref<4xindex>) outs(%out : memref<4xf32>) {
  ^bb0(%i: index, %o: f32):
    %j = arith.minsi %i, %size : index
    %v = memref.load %src[%j] : memref<8xf32>
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%idx : memref<4xindex>) outs(%out2 : memref<4xf32>) {
  ^bb0(%i: index, %o: f32):
    %j = arith.minsi %i, %size : index
    %v = memref.load %src2[%j] : memref<8xf32>
    linalg.yield %v : f32
  }
  return
}

// -----

// A body may store to a buffer it captures when no other argument reaches
// that buffer: the kernel writes it through its own noalias argument. A
// body that loads from the buffer it writes (%y, an operand and a captured
// value) stays where it is, as does a store to a buffer the op also reads.
// CHECK-LABEL: func.func @captured_writes
// CHECK: call @[[K:numlir_kernel]](%arg0, %arg1, %arg2)
// CHECK: linalg.generic
// CHECK: memref.load %arg1
// CHECK: linalg.generic
// CHECK: memref.store %{{.*}}, %arg0
// CHECK: func.func private @[[K]]
// CHECK: memref.store
// CHECK-NOT: func.func private
#id1 = affine_map<(d0) -> (d0)>
func.func @captured_writes(%x: memref<4xf32>, %y: memref<4xf32>, %log: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    memref.store %a, %log[%i] : memref<4xf32>
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c0 = arith.constant 0 : index
    %first = memref.load %y[%c0] : memref<4xf32>
    %s = arith.addf %a, %first : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    memref.store %a, %x[%i] : memref<4xf32>
    linalg.yield %a : f32
  }
  return
}

// -----

// A row-fused loop (cpu-fuse-row-loops) is a loop nest too: its bounds and
// the constants it uses are copied in, and the buffers it reads and writes
// through views become noalias arguments. One that writes a buffer it also
// reaches through a second captured value stays.
// CHECK-LABEL: func.func @row_fused_loops
// CHECK: call @[[R:numlir_kernel]](%arg0, %arg1, %arg2)
// CHECK: scf.parallel
// CHECK: func.func private @[[R]](%{{.*}}: memref<8x4xf32> {llvm.noalias}, %{{.*}}: memref<8x4xf32> {llvm.noalias}, %{{.*}}: memref<8x4xf32> {llvm.noalias})
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[C8]]) step (%[[C2]])
// CHECK: memref.subview
// CHECK: linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @row_fused_loops(%x: memref<8x4xf32>, %t: memref<8x4xf32>, %y: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c2) {
    %xs = memref.subview %x[%i, 0] [2, 4] [1, 1] : memref<8x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
    %ts = memref.subview %t[%i, 0] [2, 4] [1, 1] : memref<8x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
    %ys = memref.subview %y[%i, 0] [2, 4] [1, 1] : memref<8x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%xs : memref<2x4xf32, strided<[4, 1], offset: ?>>) outs(%ts : memref<2x4xf32, strided<[4, 1], offset: ?>>) {
    ^bb0(%a: f32, %o: f32):
      %e = math.exp %a : f32
      linalg.yield %e : f32
    }
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%ts : memref<2x4xf32, strided<[4, 1], offset: ?>>) outs(%ys : memref<2x4xf32, strided<[4, 1], offset: ?>>) {
    ^bb0(%a: f32, %o: f32):
      %n = arith.negf %a : f32
      linalg.yield %n : f32
    }
    scf.reduce
  }
  %whole = memref.subview %y[0, 0] [8, 4] [1, 1] : memref<8x4xf32> to memref<8x4xf32, strided<[4, 1]>>
  scf.parallel (%i) = (%c0) to (%c8) step (%c2) {
    %ys = memref.subview %y[%i, 0] [2, 4] [1, 1] : memref<8x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
    %ws = memref.subview %whole[%i, 0] [2, 4] [1, 1] : memref<8x4xf32, strided<[4, 1]>> to memref<2x4xf32, strided<[4, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%ws : memref<2x4xf32, strided<[4, 1], offset: ?>>) outs(%ys : memref<2x4xf32, strided<[4, 1], offset: ?>>) {
    ^bb0(%a: f32, %o: f32):
      %n = arith.negf %a : f32
      linalg.yield %n : f32
    }
    scf.reduce
  }
  return
}

// -----

// A bf16 value that is not a constant stays out of kernel signatures (LLVM
// would round a bfloat argument with __truncsfbf2, absent from GCC 12's
// libgcc): a fill with a loaded bf16 value stays where it is. A constant
// fill value, bf16 or not, is copied into its kernel.
// CHECK-LABEL: func.func @bf16_scalars_are_not_arguments
// CHECK: call @[[F:numlir_kernel]](%arg0)
// CHECK: call @[[G:numlir_kernel_0]](%arg1)
// CHECK: %[[V:.*]] = memref.load %arg2
// CHECK: linalg.fill ins(%[[V]] : bf16)
// CHECK: func.func private @[[F]](%{{.*}}: memref<4xbf16> {llvm.noalias})
// CHECK: arith.constant 1.000000e+00 : bf16
// CHECK: func.func private @[[G]](%{{.*}}: memref<4xf32> {llvm.noalias})
// CHECK: arith.constant 0.000000e+00 : f32
func.func @bf16_scalars_are_not_arguments(%x: memref<4xbf16>, %y: memref<4xf32>,
                                          %v: memref<bf16>, %z: memref<4xbf16>) {
  %one = arith.constant 1.0 : bf16
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%one : bf16) outs(%x : memref<4xbf16>)
  linalg.fill ins(%zero : f32) outs(%y : memref<4xf32>)
  %loaded = memref.load %v[] : memref<bf16>
  linalg.fill ins(%loaded : bf16) outs(%z : memref<4xbf16>)
  return
}
