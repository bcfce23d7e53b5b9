// RUN: hlo-opt %s --cuda-merge-kernel-modules -split-input-file | FileCheck %s

// Both kernels end up in the first module, and the launches name it.
// CHECK: gpu.module @main_kernel
// CHECK:   gpu.func @main_kernel(
// CHECK:   gpu.func @main_kernel_0(
// CHECK-NOT: gpu.module
// CHECK: gpu.launch_func @main_kernel::@main_kernel
// CHECK: gpu.launch_func @main_kernel::@main_kernel_0
module attributes {gpu.container_module} {
  gpu.module @main_kernel {
    gpu.func @main_kernel(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @main_kernel_0 {
    gpu.func @main_kernel_0(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @main(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @main_kernel::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    gpu.launch_func @main_kernel_0::@main_kernel_0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
}

// -----

// Kernels of the same name in two modules: the second takes its module's.
// CHECK-LABEL: gpu.module @f_kernel
// CHECK:   gpu.func @f_kernel(
// CHECK:   gpu.func @f_kernel_0(
// CHECK: gpu.launch_func @f_kernel::@f_kernel
// CHECK: gpu.launch_func @f_kernel::@f_kernel_0
module attributes {gpu.container_module} {
  gpu.module @f_kernel {
    gpu.func @f_kernel(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @f_kernel_0 {
    gpu.func @f_kernel(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @f(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
}
