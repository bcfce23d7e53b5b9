// RUN: hlo-opt %s --hlo-to-cpu --split-input-file | FileCheck %s
// RUN: hlo-opt %s --hlo-to-cpu --split-input-file | FileCheck %s --check-prefix=LLVM-ONLY

// The full CPU pipeline leaves only the LLVM dialect: every module below
// exercises a different part of the hlo-to-linalg lowering. Inputs are
// function arguments, so nothing folds away before the lowering runs.
// LLVM-ONLY-NOT: {{ (hlo|linalg|memref|tensor|bufferization|arith|math|scf|cf|func|affine)\.}}
// LLVM-ONLY-NOT: unrealized_conversion_cast
// Heap memory only through the runtime's allocator table, never libc directly.
// LLVM-ONLY-NOT: llvm.call @{{(malloc|aligned_alloc|free)}}(
// No buffer lives on the stack, where a big one would overflow it instead of
// failing to allocate.
// LLVM-ONLY-NOT: llvm.alloca

// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("f32[4,8];f32[8,3];f32[3]->f32[4]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) -> tensor<4xf32> {
  %0 = hlo.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  %1 = hlo.broadcast_in_dim %b, dims = [1] : tensor<3xf32> -> tensor<4x3xf32>
  %2 = hlo.add %0, %1 : tensor<4x3xf32>
  %3 = hlo.tanh %2 : tensor<4x3xf32>
  %4 = hlo.reduce sum %3, dims = [1] : tensor<4x3xf32> -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// Integer power calls the outlined ipowi from convert-math-to-funcs.
// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("i32[8];i32[8]->i32[8];i32[8];i32[8]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
// CHECK: llvm.func linkonce_odr @__mlir_math_ipowi_i32
func.func @main(%a: tensor<8xi32>, %b: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) {
  %0 = hlo.divide %a, %b : tensor<8xi32>
  %1 = hlo.remainder %a, %b : tensor<8xi32>
  %2 = hlo.power %a, %b : tensor<8xi32>
  return %0, %1, %2 : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>
}

// -----

// The signature keeps the unsigned types that the lowering makes signless.
// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("ui8[4];ui8[4]->ui8[4];f32[4];ui8[];ui64[4]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
// CHECK: llvm.func linkonce_odr @__mlir_math_ipowi_i8
func.func @main(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xf32>, tensor<ui8>, tensor<4xui64>) {
  %0 = hlo.divide %a, %b : tensor<4xui8>
  %1 = hlo.power %0, %b : tensor<4xui8>
  %2 = hlo.convert %1 : tensor<4xui8> -> tensor<4xf32>
  %3 = hlo.reduce max %a, dims = [0] : tensor<4xui8> -> tensor<ui8>
  %4 = hlo.convert %2 : tensor<4xf32> -> tensor<4xui64>
  return %1, %2, %3, %4 : tensor<4xui8>, tensor<4xf32>, tensor<ui8>, tensor<4xui64>
}

// -----

// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("i1[2,3];f64[2,3];f64[2,3]->f64[2,3];i1[2,3];i1[2]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%p: tensor<2x3xi1>, %a: tensor<2x3xf64>, %b: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xi1>, tensor<2xi1>) {
  %0 = hlo.compare GT, %a, %b : tensor<2x3xf64> -> tensor<2x3xi1>
  %1 = hlo.xor %0, %p : tensor<2x3xi1>
  %2 = hlo.select %1, %a, %b : tensor<2x3xi1>, tensor<2x3xf64>
  %3 = hlo.not %1 : tensor<2x3xi1>
  %4 = hlo.compare LT, %3, %p : tensor<2x3xi1> -> tensor<2x3xi1>
  %5 = hlo.reduce or %4, dims = [1] : tensor<2x3xi1> -> tensor<2xi1>
  return %2, %4, %5 : tensor<2x3xf64>, tensor<2x3xi1>, tensor<2xi1>
}

// -----

// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("f32[];i32[]->f32[];f32[1,1]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%x: tensor<f32>, %n: tensor<i32>) -> (tensor<f32>, tensor<1x1xf32>) {
  %0 = hlo.convert %n : tensor<i32> -> tensor<f32>
  %1 = hlo.multiply %x, %0 : tensor<f32>
  %2 = hlo.logistic %1 : tensor<f32>
  %3 = hlo.reshape %2 : tensor<f32> -> tensor<1x1xf32>
  return %2, %3 : tensor<f32>, tensor<1x1xf32>
}

// -----

// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("f32[0,3];f32[3]->f32[3];f32[3,0];f32[2,0,3]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%a: tensor<0x3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3x0xf32>, tensor<2x0x3xf32>) {
  %0 = hlo.reduce sum %a, dims = [0] : tensor<0x3xf32> -> tensor<3xf32>
  %1 = hlo.add %0, %b : tensor<3xf32>
  %2 = hlo.transpose %a, dims = [1, 0] : tensor<0x3xf32> -> tensor<3x0xf32>
  %3 = hlo.exp %2 : tensor<3x0xf32>
  %4 = hlo.broadcast_in_dim %a, dims = [1, 2] : tensor<0x3xf32> -> tensor<2x0x3xf32>
  return %1, %3, %4 : tensor<3xf32>, tensor<3x0xf32>, tensor<2x0x3xf32>
}

// -----

// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("f32[2,3,4];f32[2,4,5]->f32[2,3,5];i64[5,2];f32[6,4]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> (tensor<2x3x5xf32>, tensor<5x2xi64>, tensor<6x4xf32>) {
  %0 = hlo.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [2] x [1] : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  %1 = hlo.iota dim = 0 : tensor<5x2xi64>
  %2 = hlo.reshape %a : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %3 = hlo.reduce max %2, dims = [] : tensor<6x4xf32> -> tensor<6x4xf32>
  return %0, %1, %3 : tensor<2x3x5xf32>, tensor<5x2xi64>, tensor<6x4xf32>
}

// -----

// Every float unary op, and the float binary ops with libm lowerings, in f32.
// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("f32[4];f32[4]->f32[4];f32[4];f32[4];f32[4];f32[4];f32[4];f32[4];f32[4];f32[4];f32[4];f32[4];f32[4];f32[4];f32[4];f32[4];f32[4];i32[4]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %0 = hlo.exp %x : tensor<4xf32>
  %1 = hlo.log %x : tensor<4xf32>
  %2 = hlo.tanh %x : tensor<4xf32>
  %3 = hlo.logistic %x : tensor<4xf32>
  %4 = hlo.sqrt %x : tensor<4xf32>
  %5 = hlo.rsqrt %x : tensor<4xf32>
  %6 = hlo.sin %x : tensor<4xf32>
  %7 = hlo.cos %x : tensor<4xf32>
  %8 = hlo.floor %x : tensor<4xf32>
  %9 = hlo.ceil %x : tensor<4xf32>
  %10 = hlo.abs %x : tensor<4xf32>
  %11 = hlo.sign %x : tensor<4xf32>
  %12 = hlo.negate %x : tensor<4xf32>
  %13 = hlo.power %x, %y : tensor<4xf32>
  %14 = hlo.remainder %x, %y : tensor<4xf32>
  %15 = hlo.maximum %x, %y : tensor<4xf32>
  %16 = hlo.convert %x : tensor<4xf32> -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// Every float unary op, and the float binary ops with libm lowerings, in f64.
// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("f64[4];f64[4]->f64[4];f64[4];f64[4];f64[4];f64[4];f64[4];f64[4];f64[4];f64[4];f64[4];f64[4];f64[4];f64[4];f64[4];f64[4];f64[4];i32[4]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%x: tensor<4xf64>, %y: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xi32>) {
  %0 = hlo.exp %x : tensor<4xf64>
  %1 = hlo.log %x : tensor<4xf64>
  %2 = hlo.tanh %x : tensor<4xf64>
  %3 = hlo.logistic %x : tensor<4xf64>
  %4 = hlo.sqrt %x : tensor<4xf64>
  %5 = hlo.rsqrt %x : tensor<4xf64>
  %6 = hlo.sin %x : tensor<4xf64>
  %7 = hlo.cos %x : tensor<4xf64>
  %8 = hlo.floor %x : tensor<4xf64>
  %9 = hlo.ceil %x : tensor<4xf64>
  %10 = hlo.abs %x : tensor<4xf64>
  %11 = hlo.sign %x : tensor<4xf64>
  %12 = hlo.negate %x : tensor<4xf64>
  %13 = hlo.power %x, %y : tensor<4xf64>
  %14 = hlo.remainder %x, %y : tensor<4xf64>
  %15 = hlo.maximum %x, %y : tensor<4xf64>
  %16 = hlo.convert %x : tensor<4xf64> -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xi32>
}

// -----

// Every float unary op, and the float binary ops with libm lowerings, in f16.
// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("f16[4];f16[4]->f16[4];f16[4];f16[4];f16[4];f16[4];f16[4];f16[4];f16[4];f16[4];f16[4];f16[4];f16[4];f16[4];f16[4];f16[4];f16[4];i32[4]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%x: tensor<4xf16>, %y: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xi32>) {
  %0 = hlo.exp %x : tensor<4xf16>
  %1 = hlo.log %x : tensor<4xf16>
  %2 = hlo.tanh %x : tensor<4xf16>
  %3 = hlo.logistic %x : tensor<4xf16>
  %4 = hlo.sqrt %x : tensor<4xf16>
  %5 = hlo.rsqrt %x : tensor<4xf16>
  %6 = hlo.sin %x : tensor<4xf16>
  %7 = hlo.cos %x : tensor<4xf16>
  %8 = hlo.floor %x : tensor<4xf16>
  %9 = hlo.ceil %x : tensor<4xf16>
  %10 = hlo.abs %x : tensor<4xf16>
  %11 = hlo.sign %x : tensor<4xf16>
  %12 = hlo.negate %x : tensor<4xf16>
  %13 = hlo.power %x, %y : tensor<4xf16>
  %14 = hlo.remainder %x, %y : tensor<4xf16>
  %15 = hlo.maximum %x, %y : tensor<4xf16>
  %16 = hlo.convert %x : tensor<4xf16> -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16 : tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xi32>
}

// -----

// Every float unary op, and the float binary ops with libm lowerings, in bf16.
// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("bf16[4];bf16[4]->bf16[4];bf16[4];bf16[4];bf16[4];bf16[4];bf16[4];bf16[4];bf16[4];bf16[4];bf16[4];bf16[4];bf16[4];bf16[4];bf16[4];bf16[4];bf16[4];i32[4]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%x: tensor<4xbf16>, %y: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xi32>) {
  %0 = hlo.exp %x : tensor<4xbf16>
  %1 = hlo.log %x : tensor<4xbf16>
  %2 = hlo.tanh %x : tensor<4xbf16>
  %3 = hlo.logistic %x : tensor<4xbf16>
  %4 = hlo.sqrt %x : tensor<4xbf16>
  %5 = hlo.rsqrt %x : tensor<4xbf16>
  %6 = hlo.sin %x : tensor<4xbf16>
  %7 = hlo.cos %x : tensor<4xbf16>
  %8 = hlo.floor %x : tensor<4xbf16>
  %9 = hlo.ceil %x : tensor<4xbf16>
  %10 = hlo.abs %x : tensor<4xbf16>
  %11 = hlo.sign %x : tensor<4xbf16>
  %12 = hlo.negate %x : tensor<4xbf16>
  %13 = hlo.power %x, %y : tensor<4xbf16>
  %14 = hlo.remainder %x, %y : tensor<4xbf16>
  %15 = hlo.maximum %x, %y : tensor<4xbf16>
  %16 = hlo.convert %x : tensor<4xbf16> -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16 : tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xi32>
}

// -----

// Bit ops, clamp, the extra float math (libm calls and explicit formulas),
// arg_reduce and cumulative lower to LLVM in f32, f64 and bf16.
// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_signature("i32[4];i32[4];f32[4];f64[4,3];bf16[4]->i32[4];f32[4];i64[4];f64[4,3];bf16[4];i1[4]\00")
// CHECK: llvm.func @numlir_entry(%arg0: !llvm.ptr)
func.func @main(%a: tensor<4xi32>, %b: tensor<4xi32>, %x: tensor<4xf32>, %d: tensor<4x3xf64>, %h: tensor<4xbf16>) -> (tensor<4xi32>, tensor<4xf32>, tensor<4xi64>, tensor<4x3xf64>, tensor<4xbf16>, tensor<4xi1>) {
  %0 = hlo.shift_right_arithmetic %a, %b : tensor<4xi32>
  %1 = hlo.popcnt %0 : tensor<4xi32>
  %2 = hlo.count_leading_zeros %1 : tensor<4xi32>
  %c = hlo.bitcast_convert %2 : tensor<4xi32> -> tensor<4xf32>
  %lo = hlo.constant dense<0.0> : tensor<f32>
  %hi = hlo.constant dense<1.0> : tensor<f32>
  %3 = hlo.clamp %lo, %x, %hi : tensor<f32>, tensor<4xf32>, tensor<f32>
  %4 = hlo.log_plus_one %3 : tensor<4xf32>
  %5 = hlo.erf_inv %4 : tensor<4xf32>
  %6 = hlo.lgamma %5 : tensor<4xf32>
  %7 = hlo.digamma %6 : tensor<4xf32>
  %8 = hlo.atan2 %7, %c : tensor<4xf32>
  %9 = hlo.asinh %8 : tensor<4xf32>
  %10 = hlo.next_after %9, %c : tensor<4xf32>
  %11 = hlo.arg_reduce max %d, dim = 1 : tensor<4x3xf64> -> tensor<4xi64>
  %12 = hlo.cumulative prod %d, dim = 0, reverse = false : tensor<4x3xf64>
  %13 = hlo.erf_inv %12 : tensor<4x3xf64>
  %14 = hlo.cbrt %h : tensor<4xbf16>
  %16 = hlo.is_finite %14 : tensor<4xbf16> -> tensor<4xi1>
  return %2, %10, %11, %13, %14, %16 : tensor<4xi32>, tensor<4xf32>, tensor<4xi64>, tensor<4x3xf64>, tensor<4xbf16>, tensor<4xi1>
}

// -----

// A temporary buffer (the dot's result, consumed by the reduction) is
// allocated and freed through the runtime; the allocation sites name its
// size and user line.
// CHECK-LABEL: llvm.func internal @main
// CHECK: %[[BUFFER:.*]] = llvm.call @_mlir_memref_to_llvm_aligned_alloc(%{{.*}}, %{{.*}})
// CHECK: llvm.call @_mlir_memref_to_llvm_free(%[[BUFFER]])
// CHECK: @numlir_entry_allocation_sites("48 f32[4,3] user.py:3:7\00")
// CHECK: llvm.mlir.global external @numlir_entry_allocator()
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>) -> tensor<4xf32> {
  %0 = hlo.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32> loc("user.py":3:7)
  %1 = hlo.tanh %0 : tensor<4x3xf32> loc("user.py":4:7)
  %2 = hlo.reduce sum %1, dims = [1] : tensor<4x3xf32> -> tensor<4xf32> loc("user.py":5:7)
  return %2 : tensor<4xf32>
}
