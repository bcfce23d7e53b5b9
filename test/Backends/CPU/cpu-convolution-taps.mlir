// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-convolution-taps))' | FileCheck %s
// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-convolution-taps{tile-bytes=512}))' | FileCheck %s --check-prefix=TILED

// Loops as convert-hlo-to-linalg emits them: (n, co, oh, ow, ci, kh, kw).
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 * 2 + d5, d3 + d6 * 2, d4)>
#kernel = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d5, d6, d4, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>

// A strided (2, 1) and dilated (1, 2) NHWC convolution: one loop per tap
// (kh, then kw) around a contraction over (n, co, oh, ow, ci) of the tap's
// input window (offset kh * 1 and kw * 2, stride 2 along the rows) and the
// tap's kernel slice; the window loops are gone from the maps.
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3, d4)>
// CHECK-DAG: #[[KER:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d4, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @strided_dilated_nhwc
// CHECK-SAME: (%[[IN:.*]]: memref<2x9x8x3xf32>, %[[K:.*]]: memref<3x2x3x4xf32>, %[[O:.*]]: memref<2x4x6x4xf32>)
// CHECK: scf.for %[[KH:.*]] = %{{.*}} to %c3 step %c1
// CHECK: scf.for %[[KW:.*]] = %{{.*}} to %{{.*}} step %c1
// CHECK: %[[ROW:.*]] = arith.muli %[[KH]], %c1
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[COL:.*]] = arith.muli %[[KW]], %[[C2]]
// CHECK: %[[WINDOW:.*]] = memref.subview %[[IN]][0, %[[ROW]], %[[COL]], 0] [2, 4, 6, 3] [1, 2, 1, 1]
// CHECK: %[[SLICE:.*]] = memref.subview %[[K]][%[[KH]], %[[KW]], 0, 0] [1, 1, 3, 4] [1, 1, 1, 1] : memref<3x2x3x4xf32> to memref<3x4xf32, strided<[4, 1], offset: ?>>
// CHECK: linalg.generic {indexing_maps = [#[[WIN]], #[[KER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[WINDOW]], %[[SLICE]] :
// CHECK-SAME: outs(%[[O]] : memref<2x4x6x4xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// TILED-LABEL: func.func @strided_dilated_nhwc
// TILED: scf.for {{.*}} to %c2 step %c1
// TILED: memref.subview %{{.*}}[%{{.*}}, 0, 0, 0] [1, 4, 6, 4]
// TILED: scf.for
// TILED: scf.for
// TILED: linalg.generic
// TILED-SAME: outs(%{{.*}} : memref<1x4x6x4xf32, strided<[96, 24, 4, 1], offset: ?>>)
func.func @strided_dilated_nhwc(%in: memref<2x9x8x3xf32>, %k: memref<3x2x3x4xf32>, %o: memref<2x4x6x4xf32>) {
  linalg.generic {indexing_maps = [#in, #kernel, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %k : memref<2x9x8x3xf32>, memref<3x2x3x4xf32>) outs(%o : memref<2x4x6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The kernel gradient of a convolution (dims [f, 0, 1, b] x [i, 0, 1, o] ->
// [0, 1, b, f]): its taps are the spatial positions of the output gradient,
// and its output is the small kernel.
// CHECK-LABEL: func.func @kernel_gradient
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.subview %{{.*}}[0, %{{.*}}, %{{.*}}, 0] [2, 3, 3, 4] [1, 1, 1, 1]
// CHECK: memref.subview %{{.*}}[0, %{{.*}}, %{{.*}}, 0] [2, 1, 1, 5] [1, 1, 1, 1] : memref<2x4x4x5xf32> to memref<2x5xf32, strided<[80, 1], offset: ?>>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
#act = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d2 + d5, d3 + d6, d0)>
#grad = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#kgrad = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d3, d0, d1)>
func.func @kernel_gradient(%act: memref<2x6x6x4xf32>, %grad: memref<2x4x4x5xf32>, %o: memref<3x3x4x5xf32>) {
  linalg.generic {indexing_maps = [#act, #grad, #kgrad], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%act, %grad : memref<2x6x6x4xf32>, memref<2x4x4x5xf32>) outs(%o : memref<3x3x4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left alone: integers (no vector kernel for them), a body that is not a
// multiply-accumulate, and a contraction without windows.
// CHECK-LABEL: func.func @not_rewritten
// CHECK-NOT: scf.for
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: scf.for
#in1 = affine_map<(d0, d1, d2) -> (d0 + d2)>
#k1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#o1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#mat_a = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @not_rewritten(%x: memref<6xi32>, %k: memref<3x2xi32>, %o: memref<4x2xi32>,
                         %xf: memref<6xf32>, %kf: memref<3x2xf32>, %of: memref<4x2xf32>,
                         %a: memref<4x3xf32>) {
  linalg.generic {indexing_maps = [#in1, #k1, #o1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %k : memref<6xi32>, memref<3x2xi32>) outs(%o : memref<4x2xi32>) {
  ^bb0(%p: i32, %q: i32, %acc: i32):
    %m = arith.muli %p, %q : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [#in1, #k1, #o1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xf, %kf : memref<6xf32>, memref<3x2xf32>) outs(%of : memref<4x2xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.maximumf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#mat_a, #k1, #o1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %kf : memref<4x3xf32>, memref<3x2xf32>) outs(%of : memref<4x2xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A parallel chunk's input window has a dynamic size (the pass before cut
// it with affine.min), but the loop ranges are static: they come from the
// output and the kernel. The tap windows take their sizes from the loops.
// CHECK-LABEL: func.func @dynamic_size_input_chunk
// CHECK: scf.for %[[KW:.*]] =
// CHECK: memref.subview %{{.*}}[0, %{{.*}}, 0] [2, 4, 3] [1, 1, 1] : memref<2x?x3xf32, strided<[?, 3, 1], offset: ?>> to memref<2x4x3xf32, strided<[?, 3, 1], offset: ?>>
// CHECK: memref.subview %{{.*}}[%[[KW]], 0, 0] [1, 3, 5] [1, 1, 1]
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
#nwc_in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2 + d4, d3)>
#wio = affine_map<(d0, d1, d2, d3, d4) -> (d4, d3, d1)>
#nwc_out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1)>
func.func @dynamic_size_input_chunk(%in: memref<2x?x3xf32, strided<[?, 3, 1], offset: ?>>, %k: memref<3x3x5xf32>, %o: memref<2x4x5xf32>) {
  linalg.generic {indexing_maps = [#nwc_in, #wio, #nwc_out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%in, %k : memref<2x?x3xf32, strided<[?, 3, 1], offset: ?>>, memref<3x3x5xf32>) outs(%o : memref<2x4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left alone: a dynamic loop range (the batch, read off the input first)
// and a dynamic output.
// CHECK-LABEL: func.func @dynamic_loops
// CHECK-NOT: scf.for
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: scf.for
#nwc_in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2 + d4, d3)>
#wio = affine_map<(d0, d1, d2, d3, d4) -> (d4, d3, d1)>
#nwc_out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1)>
func.func @dynamic_loops(%in: memref<?x6x3xf32>, %k: memref<3x3x5xf32>, %o: memref<2x4x5xf32>,
                         %in2: memref<2x6x3xf32>, %o2: memref<?x4x5xf32>) {
  linalg.generic {indexing_maps = [#nwc_in, #wio, #nwc_out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%in, %k : memref<?x6x3xf32>, memref<3x3x5xf32>) outs(%o : memref<2x4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#nwc_in, #wio, #nwc_out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%in2, %k : memref<2x6x3xf32>, memref<3x3x5xf32>) outs(%o2 : memref<?x4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
