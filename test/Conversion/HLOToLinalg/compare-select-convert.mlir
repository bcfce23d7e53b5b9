// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// Float comparisons are ordered, except NE which is true for NaN.
// CHECK-LABEL: func.func @compare_f32
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: i1):
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf une
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf ole
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oge
// CHECK: -> tensor<4xi1>
func.func @compare_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = hlo.compare EQ, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %1 = hlo.compare NE, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %2 = hlo.compare LT, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %3 = hlo.compare LE, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %4 = hlo.compare GT, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %5 = hlo.compare GE, %a, %b : tensor<4xf32> -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @compare_i32
// CHECK: arith.cmpi eq
// CHECK: arith.cmpi ne
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi sle
// CHECK: arith.cmpi sgt
// CHECK: arith.cmpi sge
func.func @compare_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = hlo.compare EQ, %a, %b : tensor<4xi32> -> tensor<4xi1>
  %1 = hlo.compare NE, %a, %b : tensor<4xi32> -> tensor<4xi1>
  %2 = hlo.compare LT, %a, %b : tensor<4xi32> -> tensor<4xi1>
  %3 = hlo.compare LE, %a, %b : tensor<4xi32> -> tensor<4xi1>
  %4 = hlo.compare GT, %a, %b : tensor<4xi32> -> tensor<4xi1>
  %5 = hlo.compare GE, %a, %b : tensor<4xi32> -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// i1 orders false < true: unsigned predicates.
// CHECK-LABEL: func.func @compare_i1
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i1
// CHECK: arith.cmpi uge, %{{.*}}, %{{.*}} : i1
func.func @compare_i1(%a: tensor<4xi1>, %b: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = hlo.compare LT, %a, %b : tensor<4xi1> -> tensor<4xi1>
  %1 = hlo.compare GE, %a, %b : tensor<4xi1> -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[P:.*]]: tensor<2x2xi1>, %[[T:.*]]: tensor<2x2xf32>, %[[F:.*]]: tensor<2x2xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]], %[[T]], %[[F]] : tensor<2x2xi1>, tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK: ^bb0(%[[C:.*]]: i1, %[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[R:.*]] = arith.select %[[C]], %[[X]], %[[Y]] : f32
// CHECK: linalg.yield %[[R]]
func.func @select(%p: tensor<2x2xi1>, %t: tensor<2x2xf32>, %f: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = hlo.select %p, %t, %f : tensor<2x2xi1>, tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @convert_floats
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %{{.*}} : f64 to f16
// CHECK: %[[WIDE:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %[[WIDE]] : f32 to bf16
func.func @convert_floats(%a: tensor<4xf32>) -> tensor<4xbf16> {
  %0 = hlo.convert %a : tensor<4xf32> -> tensor<4xf64>
  %1 = hlo.convert %0 : tensor<4xf64> -> tensor<4xf16>
  %2 = hlo.convert %1 : tensor<4xf16> -> tensor<4xbf16>
  return %2 : tensor<4xbf16>
}

// -----

// Signed integers convert with sitofp, i1 with uitofp.
// CHECK-LABEL: func.func @convert_int_to_float
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: arith.uitofp %{{.*}} : i1 to f64
func.func @convert_int_to_float(%a: tensor<4xi32>, %b: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf64>) {
  %0 = hlo.convert %a : tensor<4xi32> -> tensor<4xf32>
  %1 = hlo.convert %b : tensor<4xi1> -> tensor<4xf64>
  return %0, %1 : tensor<4xf32>, tensor<4xf64>
}

// -----

// Float to int saturates: in-range values go through fptosi, NaN gives 0,
// the rest the type's min or max; fptosi only sees in-range values.
// CHECK-LABEL: func.func @convert_f32_to_i32
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: i32):
// CHECK-DAG: %[[HIGH:.*]] = arith.constant 2.14748365E+9 : f32
// CHECK-DAG: %[[LOW:.*]] = arith.constant -2.14748365E+9 : f32
// CHECK: %[[ABOVE:.*]] = arith.cmpf oge, %[[X]], %[[LOW]]
// CHECK: %[[BELOW:.*]] = arith.cmpf olt, %[[X]], %[[HIGH]]
// CHECK: %[[IN:.*]] = arith.andi %[[ABOVE]], %[[BELOW]]
// CHECK: %[[SAFE:.*]] = arith.select %[[IN]], %[[X]], %{{.*}} : f32
// CHECK: %[[CONV:.*]] = arith.fptosi %[[SAFE]] : f32 to i32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]]
// CHECK: %[[SAT:.*]] = arith.select %[[NAN]], %{{.*}}, %{{.*}} : i32
// CHECK: %[[R:.*]] = arith.select %[[IN]], %[[CONV]], %[[SAT]] : i32
// CHECK: linalg.yield %[[R]]
func.func @convert_f32_to_i32(%a: tensor<4xf32>) -> tensor<4xi32> {
  %0 = hlo.convert %a : tensor<4xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @convert_ints
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: arith.extui %{{.*}} : i1 to i64
func.func @convert_ints(%a: tensor<4xi8>, %b: tensor<4xi1>) -> (tensor<4xi16>, tensor<4xi64>) {
  %0 = hlo.convert %a : tensor<4xi8> -> tensor<4xi32>
  %1 = hlo.convert %0 : tensor<4xi32> -> tensor<4xi16>
  %2 = hlo.convert %b : tensor<4xi1> -> tensor<4xi64>
  return %1, %2 : tensor<4xi16>, tensor<4xi64>
}

// -----

// Anything to i1 is `!= 0`; floats compare unordered so NaN is true.
// CHECK-LABEL: func.func @convert_to_i1
// CHECK: %[[FZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.cmpf une, %{{.*}}, %[[FZERO]] : f32
// CHECK: %[[IZERO:.*]] = arith.constant 0 : i32
// CHECK: arith.cmpi ne, %{{.*}}, %[[IZERO]] : i32
func.func @convert_to_i1(%a: tensor<4xf32>, %b: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = hlo.convert %a : tensor<4xf32> -> tensor<4xi1>
  %1 = hlo.convert %b : tensor<4xi32> -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @bitcast_convert
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: return
func.func @bitcast_convert(%x: tensor<4xf32>) -> tensor<4xui32> {
  %0 = hlo.bitcast_convert %x : tensor<4xf32> -> tensor<4xui32>
  return %0 : tensor<4xui32>
}

// -----

// A signedness-only bitcast is no computation at all.
// CHECK-LABEL: func.func @bitcast_convert_signedness
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]]
func.func @bitcast_convert_signedness(%x: tensor<4xi32>) -> tensor<4xui32> {
  %0 = hlo.bitcast_convert %x : tensor<4xi32> -> tensor<4xui32>
  return %0 : tensor<4xui32>
}

// -----

// CHECK-LABEL: func.func @is_finite
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: i1):
// CHECK: %[[ABS:.*]] = math.absf %[[X]] : f32
// CHECK: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK: %[[R:.*]] = arith.cmpf one, %[[ABS]], %[[INF]] : f32
// CHECK: linalg.yield %[[R]] : i1
func.func @is_finite(%x: tensor<4xf32>) -> tensor<4xi1> {
  %0 = hlo.is_finite %x : tensor<4xf32> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// A scalar bound is read through a map to no dimensions.
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @clamp
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[SCALAR]], #[[ID]], #[[ID]], #[[ID]]]
// CHECK: ^bb0(%[[LO:.*]]: i8, %[[X:.*]]: i8, %[[HI:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[M:.*]] = arith.maxui %[[X]], %[[LO]] : i8
// CHECK: arith.minui %[[M]], %[[HI]] : i8
func.func @clamp(%lo: tensor<ui8>, %x: tensor<2x3xui8>, %hi: tensor<2x3xui8>) -> tensor<2x3xui8> {
  %0 = hlo.clamp %lo, %x, %hi : tensor<ui8>, tensor<2x3xui8>, tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}
