// RUN: hlo-opt %s --hlo-to-cpu | mlir-translate --mlir-to-llvmir | FileCheck %s

// The pipeline's output translates to LLVM IR with the runtime's entry
// point and signature string.
// CHECK: @numlir_entry_signature = constant [{{[0-9]+}} x i8] c"f32[4,8];f32[8,3];f32[3]->f32[4]\00"
// f32 tanh is a polynomial (cpu-approximate-math), not a libm call.
// CHECK: define internal void @main(
// CHECK-NOT: @llvm.tanh.f32
// CHECK-NOT: @tanhf
// CHECK: define void @numlir_entry(ptr %{{.*}})
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) -> tensor<4xf32> {
  %0 = hlo.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  %1 = hlo.broadcast_in_dim %b, dims = [1] : tensor<3xf32> -> tensor<4x3xf32>
  %2 = hlo.add %0, %1 : tensor<4x3xf32>
  %3 = hlo.tanh %2 : tensor<4x3xf32>
  %4 = hlo.reduce sum %3, dims = [1] : tensor<4x3xf32> -> tensor<4xf32>
  return %4 : tensor<4xf32>
}
