// RUN: hlo-opt %s -split-input-file --hlo-to-cuda=libdevice=%libdevice | FileCheck %s
// RUN: hlo-opt %s -split-input-file --hlo-to-cuda="chip=sm_80 libdevice=%libdevice" | FileCheck %s --check-prefix=SM80
// REQUIRES: libdevice

// The PTX of representative fusions, as gpu-module-to-binary embeds it. Every
// kernel also assembles with ptxas (test_cuda_backend.py); here, what the
// text says: the target, the block size, shuffles for reductions, and that
// libdevice resolved every math function.

// tanh(x * 1.5 + 0.1) * 0.5 + y: one kernel, a thread per element; libdevice is
// linked, so no __nv_ function is left for ptxas to resolve.
// CHECK-LABEL: module @elementwise
// SM80-LABEL: module @elementwise
// SM80: .target sm_80
// CHECK: gpu.launch_func @main_kernel::@main_kernel blocks in (%{{.*}}) threads in (%{{.*}}) args(%arg0 : memref<64x256xf32>, %arg1 : memref<64x256xf32>, %{{.*}} : memref<64x256xf32>)
// CHECK: gpu.binary @main_kernel
// CHECK-SAME: .target sm_90
// CHECK-SAME: .visible .entry main_kernel(
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-NOT: __nv_
module @elementwise {
  func.func public @main(%arg0: tensor<64x256xf32>, %arg1: tensor<64x256xf32>) -> (tensor<64x256xf32>) {
    %0 = hlo.constant dense<1.5> : tensor<f32>
    %1 = hlo.broadcast_in_dim %0, dims = [] : tensor<f32> -> tensor<64x256xf32>
    %2 = hlo.multiply %arg0, %1 : tensor<64x256xf32>
    %3 = hlo.constant dense<0.10000000149011612> : tensor<f32>
    %4 = hlo.broadcast_in_dim %3, dims = [] : tensor<f32> -> tensor<64x256xf32>
    %5 = hlo.add %2, %4 : tensor<64x256xf32>
    %6 = hlo.tanh %5 : tensor<64x256xf32>
    %7 = hlo.constant dense<0.5> : tensor<f32>
    %8 = hlo.broadcast_in_dim %7, dims = [] : tensor<f32> -> tensor<64x256xf32>
    %9 = hlo.multiply %6, %8 : tensor<64x256xf32>
    %10 = hlo.add %9, %arg1 : tensor<64x256xf32>
    return %10 : tensor<64x256xf32>
  }
}

// -----

// softmax: one kernel for the whole fusion (two row reductions and the
// elementwise ops), a block per row; the reductions are warp shuffles and
// shared memory, with barriers between the ops.
// CHECK-LABEL: module @softmax
// CHECK-COUNT-1: gpu.launch_func
// CHECK: gpu.binary @main_kernel
// CHECK-SAME: .shared .align 4 .b8 __wg_main_kernel_0
// CHECK-SAME: bar.sync
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-NOT: __nv_
module @softmax {
  func.func public @main(%arg0: tensor<64x256xf32>) -> (tensor<64x256xf32>) {
    %0 = hlo.reduce max %arg0, dims = [1] : tensor<64x256xf32> -> tensor<64xf32>
    %1 = hlo.constant dense<"0x000080FF"> : tensor<f32>
    %2 = hlo.broadcast_in_dim %1, dims = [] : tensor<f32> -> tensor<64xf32>
    %3 = hlo.maximum %2, %0 : tensor<64xf32>
    %4 = hlo.reshape %3 : tensor<64xf32> -> tensor<64x1xf32>
    %5 = hlo.broadcast_in_dim %4, dims = [0, 1] : tensor<64x1xf32> -> tensor<64x256xf32>
    %6 = hlo.subtract %arg0, %5 : tensor<64x256xf32>
    %7 = hlo.exp %6 : tensor<64x256xf32>
    %8 = hlo.reduce sum %7, dims = [1] : tensor<64x256xf32> -> tensor<64xf32>
    %9 = hlo.reshape %8 : tensor<64xf32> -> tensor<64x1xf32>
    %10 = hlo.broadcast_in_dim %9, dims = [0, 1] : tensor<64x1xf32> -> tensor<64x256xf32>
    %11 = hlo.divide %7, %10 : tensor<64x256xf32>
    return %11 : tensor<64x256xf32>
  }
}

// -----

// sum(x * x) to a scalar: a block reduction (shuffles), after the fill of
// the output.
// CHECK-LABEL: module @sum
// CHECK: gpu.binary @main_kernel
// CHECK-SAME: shfl.sync.bfly.b32
module @sum {
  func.func public @main(%arg0: tensor<4096xf32>) -> (tensor<f32>) {
    %0 = hlo.multiply %arg0, %arg0 : tensor<4096xf32>
    %1 = hlo.reduce sum %0, dims = [0] : tensor<4096xf32> -> tensor<f32>
    return %1 : tensor<f32>
  }
}

// -----

// relu(a @ b + c): the contraction and its bias and activation in one kernel,
// tiled: 2 blocks of 16x16 threads, the A and B tiles in shared memory (1 KiB
// each), barriers around their use, the bias and relu after the k loop.
// CHECK-LABEL: module @dot
// CHECK-COUNT-1: gpu.launch_func
// CHECK-SAME: blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.binary @main_kernel
// CHECK-SAME: .entry main_kernel(
// CHECK-SAME: .shared .align 4 .b8 __wg_main_kernel_0[1024];
// CHECK-SAME: .shared .align 4 .b8 __wg_main_kernel_1[1024];
// CHECK-SAME: st.shared.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: max.NaN.f32
// SM80-LABEL: module @dot
// SM80: .target sm_80
// SM80-SAME: .shared .align 4 .b8 __wg_main_kernel_0[1024];
// SM80-SAME: bar.sync
module @dot {
  func.func public @main(%arg0: tensor<32x64xf32>, %arg1: tensor<64x16xf32>, %arg2: tensor<16xf32>) -> (tensor<32x16xf32>) {
    %0 = hlo.dot_general %arg0, %arg1, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<32x64xf32>, tensor<64x16xf32> -> tensor<32x16xf32>
    %1 = hlo.broadcast_in_dim %arg2, dims = [1] : tensor<16xf32> -> tensor<32x16xf32>
    %2 = hlo.add %0, %1 : tensor<32x16xf32>
    %3 = hlo.constant dense<0.0> : tensor<f32>
    %4 = hlo.broadcast_in_dim %3, dims = [] : tensor<f32> -> tensor<32x16xf32>
    %5 = hlo.maximum %2, %4 : tensor<32x16xf32>
    return %5 : tensor<32x16xf32>
  }
}

// -----

// A 3x3 SAME convolution, NHWC/HWIO: its kernel, tiled like a contraction
// (pixels x out-channels, 8 blocks of 256 threads), the image gathered into
// shared memory.
// CHECK-LABEL: module @conv
// CHECK: gpu.launch_func
// CHECK-SAME: blocks in (%c8, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.binary @main_kernel
// CHECK-SAME: .entry main_kernel(
// CHECK-SAME: .shared .align 4 .b8 __wg_main_kernel_0[1024];
// CHECK-SAME: .shared .align 4 .b8 __wg_main_kernel_1[1024];
// CHECK-SAME: bar.sync
// CHECK-SAME: mul.rn.f32
module @conv {
  func.func public @main(%arg0: tensor<2x8x8x3xf32>, %arg1: tensor<3x3x3x4xf32>) -> (tensor<2x8x8x4xf32>) {
    %0 = hlo.convolution %arg0, %arg1, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], padding = [[1, 1], [1, 1]] : tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32> -> tensor<2x8x8x4xf32>
    return %0 : tensor<2x8x8x4xf32>
  }
}

// -----

// x.at[i].add(u): the index arithmetic is a parallel kernel; the scatter's own
// loop, which the mapping does not parallelize yet, runs on one thread.
// CHECK-LABEL: module @scatter
// CHECK: gpu.launch_func @main_kernel::@main_kernel_0 blocks in (%[[ONE:.*]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
// CHECK: gpu.binary @main_kernel
// CHECK-SAME: .entry main_kernel_0(
module @scatter {
  func.func public @main(%arg0: tensor<16xf32>, %arg1: tensor<3xi32>, %arg2: tensor<3xf32>) -> (tensor<16xf32>) {
    %0 = hlo.constant dense<0> : tensor<i32>
    %1 = hlo.broadcast_in_dim %0, dims = [] : tensor<i32> -> tensor<3xi32>
    %2 = hlo.compare LT, %arg1, %1 : tensor<3xi32> -> tensor<3xi1>
    %3 = hlo.constant dense<16> : tensor<i32>
    %4 = hlo.broadcast_in_dim %3, dims = [] : tensor<i32> -> tensor<3xi32>
    %5 = hlo.add %arg1, %4 : tensor<3xi32>
    %6 = hlo.select %2, %5, %arg1 : tensor<3xi1>, tensor<3xi32>
    %7 = hlo.broadcast_in_dim %6, dims = [1] : tensor<3xi32> -> tensor<1x3xi32>
    %8 = hlo.transpose %7, dims = [1, 0] : tensor<1x3xi32> -> tensor<3x1xi32>
    %9 = hlo.scatter add %arg0[%8], %arg2, update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1 : tensor<16xf32>[tensor<3x1xi32>], tensor<3xf32>
    return %9 : tensor<16xf32>
  }
}
