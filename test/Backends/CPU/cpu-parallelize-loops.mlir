// RUN: hlo-opt %s --pass-pipeline='builtin.module(func.func(cpu-parallelize-loops{threads=2 min-iterations=1024}))' | FileCheck %s
// RUN: hlo-opt %s --pass-pipeline='builtin.module(func.func(cpu-parallelize-loops{threads=1 min-iterations=1024}))' | FileCheck %s --check-prefix=ONE

// One thread: nothing is split (the only scf.parallel is @nested's own).
// ONE-NOT: scf.parallel
// ONE: func.func @nested

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// An elementwise op splits along its outermost loop into one chunk per
// thread; each chunk is the same op on a slice.
// CHECK-LABEL: func.func @elementwise
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[C64]]) step (%[[C32]])
// CHECK: memref.subview %{{.*}}[%[[I]], 0] [32, 128] [1, 1]
// CHECK: memref.subview %{{.*}}[%[[I]], 0] [32, 128] [1, 1]
// CHECK: linalg.generic
// CHECK: math.tanh
func.func @elementwise(%x: memref<64x128xf32>, %y: memref<64x128xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x128xf32>) outs(%y : memref<64x128xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  }
  return
}

// A row sum splits its rows; each chunk reduces whole rows.
// CHECK-LABEL: func.func @row_sum
// CHECK: scf.parallel
// CHECK: memref.subview %{{.*}}[%{{.*}}, 0] [32, 128] [1, 1]
// CHECK: iterator_types = ["parallel", "reduction"]
func.func @row_sum(%x: memref<64x128xf32>, %y: memref<64xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x128xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// A column sum's outer loop is the reduction: the columns are split.
// CHECK-LABEL: func.func @column_sum
// CHECK: scf.parallel
// CHECK: memref.subview %{{.*}}[0, %{{.*}}] [64, 64] [1, 1]
// CHECK: memref.subview %{{.*}}[%{{.*}}] [64] [1]
func.func @column_sum(%x: memref<64x128xf32>, %y: memref<128xf32>) {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<64x128xf32>) outs(%y : memref<128xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// A full reduction has no parallel loop: left alone.
// CHECK-LABEL: func.func @full_sum
// CHECK-NOT: scf.parallel
// CHECK: linalg.reduce
func.func @full_sum(%x: memref<64x128xf32>, %y: memref<f32>) {
  linalg.reduce ins(%x : memref<64x128xf32>) outs(%y : memref<f32>) dimensions = [0, 1]
  (%a: f32, %b: f32) {
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// Below min-iterations a fork costs more than it saves: left alone.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.parallel
// CHECK: linalg.copy
func.func @small(%x: memref<16x16xf32>, %y: memref<16x16xf32>) {
  linalg.copy ins(%x : memref<16x16xf32>) outs(%y : memref<16x16xf32>)
  return
}

// A contraction splits along the output's contiguous dimension (each
// thread reads its own columns of B) when the chunks are whole register
// tiles of 32 lanes.
// CHECK-LABEL: func.func @matmul_columns
// CHECK: scf.parallel
// CHECK: memref.subview %{{.*}}[0, %{{.*}}] [128, 64] [1, 1]
// CHECK: linalg.matmul
func.func @matmul_columns(%a: memref<64x128xf32>, %b: memref<128x128xf32>, %c: memref<64x128xf32>) {
  linalg.matmul ins(%a, %b : memref<64x128xf32>, memref<128x128xf32>) outs(%c : memref<64x128xf32>)
  return
}

// With 10 columns the rows are split instead, in equal static chunks.
// CHECK-LABEL: func.func @matmul_rows
// CHECK: scf.parallel
// CHECK: memref.subview %{{.*}}[%{{.*}}, 0] [128, 256] [1, 1]
// CHECK: linalg.matmul
func.func @matmul_rows(%a: memref<256x256xf32>, %b: memref<256x10xf32>, %c: memref<256x10xf32>) {
  linalg.matmul ins(%a, %b : memref<256x256xf32>, memref<256x10xf32>) outs(%c : memref<256x10xf32>)
  return
}

// Rows that do not split evenly (an odd count) leave a contraction whole:
// a ragged chunk would lose the register tiling, and 10 lanes are not
// split into ragged register tiles either.
// CHECK-LABEL: func.func @matmul_odd
// CHECK-NOT: scf.parallel
// CHECK: linalg.matmul
func.func @matmul_odd(%a: memref<255x256xf32>, %b: memref<256x10xf32>, %c: memref<255x10xf32>) {
  linalg.matmul ins(%a, %b : memref<255x256xf32>, memref<256x10xf32>) outs(%c : memref<255x10xf32>)
  return
}

// An elementwise op on an odd extent still splits, with a ragged last chunk.
// CHECK-LABEL: func.func @elementwise_odd
// CHECK: scf.parallel
// CHECK: affine.min
func.func @elementwise_odd(%x: memref<33x128xf32>, %y: memref<33x128xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<33x128xf32>) outs(%y : memref<33x128xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  }
  return
}

// A convolution (its input read through a window, o + k) only splits into
// equal chunks, as a contraction does: cpu-convolution-taps needs static
// loop ranges, and a ragged chunk left as scalar loops would also sum in
// another order than the whole op. 33 rows do not split in two, so the 64
// output channels are split instead. (33 x 64 x 9 iterations are 1188
// units of work: 16 of a convolution's count as one.)
// CHECK-LABEL: func.func @convolution_equal_chunks
// CHECK-NOT: affine.min
// CHECK: scf.parallel
// CHECK: memref.subview %{{.*}}[0, %{{.*}}] [9, 32] [1, 1]
// CHECK: memref.subview %{{.*}}[0, %{{.*}}] [33, 32] [1, 1]
// CHECK: linalg.generic
#conv_in = affine_map<(d0, d1, d2) -> (d0 + d2)>
#conv_kernel = affine_map<(d0, d1, d2) -> (d2, d1)>
#conv_out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @convolution_equal_chunks(%x: memref<41xf32>, %k: memref<9x64xf32>, %y: memref<33x64xf32>) {
  linalg.generic {indexing_maps = [#conv_in, #conv_kernel, #conv_out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %k : memref<41xf32>, memref<9x64xf32>) outs(%y : memref<33x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// A product of 16x16x16 (4096 iterations, above min-iterations) is 256
// units of work, below it: a fork would cost more than the product.
// CHECK-LABEL: func.func @small_contraction_stays_whole
// CHECK-NOT: scf.parallel
// CHECK: linalg.matmul
func.func @small_contraction_stays_whole(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>) {
  linalg.matmul ins(%a, %b : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>)
  return
}

// With 33 rows and 5 channels no loop splits evenly: left whole.
// CHECK-LABEL: func.func @convolution_odd
// CHECK-NOT: scf.parallel
// CHECK: linalg.generic
func.func @convolution_odd(%x: memref<41xf32>, %k: memref<9x5xf32>, %y: memref<33x5xf32>) {
  linalg.generic {indexing_maps = [#conv_in, #conv_kernel, #conv_out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %k : memref<41xf32>, memref<9x5xf32>) outs(%y : memref<33x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// A body that stores to memory could collide across chunks: left alone.
// CHECK-LABEL: func.func @body_writes
// CHECK-NOT: scf.parallel
// CHECK: memref.store
func.func @body_writes(%x: memref<64x128xf32>, %y: memref<64x128xf32>, %log: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x128xf32>) outs(%y : memref<64x128xf32>) {
  ^bb0(%a: f32, %b: f32):
    memref.store %a, %log[%c0] : memref<1xf32>
    linalg.yield %a : f32
  }
  return
}

// An output also read at other elements (its transpose): a chunk would read
// what another already wrote. Left alone.
// CHECK-LABEL: func.func @reads_own_output_transposed
// CHECK-NOT: scf.parallel
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @reads_own_output_transposed(%y: memref<128x128xf32>) {
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<128x128xf32>) outs(%y : memref<128x128xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// An op already inside a parallel loop stays as it is.
// CHECK-LABEL: func.func @nested
// CHECK: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK: linalg.generic
func.func @nested(%x: memref<4x64x128xf32>, %y: memref<4x64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %sx = memref.subview %x[%i, 0, 0] [1, 64, 128] [1, 1, 1] : memref<4x64x128xf32> to memref<64x128xf32, strided<[128, 1], offset: ?>>
    %sy = memref.subview %y[%i, 0, 0] [1, 64, 128] [1, 1, 1] : memref<4x64x128xf32> to memref<64x128xf32, strided<[128, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%sx : memref<64x128xf32, strided<[128, 1], offset: ?>>) outs(%sy : memref<64x128xf32, strided<[128, 1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32):
      %t = math.tanh %a : f32
      linalg.yield %t : f32
    }
    scf.reduce
  }
  return
}
