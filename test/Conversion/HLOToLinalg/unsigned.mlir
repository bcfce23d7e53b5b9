// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// Unsigned tensors become signless ones of the same width, in signatures
// too; the ops pick unsigned arith from the hlo element type.

// CHECK-LABEL: func.func @divide_remainder
// CHECK-SAME: (%{{.*}}: tensor<4xi32>, %{{.*}}: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>)
// CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[IS_ZERO:.*]] = arith.cmpi eq, %[[Y]], %{{.*}} : i32
// CHECK: %[[SAFE:.*]] = arith.select %[[IS_ZERO]], %{{.*}}, %[[Y]] : i32
// CHECK: %[[Q:.*]] = arith.divui %[[X]], %[[SAFE]] : i32
// CHECK: %[[ONES:.*]] = arith.constant -1 : i32
// CHECK: %[[R:.*]] = arith.select %[[IS_ZERO]], %[[ONES]], %[[Q]] : i32
// CHECK: linalg.yield %[[R]]
// CHECK: ^bb0(%[[X2:.*]]: i32, %[[Y2:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[IS_ZERO2:.*]] = arith.cmpi eq, %[[Y2]], %{{.*}} : i32
// CHECK: %[[SAFE2:.*]] = arith.select %[[IS_ZERO2]], %{{.*}}, %[[Y2]] : i32
// CHECK: %[[REM:.*]] = arith.remui %[[X2]], %[[SAFE2]] : i32
// CHECK: %[[R2:.*]] = arith.select %[[IS_ZERO2]], %[[X2]], %[[REM]] : i32
// CHECK: linalg.yield %[[R2]]
func.func @divide_remainder(%a: tensor<4xui32>, %b: tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>) {
  %0 = hlo.divide %a, %b : tensor<4xui32>
  %1 = hlo.remainder %a, %b : tensor<4xui32>
  return %0, %1 : tensor<4xui32>, tensor<4xui32>
}

// -----

// CHECK-LABEL: func.func @ordering
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK: arith.maxui
// CHECK: arith.minui
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: linalg.fill ins(%[[ZERO]] : i32)
// CHECK: linalg.reduce
// CHECK: arith.maxui
// CHECK: %[[UMAX:.*]] = arith.constant -1 : i32
// CHECK: linalg.fill ins(%[[UMAX]] : i32)
// CHECK: linalg.reduce
// CHECK: arith.minui
func.func @ordering(%a: tensor<4xui32>, %b: tensor<4xui32>) -> (tensor<4xi1>, tensor<4xui32>, tensor<ui32>, tensor<ui32>) {
  %0 = hlo.compare LT, %a, %b : tensor<4xui32> -> tensor<4xi1>
  %1 = hlo.maximum %a, %b : tensor<4xui32>
  %2 = hlo.minimum %1, %b : tensor<4xui32>
  %3 = hlo.reduce max %a, dims = [0] : tensor<4xui32> -> tensor<ui32>
  %4 = hlo.reduce min %a, dims = [0] : tensor<4xui32> -> tensor<ui32>
  return %0, %2, %3, %4 : tensor<4xi1>, tensor<4xui32>, tensor<ui32>, tensor<ui32>
}

// -----

// Unsigned sign is x != 0; abs is the identity.
// CHECK-LABEL: func.func @sign_abs
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : i16
// CHECK: arith.extui %[[NZ]] : i1 to i16
// CHECK-NOT: math.absi
func.func @sign_abs(%a: tensor<4xui16>) -> (tensor<4xui16>, tensor<4xui16>) {
  %0 = hlo.sign %a : tensor<4xui16>
  %1 = hlo.abs %a : tensor<4xui16>
  return %0, %1 : tensor<4xui16>, tensor<4xui16>
}

// -----

// CHECK-LABEL: func.func @converts
// CHECK: arith.uitofp %{{.*}} : i32 to f32
// CHECK: arith.extui %{{.*}} : i32 to i64
// CHECK: arith.fptoui %{{.*}} : f32 to i32
func.func @converts(%a: tensor<4xui32>, %f: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xui64>, tensor<4xui32>) {
  %0 = hlo.convert %a : tensor<4xui32> -> tensor<4xf32>
  %1 = hlo.convert %a : tensor<4xui32> -> tensor<4xui64>
  %2 = hlo.convert %f : tensor<4xf32> -> tensor<4xui32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xui64>, tensor<4xui32>
}

// -----

// A signedness-only convert is no op at all.
// CHECK-LABEL: func.func @reinterpret
// CHECK-SAME: (%[[A:.*]]: tensor<4xi8>) -> tensor<4xi8>
// CHECK-NEXT: return %[[A]] : tensor<4xi8>
func.func @reinterpret(%a: tensor<4xui8>) -> tensor<4xi8> {
  %0 = hlo.convert %a : tensor<4xui8> -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// Constants keep their bits; calls and private functions convert too.
// CHECK-LABEL: func.func @call
// CHECK-SAME: (%[[A:.*]]: tensor<4xi8>) -> tensor<4xi8>
// CHECK: %[[C:.*]] = arith.constant dense<[1, 2, -1, -128]> : tensor<4xi8>
// CHECK: %[[R:.*]] = call @callee(%[[A]], %[[C]]) : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
// CHECK: return %[[R]] : tensor<4xi8>
// CHECK-LABEL: func.func private @callee
// CHECK-SAME: (%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> tensor<4xi8>
// CHECK: arith.minui
func.func @call(%a: tensor<4xui8>) -> tensor<4xui8> {
  %c = hlo.constant dense<[1, 2, 255, 128]> : tensor<4xui8>
  %0 = call @callee(%a, %c) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}
func.func private @callee(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = hlo.minimum %a, %b : tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// An exponent with the top bit set is 2^(N-1) + rest: b^(2^(N-1)) wraps to
// 1 for odd b and 0 for even b.
// CHECK-LABEL: func.func @power
// CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[TOP:.*]] = arith.cmpi slt, %[[Y]], %{{.*}} : i32
// CHECK: %[[LOW:.*]] = arith.andi %[[Y]], %{{.*}} : i32
// CHECK: %[[POW:.*]] = math.ipowi %[[X]], %[[LOW]] : i32
// CHECK: %[[BIT:.*]] = arith.andi %[[X]], %{{.*}} : i32
// CHECK: %[[ODD:.*]] = arith.cmpi ne, %[[BIT]], %{{.*}} : i32
// CHECK: %[[SPECIAL:.*]] = arith.select %[[ODD]], %[[POW]], %{{.*}} : i32
// CHECK: arith.select %[[TOP]], %[[SPECIAL]], %[[POW]] : i32
func.func @power(%a: tensor<4xui32>, %b: tensor<4xui32>) -> tensor<4xui32> {
  %0 = hlo.power %a, %b : tensor<4xui32>
  return %0 : tensor<4xui32>
}
