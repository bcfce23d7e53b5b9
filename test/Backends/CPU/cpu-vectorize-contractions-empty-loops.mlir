// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-vectorize-contractions{register-bits=512 rows=8 cache-lanes=64 cache-reduction=2}))' | FileCheck %s
// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-vectorize-contractions{register-bits=512 rows=8}))' | FileCheck %s

// Contractions with an empty loop (a zero-size free, batch or reduction
// dimension) are left as they are: there is nothing to tile. (Found by the
// hlo-opt fuzzer: tile sizes of 0 crashed the pass.)

// CHECK-LABEL: func.func @empty_free_dimension_is_not_tiled
// CHECK-NOT: scf.for
// CHECK: linalg.generic
#lhs = affine_map<(b, m, n, k) -> (b, m, k)>
#rhs = affine_map<(b, m, n, k) -> (b, n, k)>
#out = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @empty_free_dimension_is_not_tiled(%a: memref<2x8x5xf32>, %b: memref<2x0x5xf32>, %c: memref<2x8x0xf32>) {
  linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x8x5xf32>, memref<2x0x5xf32>) outs(%c : memref<2x8x0xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @empty_batch_dimension_is_not_tiled
// CHECK-NOT: scf.for
// CHECK: linalg.generic
#lhs = affine_map<(b, m, n, k) -> (b, m, k)>
#rhs = affine_map<(b, m, n, k) -> (b, n, k)>
#out = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @empty_batch_dimension_is_not_tiled(%a: memref<0x8x5xf32>, %b: memref<0x16x5xf32>, %c: memref<0x8x16xf32>) {
  linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<0x8x5xf32>, memref<0x16x5xf32>) outs(%c : memref<0x8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @empty_reduction_is_not_tiled
// CHECK-NOT: scf.for
// CHECK: linalg.matmul
func.func @empty_reduction_is_not_tiled(%a: memref<16x0xf32>, %b: memref<0x64xf32>, %c: memref<16x64xf32>) {
  linalg.matmul ins(%a, %b : memref<16x0xf32>, memref<0x64xf32>) outs(%c : memref<16x64xf32>)
  return
}
