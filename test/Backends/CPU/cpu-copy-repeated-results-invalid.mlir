// RUN: hlo-opt %s --cpu-copy-repeated-results --split-input-file -verify-diagnostics

// A repeated buffer of dynamic shape cannot be copied without its sizes.
func.func @dynamic(%x: memref<?xf32>) -> (memref<?xf32>, memref<?xf32>) {
  // expected-error @+1 {{returns one buffer twice (result 1), and only a static buffer with the identity layout can be copied into a result of its own}}
  return %x, %x : memref<?xf32>, memref<?xf32>
}

// -----

// Nor one with a strided layout, whose copy would need that layout.
func.func @strided(%x: memref<4xf32, strided<[2]>>) -> (memref<4xf32, strided<[2]>>, memref<4xf32, strided<[2]>>) {
  // expected-error @+1 {{returns one buffer twice (result 1)}}
  return %x, %x : memref<4xf32, strided<[2]>>, memref<4xf32, strided<[2]>>
}
