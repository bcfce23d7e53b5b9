// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// An elementwise op is one parallel generic with identity maps over a fresh
// tensor.empty.

// CHECK: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_f32
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[ID2]], #[[ID2]], #[[ID2]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK-SAME: outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @add_f32(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = hlo.add %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @unary_float
// CHECK: arith.negf
// CHECK: math.absf
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.tanh
// CHECK: math.sqrt
// CHECK: math.rsqrt
// CHECK: math.sin
// CHECK: math.cos
// CHECK: math.floor
// CHECK: math.ceil
// CHECK-NOT: hlo.
func.func @unary_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = hlo.negate %x : tensor<4xf32>
  %1 = hlo.abs %0 : tensor<4xf32>
  %2 = hlo.exp %1 : tensor<4xf32>
  %3 = hlo.log %2 : tensor<4xf32>
  %4 = hlo.tanh %3 : tensor<4xf32>
  %5 = hlo.sqrt %4 : tensor<4xf32>
  %6 = hlo.rsqrt %5 : tensor<4xf32>
  %7 = hlo.sin %6 : tensor<4xf32>
  %8 = hlo.cos %7 : tensor<4xf32>
  %9 = hlo.floor %8 : tensor<4xf32>
  %10 = hlo.ceil %9 : tensor<4xf32>
  return %10 : tensor<4xf32>
}

// -----

// Float sign is -1 / +1, or x itself for NaN and +-0.0.
// CHECK-LABEL: func.func @sign_f32
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[MINUS_ONE:.*]] = arith.constant -1.000000e+00 : f32
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[X]], %[[ZERO]] : f32
// CHECK: %[[NEG:.*]] = arith.select %[[LT]], %[[MINUS_ONE]], %[[X]] : f32
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[ZERO]] : f32
// CHECK: %[[R:.*]] = arith.select %[[GT]], %{{.*}}, %[[NEG]] : f32
// CHECK: linalg.yield %[[R]]
func.func @sign_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = hlo.sign %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @sign_i32
// CHECK: ^bb0(%[[X:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[GT:.*]] = arith.cmpi sgt, %[[X]]
// CHECK: %[[P:.*]] = arith.extui %[[GT]] : i1 to i32
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[X]]
// CHECK: %[[N:.*]] = arith.extui %[[LT]] : i1 to i32
// CHECK: %[[R:.*]] = arith.subi %[[P]], %[[N]] : i32
// CHECK: linalg.yield %[[R]]
func.func @sign_i32(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = hlo.sign %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// logistic(x) = (x >= 0 ? 1 : e) / (1 + e) with e = exp(-|x|): no overflow.
// CHECK-LABEL: func.func @logistic
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[ABS:.*]] = math.absf %[[X]]
// CHECK: %[[NEG:.*]] = arith.negf %[[ABS]]
// CHECK: %[[E:.*]] = math.exp %[[NEG]]
// CHECK: %[[DEN:.*]] = arith.addf %[[ONE:.*]], %[[E]]
// CHECK: %[[GE:.*]] = arith.cmpf oge, %[[X]]
// CHECK: %[[NUM:.*]] = arith.select %[[GE]], %[[ONE]], %[[E]]
// CHECK: %[[R:.*]] = arith.divf %[[NUM]], %[[DEN]]
// CHECK: linalg.yield %[[R]]
func.func @logistic(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = hlo.logistic %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @unary_int
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: arith.subi %[[ZERO]], %{{.*}} : i32
// CHECK: math.absi
// CHECK: %[[ONES:.*]] = arith.constant -1 : i32
// CHECK: arith.xori %{{.*}}, %[[ONES]] : i32
func.func @unary_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = hlo.negate %x : tensor<4xi32>
  %1 = hlo.abs %0 : tensor<4xi32>
  %2 = hlo.not %1 : tensor<4xi32>
  return %2 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @not_i1
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: arith.xori %{{.*}}, %[[TRUE]] : i1
func.func @not_i1(%x: tensor<4xi1>) -> tensor<4xi1> {
  %0 = hlo.not %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Float maximum/minimum propagate NaN; remainder is fmod.
// CHECK-LABEL: func.func @binary_float
// CHECK: arith.subf {{.*}} : f64
// CHECK: arith.mulf {{.*}} : f64
// CHECK: arith.divf {{.*}} : f64
// CHECK: arith.remf {{.*}} : f64
// CHECK: arith.maximumf {{.*}} : f64
// CHECK: arith.minimumf {{.*}} : f64
// CHECK: math.powf {{.*}} : f64
func.func @binary_float(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  %0 = hlo.subtract %a, %b : tensor<4xf64>
  %1 = hlo.multiply %0, %b : tensor<4xf64>
  %2 = hlo.divide %1, %b : tensor<4xf64>
  %3 = hlo.remainder %2, %b : tensor<4xf64>
  %4 = hlo.maximum %3, %b : tensor<4xf64>
  %5 = hlo.minimum %4, %b : tensor<4xf64>
  %6 = hlo.power %5, %b : tensor<4xf64>
  return %6 : tensor<4xf64>
}

// -----

// CHECK-LABEL: func.func @binary_int
// CHECK: arith.addi {{.*}} : i16
// CHECK: arith.subi {{.*}} : i16
// CHECK: arith.muli {{.*}} : i16
// CHECK: arith.maxsi {{.*}} : i16
// CHECK: arith.minsi {{.*}} : i16
// CHECK: arith.andi {{.*}} : i16
// CHECK: arith.ori {{.*}} : i16
// CHECK: arith.xori {{.*}} : i16
func.func @binary_int(%a: tensor<4xi16>, %b: tensor<4xi16>) -> tensor<4xi16> {
  %0 = hlo.add %a, %b : tensor<4xi16>
  %1 = hlo.subtract %0, %b : tensor<4xi16>
  %2 = hlo.multiply %1, %b : tensor<4xi16>
  %3 = hlo.maximum %2, %b : tensor<4xi16>
  %4 = hlo.minimum %3, %b : tensor<4xi16>
  %5 = hlo.and %4, %b : tensor<4xi16>
  %6 = hlo.or %5, %b : tensor<4xi16>
  %7 = hlo.xor %6, %b : tensor<4xi16>
  return %7 : tensor<4xi16>
}

// -----

// On i1, maximum is `or` and minimum is `and`.
// CHECK-LABEL: func.func @minmax_i1
// CHECK: arith.ori {{.*}} : i1
// CHECK: arith.andi {{.*}} : i1
func.func @minmax_i1(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = hlo.maximum %a, %b : tensor<4xi1>
  %1 = hlo.minimum %0, %b : tensor<4xi1>
  return %1 : tensor<4xi1>
}

// -----

// x / 0 = -1 and INT_MIN / -1 = INT_MIN: the divisor becomes 1 in both
// cases, so arith.divsi never sees an undefined input.
// CHECK-LABEL: func.func @divide_i32
// CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[IS_ZERO:.*]] = arith.cmpi eq, %[[Y]], %[[ZERO]]
// CHECK: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: %[[X_MIN:.*]] = arith.cmpi eq, %[[X]], %[[MIN]]
// CHECK: %[[M1:.*]] = arith.constant -1 : i32
// CHECK: %[[Y_M1:.*]] = arith.cmpi eq, %[[Y]], %[[M1]]
// CHECK: %[[OVF:.*]] = arith.andi %[[X_MIN]], %[[Y_M1]]
// CHECK: %[[BAD:.*]] = arith.ori %[[IS_ZERO]], %[[OVF]]
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[SAFE:.*]] = arith.select %[[BAD]], %[[ONE]], %[[Y]]
// CHECK: %[[Q:.*]] = arith.divsi %[[X]], %[[SAFE]]
// CHECK: %[[ALL_ONES:.*]] = arith.constant -1 : i32
// CHECK: %[[R:.*]] = arith.select %[[IS_ZERO]], %[[ALL_ONES]], %[[Q]]
// CHECK: linalg.yield %[[R]]
func.func @divide_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = hlo.divide %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// x % 0 = x and INT_MIN % -1 = 0 (= INT_MIN % 1).
// CHECK-LABEL: func.func @remainder_i8
// CHECK: ^bb0(%[[X:.*]]: i8, %[[Y:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[IS_ZERO:.*]] = arith.cmpi eq, %[[Y]], %{{.*}} : i8
// CHECK: %[[MIN:.*]] = arith.constant -128 : i8
// CHECK: %[[X_MIN:.*]] = arith.cmpi eq, %[[X]], %[[MIN]]
// CHECK: %[[Y_M1:.*]] = arith.cmpi eq, %[[Y]], %{{.*}} : i8
// CHECK: %[[OVF:.*]] = arith.andi %[[X_MIN]], %[[Y_M1]]
// CHECK: %[[BAD:.*]] = arith.ori %[[IS_ZERO]], %[[OVF]]
// CHECK: %[[SAFE:.*]] = arith.select %[[BAD]], %{{.*}}, %[[Y]]
// CHECK: %[[REM:.*]] = arith.remsi %[[X]], %[[SAFE]]
// CHECK: %[[R:.*]] = arith.select %[[IS_ZERO]], %[[X]], %[[REM]]
// CHECK: linalg.yield %[[R]]
func.func @remainder_i8(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
  %0 = hlo.remainder %a, %b : tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// math.ipowi only sees non-negative exponents; a negative exponent gives
// 1 for base 1, +-1 for base -1 and 0 otherwise.
// CHECK-LABEL: func.func @power_i32
// CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[Y]]
// CHECK: %[[LOW:.*]] = arith.andi %[[Y]], %{{.*}} : i32
// CHECK: %[[POW:.*]] = math.ipowi %[[X]], %[[LOW]] : i32
// CHECK: %[[R:.*]] = arith.select %[[NEG]], %{{.*}}, %[[POW]]
// CHECK: linalg.yield %[[R]]
func.func @power_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = hlo.power %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// A rank-0 tensor is a generic with no loops.
// CHECK: #[[SCALAR:.*]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @scalar_tensor
// CHECK: tensor.empty() : tensor<f32>
// CHECK: linalg.generic {indexing_maps = [#[[SCALAR]], #[[SCALAR]]], iterator_types = []}
// CHECK: math.exp
func.func @scalar_tensor(%a: tensor<f32>) -> tensor<f32> {
  %0 = hlo.exp %a : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Shift amounts of at least the bit width are replaced before the shift, so
// arith never sees a poison shift; the arithmetic shift clamps to width - 1.
// CHECK-LABEL: func.func @shifts_i32
// CHECK: ^bb0(%[[A:.*]]: i32, %[[B:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[W:.*]] = arith.constant 32 : i32
// CHECK: %[[WIDE:.*]] = arith.cmpi uge, %[[B]], %[[W]] : i32
// CHECK: %[[AMOUNT:.*]] = arith.select %[[WIDE]], %{{.*}}, %[[B]] : i32
// CHECK: %[[S:.*]] = arith.shli %[[A]], %[[AMOUNT]] : i32
// CHECK: %[[R:.*]] = arith.select %[[WIDE]], %{{.*}}, %[[S]] : i32
// CHECK: linalg.yield %[[R]]
// CHECK: arith.shrui
// CHECK: ^bb0(%[[A2:.*]]: i32, %[[B2:.*]]: i32, %{{.*}}: i32):
// CHECK-DAG: %[[W31:.*]] = arith.constant 31 : i32
// CHECK: %[[WIDE2:.*]] = arith.cmpi uge, %[[B2]], %{{.*}} : i32
// CHECK: %[[AMOUNT2:.*]] = arith.select %[[WIDE2]], %[[W31]], %[[B2]] : i32
// CHECK: arith.shrsi %[[A2]], %[[AMOUNT2]] : i32
func.func @shifts_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = hlo.shift_left %a, %b : tensor<4xi32>
  %1 = hlo.shift_right_logical %a, %b : tensor<4xi32>
  %2 = hlo.shift_right_arithmetic %a, %b : tensor<4xi32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @bit_counts_ui8
// CHECK: math.ctpop %{{.*}} : i8
// CHECK: math.ctlz %{{.*}} : i8
func.func @bit_counts_ui8(%a: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xui8>) {
  %0 = hlo.popcnt %a : tensor<4xui8>
  %1 = hlo.count_leading_zeros %a : tensor<4xui8>
  return %0, %1 : tensor<4xui8>, tensor<4xui8>
}

// -----

// f16 and bf16 compute in f32; libm-backed ops become math ops.
// CHECK-LABEL: func.func @float_math_f16
// CHECK: ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
// CHECK: %[[E:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK: %[[T:.*]] = math.tan %[[E]] : f32
// CHECK: %[[R:.*]] = arith.truncf %[[T]] : f32 to f16
// CHECK: linalg.yield %[[R]] : f16
// CHECK: math.asin
// CHECK: math.acos
// CHECK: math.atan
// CHECK: math.sinh
// CHECK: math.cosh
// CHECK: math.asinh
// CHECK: math.acosh
// CHECK: math.atanh
// CHECK: math.erf
// CHECK: math.cbrt
// CHECK: math.roundeven
// CHECK: math.round
// CHECK: math.atan2
// CHECK-NOT: hlo.
func.func @float_math_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = hlo.tan %x : tensor<4xf16>
  %1 = hlo.asin %0 : tensor<4xf16>
  %2 = hlo.acos %1 : tensor<4xf16>
  %3 = hlo.atan %2 : tensor<4xf16>
  %4 = hlo.sinh %3 : tensor<4xf16>
  %5 = hlo.cosh %4 : tensor<4xf16>
  %6 = hlo.asinh %5 : tensor<4xf16>
  %7 = hlo.acosh %6 : tensor<4xf16>
  %8 = hlo.atanh %7 : tensor<4xf16>
  %9 = hlo.erf %8 : tensor<4xf16>
  %10 = hlo.cbrt %9 : tensor<4xf16>
  %11 = hlo.round_nearest_even %10 : tensor<4xf16>
  %12 = hlo.round_nearest_afz %11 : tensor<4xf16>
  %13 = hlo.atan2 %12, %x : tensor<4xf16>
  return %13 : tensor<4xf16>
}

// -----

// log1p is log(u) * x / (u - 1) with u = 1 + x (never math.log1p, whose
// LLVM lowering is the inaccurate log(1 + x)); expm1 likewise.
// CHECK-LABEL: func.func @log1p_expm1_f32
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[U:.*]] = arith.addf %[[ONE]], %[[X]] : f32
// CHECK: %[[D:.*]] = arith.subf %[[U]], %[[ONE]] : f32
// CHECK: %[[Q:.*]] = arith.divf %[[X]], %[[D]] : f32
// CHECK: %[[L:.*]] = math.log %[[U]] : f32
// CHECK: arith.mulf %[[L]], %[[Q]] : f32
// CHECK: math.exp
// CHECK-NOT: math.log1p
// CHECK-NOT: math.expm1
func.func @log1p_expm1_f32(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = hlo.log_plus_one %x : tensor<4xf32>
  %1 = hlo.exponential_minus_one %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// f64 erf_inv refines Giles' approximation with Newton steps on erf/erfc;
// lgamma and digamma of f32 compute in f64.
// CHECK-LABEL: func.func @special_functions
// CHECK: math.erfc %{{.*}} : f64
// CHECK: math.copysign
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: math.sin %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: math.tan %{{.*}} : f64
func.func @special_functions(%d: tensor<4xf64>, %x: tensor<4xf32>) -> (tensor<4xf64>, tensor<4xf32>, tensor<4xf32>) {
  %0 = hlo.erf_inv %d : tensor<4xf64>
  %1 = hlo.lgamma %x : tensor<4xf32>
  %2 = hlo.digamma %x : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf64>, tensor<4xf32>, tensor<4xf32>
}

// -----

// nextafter steps the integer image of the float by one.
// CHECK-LABEL: func.func @next_after_bf16
// CHECK: arith.bitcast %{{.*}} : bf16 to i16
// CHECK-DAG: arith.addi
// CHECK-DAG: arith.subi
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
func.func @next_after_bf16(%x: tensor<4xbf16>, %y: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = hlo.next_after %x, %y : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
