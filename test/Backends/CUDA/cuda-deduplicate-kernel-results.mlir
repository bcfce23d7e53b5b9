// RUN: hlo-opt %s --cuda-deduplicate-kernel-results --buffer-results-to-out-params | FileCheck %s

// A kernel returning one buffer twice returns it once; both results of the
// call take its value, and buffer-results-to-out-params, which would
// otherwise leave the second out-parameter pointing at an erased buffer,
// sees one result.
// CHECK-LABEL: func.func @main
// CHECK: %[[B:.*]] = memref.alloc() : memref<2x0x5xf32>
// CHECK: call @kernel(%{{.*}}, %[[B]]) : (memref<4xf32>, memref<2x0x5xf32>) -> ()
// CHECK: call @use(%[[B]], %[[B]])
// CHECK: func.func private @kernel(%{{.*}}: memref<4xf32>, %{{.*}}: memref<2x0x5xf32>)
module {
  func.func @main(%x: memref<4xf32>) {
    %r:2 = call @kernel(%x) : (memref<4xf32>) -> (memref<2x0x5xf32>, memref<2x0x5xf32>)
    call @use(%r#0, %r#1) : (memref<2x0x5xf32>, memref<2x0x5xf32>) -> ()
    return
  }
  func.func private @kernel(%x: memref<4xf32>) -> (memref<2x0x5xf32>, memref<2x0x5xf32>) {
    %e = memref.alloc() : memref<2x0x5xf32>
    return %e, %e : memref<2x0x5xf32>, memref<2x0x5xf32>
  }
  func.func private @use(memref<2x0x5xf32>, memref<2x0x5xf32>)
}
