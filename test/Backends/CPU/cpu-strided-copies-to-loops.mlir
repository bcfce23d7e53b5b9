// RUN: hlo-opt %s --pass-pipeline='builtin.module(func.func(cpu-strided-copies-to-loops))' | FileCheck %s

// A copy out of a strided view becomes linalg.copy ...
// CHECK-LABEL: func.func @strided_source
// CHECK: linalg.copy ins(%{{.*}} : memref<2x2xf32, strided<[8, 2], offset: 1>>) outs(%{{.*}} : memref<2x2xf32>)
// CHECK-NOT: memref.copy
func.func @strided_source(%a: memref<4x4xf32>, %out: memref<2x2xf32>) {
  %view = memref.subview %a[0, 1] [2, 2] [2, 2] : memref<4x4xf32> to memref<2x2xf32, strided<[8, 2], offset: 1>>
  memref.copy %view, %out : memref<2x2xf32, strided<[8, 2], offset: 1>> to memref<2x2xf32>
  return
}

// ... while a contiguous copy stays a memref.copy (it becomes llvm.memcpy).
// CHECK-LABEL: func.func @contiguous
// CHECK: memref.copy
// CHECK-NOT: linalg.copy
func.func @contiguous(%a: memref<4x4xf32>, %out: memref<4x4xf32>) {
  memref.copy %a, %out : memref<4x4xf32> to memref<4x4xf32>
  return
}
