// RUN: hlo-opt %s --pass-pipeline="builtin.module(cuda-map-kernels-to-launches{tile-size=0},canonicalize,cse)" | FileCheck %s
// RUN: hlo-opt %s --pass-pipeline="builtin.module(cuda-map-kernels-to-launches{tile-size=8},canonicalize,cse)" | FileCheck %s --check-prefix=TILE8
// RUN: not hlo-opt %s --pass-pipeline="builtin.module(cuda-map-kernels-to-launches{tile-size=6})" 2>&1 | FileCheck %s --check-prefix=BAD

// tile-size=0 keeps a block per output element with a block reduction
// over k; tile-size=8 makes 8x8 tiles of 64 threads; a tile of 36 threads
// is not whole warps.
// CHECK-LABEL: func.func private @matmul
// CHECK-NOT: workgroup
// CHECK: gpu.all_reduce add
// TILE8-LABEL: func.func private @matmul
// TILE8-DAG: %[[GRID:.*]] = arith.constant 3 : index
// TILE8-DAG: %[[BLOCK:.*]] = arith.constant 64 : index
// TILE8: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[GRID]], {{.*}} threads({{.*}}) in (%{{.*}} = %[[BLOCK]], {{.*}} workgroup(%{{.*}} : memref<8x8xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<8x8xf32, #gpu.address_space<workgroup>>)
// BAD: cuda-map-kernels-to-launches needs a tile-size whose square is a multiple of 32 and at most 1024 (or 0), got 6
func.func private @matmul(%a: memref<2x5xf32>, %b: memref<5x20xf32>, %c: memref<2x20xf32>) {
  linalg.matmul ins(%a, %b : memref<2x5xf32>, memref<5x20xf32>) outs(%c : memref<2x20xf32>)
  return
}
