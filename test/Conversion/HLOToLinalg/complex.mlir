// RUN: hlo-opt %s --convert-hlo-to-linalg --split-input-file | FileCheck %s

// Complex operands lower to complex dialect ops in the generic bodies, which
// the CPU pipeline expands after bufferization (convert-complex-to-standard).

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<4xcomplex<f32>>, %[[B:.*]]: tensor<4xcomplex<f32>>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>)
// CHECK: ^bb0(%[[X:.*]]: complex<f32>, %[[Y:.*]]: complex<f32>, %{{.*}}: complex<f32>):
// CHECK: %[[S:.*]] = complex.add %[[X]], %[[Y]] : complex<f32>
// CHECK: linalg.yield %[[S]] : complex<f32>
// CHECK: complex.sub
// CHECK: complex.mul
// CHECK: complex.div
// CHECK: complex.pow
// CHECK-NOT: hlo.
func.func @binary(%a: tensor<4xcomplex<f32>>, %b: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = hlo.add %a, %b : tensor<4xcomplex<f32>>
  %1 = hlo.subtract %0, %b : tensor<4xcomplex<f32>>
  %2 = hlo.multiply %1, %a : tensor<4xcomplex<f32>>
  %3 = hlo.divide %2, %b : tensor<4xcomplex<f32>>
  %4 = hlo.power %3, %a : tensor<4xcomplex<f32>>
  return %4 : tensor<4xcomplex<f32>>
}

// -----

// negate, exp, rsqrt, sign and conj are complex dialect ops.
// CHECK-LABEL: func.func @unary
// CHECK: complex.neg
// CHECK: complex.exp
// CHECK: complex.rsqrt
// CHECK: complex.sign
// CHECK: complex.conj
// CHECK-NOT: hlo.
func.func @unary(%x: tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>> {
  %0 = hlo.negate %x : tensor<4xcomplex<f64>>
  %1 = hlo.exp %0 : tensor<4xcomplex<f64>>
  %2 = hlo.rsqrt %1 : tensor<4xcomplex<f64>>
  %3 = hlo.sign %2 : tensor<4xcomplex<f64>>
  %4 = hlo.conj %3 : tensor<4xcomplex<f64>>
  return %4 : tensor<4xcomplex<f64>>
}

// -----

// The functions whose complex dialect expansions lose small parts are built
// from the parts with real functions: sin(x + iy) = (sin x cosh y,
// cos x sinh y).
// CHECK-LABEL: func.func @sin
// CHECK: ^bb0(%[[Z:.*]]: complex<f32>, %{{.*}}: complex<f32>):
// CHECK-DAG: %[[X:.*]] = complex.re %[[Z]] : complex<f32>
// CHECK-DAG: %[[Y:.*]] = complex.im %[[Z]] : complex<f32>
// CHECK-DAG: %[[SIN:.*]] = math.sin %[[X]] : f32
// CHECK-DAG: %[[COSH:.*]] = math.cosh %[[Y]] : f32
// CHECK-DAG: %[[COS:.*]] = math.cos %[[X]] : f32
// CHECK-DAG: %[[SINH:.*]] = math.sinh %[[Y]] : f32
// CHECK-DAG: %[[RE:.*]] = arith.mulf %[[SIN]], %[[COSH]] : f32
// CHECK-DAG: %[[IM:.*]] = arith.mulf %[[COS]], %[[SINH]] : f32
// CHECK: %[[RE0:.*]] = arith.select %{{.*}}, %[[X]], %[[RE]] : f32
// CHECK: %[[W:.*]] = complex.create %[[RE0]], %[[IM]] : complex<f32>
// CHECK: linalg.yield %[[W]] : complex<f32>
func.func @sin(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = hlo.sin %x : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

// log(z) = (log|z|, atan2(y, x)), with log|z| = log(max) + log1p((min /
// max)^2) / 2, so small parts keep their digits, and log1p(|z|^2 - 1) / 2
// where max is in [0.5, 2], with the squares split in halves by Veltkamp's
// 2^27 + 1, so |z| near 1 keeps them too.
// CHECK-LABEL: func.func @log
// CHECK: ^bb0(%[[Z:.*]]: complex<f64>, %{{.*}}: complex<f64>):
// CHECK-DAG: %[[X:.*]] = complex.re %[[Z]] : complex<f64>
// CHECK-DAG: %[[Y:.*]] = complex.im %[[Z]] : complex<f64>
// CHECK-DAG: %[[ARG:.*]] = math.atan2 %[[Y]], %[[X]] : f64
// CHECK-DAG: arith.maximumf
// CHECK-DAG: arith.minimumf
// CHECK-DAG: arith.constant 0x41A0000002000000 : f64
// CHECK: complex.create %{{.*}}, %[[ARG]] : complex<f64>
// CHECK-NOT: complex.log
func.func @log(%x: tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>> {
  %0 = hlo.log %x : tensor<4xcomplex<f64>>
  return %0 : tensor<4xcomplex<f64>>
}

// -----

// CHECK-LABEL: func.func @from_parts
// CHECK-NOT: complex.{{(log|log1p|expm1|sqrt|sin|cos|tan|tanh) }}
// CHECK: return
func.func @from_parts(%x: tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>> {
  %0 = hlo.log_plus_one %x : tensor<4xcomplex<f64>>
  %1 = hlo.exponential_minus_one %0 : tensor<4xcomplex<f64>>
  %2 = hlo.sqrt %1 : tensor<4xcomplex<f64>>
  %3 = hlo.cos %2 : tensor<4xcomplex<f64>>
  %4 = hlo.tan %3 : tensor<4xcomplex<f64>>
  %5 = hlo.tanh %4 : tensor<4xcomplex<f64>>
  return %5 : tensor<4xcomplex<f64>>
}

// -----

// The parts of complex values, and abs, whose generics read complex and
// write real elements (or the other way round).
// CHECK-LABEL: func.func @parts
// CHECK: linalg.generic
// CHECK: ^bb0(%[[Z:.*]]: complex<f32>, %{{.*}}: f32):
// CHECK: %[[RE:.*]] = complex.re %[[Z]] : complex<f32>
// CHECK: linalg.yield %[[RE]] : f32
// CHECK: complex.im %{{.*}} : complex<f32>
// CHECK: linalg.generic
// CHECK: ^bb0(%[[R:.*]]: f32, %[[I:.*]]: f32, %{{.*}}: complex<f32>):
// CHECK: %[[C:.*]] = complex.create %[[R]], %[[I]] : complex<f32>
// CHECK: linalg.yield %[[C]] : complex<f32>
// CHECK: ^bb0(%[[W:.*]]: complex<f32>, %{{.*}}: f32):
// CHECK: %[[ABS:.*]] = complex.abs %[[W]] : complex<f32>
// CHECK: linalg.yield %[[ABS]] : f32
// CHECK: math.absf %{{.*}} : f32
func.func @parts(%z: tensor<4xcomplex<f32>>, %x: tensor<4xf32>) -> (tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<4xf32>) {
  %0 = hlo.real %z : tensor<4xcomplex<f32>> -> tensor<4xf32>
  %1 = hlo.imag %z : tensor<4xcomplex<f32>> -> tensor<4xf32>
  %2 = hlo.complex %0, %1 : tensor<4xf32> -> tensor<4xcomplex<f32>>
  %3 = hlo.abs %2 : tensor<4xcomplex<f32>> -> tensor<4xf32>
  %4 = hlo.abs %x : tensor<4xf32>
  return %2, %3, %4 : tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @compare_select
// CHECK: ^bb0(%[[X:.*]]: complex<f32>, %[[Y:.*]]: complex<f32>, %{{.*}}: i1):
// CHECK: complex.eq %[[X]], %[[Y]] : complex<f32>
// CHECK: complex.neq %{{.*}}, %{{.*}} : complex<f32>
// CHECK: ^bb0(%[[P:.*]]: i1, %[[T:.*]]: complex<f32>, %[[F:.*]]: complex<f32>, %{{.*}}: complex<f32>):
// CHECK: arith.select %[[P]], %[[T]], %[[F]] : complex<f32>
func.func @compare_select(%a: tensor<4xcomplex<f32>>, %b: tensor<4xcomplex<f32>>) -> (tensor<4xi1>, tensor<4xcomplex<f32>>) {
  %0 = hlo.compare EQ, %a, %b : tensor<4xcomplex<f32>> -> tensor<4xi1>
  %1 = hlo.compare NE, %a, %b : tensor<4xcomplex<f32>> -> tensor<4xi1>
  %2 = hlo.select %1, %a, %b : tensor<4xi1>, tensor<4xcomplex<f32>>
  return %0, %2 : tensor<4xi1>, tensor<4xcomplex<f32>>
}

// -----

// Real to complex is (x, 0); complex to complex converts both parts; complex
// to real converts the real part.
// CHECK-LABEL: func.func @convert
// CHECK: ^bb0(%[[X:.*]]: i32, %{{.*}}: complex<f64>):
// CHECK: %[[F:.*]] = arith.sitofp %[[X]] : i32 to f64
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: complex.create %[[F]], %[[ZERO]] : complex<f64>
// CHECK: ^bb0(%[[Z:.*]]: complex<f64>, %{{.*}}: complex<f32>):
// CHECK: %[[RE:.*]] = complex.re %[[Z]] : complex<f64>
// CHECK: %[[IM:.*]] = complex.im %[[Z]] : complex<f64>
// CHECK: %[[RE32:.*]] = arith.truncf %[[RE]] : f64 to f32
// CHECK: %[[IM32:.*]] = arith.truncf %[[IM]] : f64 to f32
// CHECK: complex.create %[[RE32]], %[[IM32]] : complex<f32>
// CHECK: ^bb0(%[[W:.*]]: complex<f32>, %{{.*}}: i1):
// CHECK: %[[WR:.*]] = complex.re %[[W]] : complex<f32>
// CHECK: arith.cmpf une, %[[WR]]
func.func @convert(%i: tensor<4xi32>) -> (tensor<4xcomplex<f32>>, tensor<4xi1>) {
  %0 = hlo.convert %i : tensor<4xi32> -> tensor<4xcomplex<f64>>
  %1 = hlo.convert %0 : tensor<4xcomplex<f64>> -> tensor<4xcomplex<f32>>
  %2 = hlo.convert %1 : tensor<4xcomplex<f32>> -> tensor<4xi1>
  return %1, %2 : tensor<4xcomplex<f32>>, tensor<4xi1>
}

// -----

// Sums start from (0, 0), products from (1, 0).
// CHECK-LABEL: func.func @reduce
// CHECK: %[[ZERO:.*]] = complex.constant [0.000000e+00 : f32, 0.000000e+00 : f32] : complex<f32>
// CHECK: linalg.fill ins(%[[ZERO]] : complex<f32>)
// CHECK: linalg.reduce
// CHECK: complex.add %{{.*}}, %{{.*}} fastmath<reassoc> : complex<f32>
// CHECK: %[[ONE:.*]] = complex.constant [1.000000e+00 : f32, 0.000000e+00 : f32] : complex<f32>
// CHECK: linalg.fill ins(%[[ONE]] : complex<f32>)
// CHECK: complex.mul %{{.*}}, %{{.*}} fastmath<reassoc> : complex<f32>
func.func @reduce(%x: tensor<4x3xcomplex<f32>>) -> (tensor<4xcomplex<f32>>, tensor<3xcomplex<f32>>) {
  %0 = hlo.reduce sum %x, dims = [1] : tensor<4x3xcomplex<f32>> -> tensor<4xcomplex<f32>>
  %1 = hlo.reduce prod %x, dims = [0] : tensor<4x3xcomplex<f32>> -> tensor<3xcomplex<f32>>
  return %0, %1 : tensor<4xcomplex<f32>>, tensor<3xcomplex<f32>>
}

// -----

// A complex matrix product is a generic (never linalg.matmul) that
// accumulates products without conjugation into a zero-filled init.
// CHECK-LABEL: func.func @dot
// CHECK: %[[ZERO:.*]] = complex.constant [0.000000e+00, 0.000000e+00] : complex<f64>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : complex<f64>)
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: outs(%[[INIT]] : tensor<2x4xcomplex<f64>>)
// CHECK: ^bb0(%[[X:.*]]: complex<f64>, %[[Y:.*]]: complex<f64>, %[[ACC:.*]]: complex<f64>):
// CHECK: %[[P:.*]] = complex.mul %[[X]], %[[Y]] : complex<f64>
// CHECK: %[[S:.*]] = complex.add %[[ACC]], %[[P]] : complex<f64>
// CHECK: linalg.yield %[[S]] : complex<f64>
func.func @dot(%a: tensor<2x3xcomplex<f64>>, %b: tensor<3x4xcomplex<f64>>) -> tensor<2x4xcomplex<f64>> {
  %0 = hlo.dot_general %a, %b, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<2x3xcomplex<f64>>, tensor<3x4xcomplex<f64>> -> tensor<2x4xcomplex<f64>>
  return %0 : tensor<2x4xcomplex<f64>>
}

// -----

// Complex constants stay dense constants.
// CHECK-LABEL: func.func @constant
// CHECK: arith.constant dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,-4.000000e+00)]> : tensor<2xcomplex<f32>>
func.func @constant() -> tensor<2xcomplex<f32>> {
  %0 = hlo.constant dense<[(1.0,2.0), (3.0,-4.0)]> : tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}

// -----

// asin(z) = (atan2(x, re w), +-im w by y's sign), w from Hull et al.'s
// regions on |x| and |y|: sqrt(max) / 8 and 4 sqrt(min normal) bound them.
// CHECK-LABEL: func.func @asin
// CHECK: ^bb0(%[[Z:.*]]: complex<f32>, %{{.*}}: complex<f32>):
// CHECK-DAG: %[[X:.*]] = complex.re %[[Z]] : complex<f32>
// CHECK-DAG: %[[Y:.*]] = complex.im %[[Z]] : complex<f32>
// CHECK-DAG: arith.constant 2.30584287E+18 : f32
// CHECK-DAG: arith.constant 4.33680869E-19 : f32
// CHECK: %[[RE:.*]] = math.atan2 %[[X]], %{{.*}} : f32
// CHECK: %[[LOWER:.*]] = arith.cmpf olt, %[[Y]], %{{.*}} : f32
// CHECK: %[[IM:.*]] = arith.select %[[LOWER]], %{{.*}}, %{{.*}} : f32
// CHECK: %[[W:.*]] = complex.create %[[RE]], %[[IM]] : complex<f32>
// CHECK: linalg.yield %[[W]] : complex<f32>
// CHECK-NOT: hlo.
func.func @asin(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = hlo.asin %x : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

// acos and acosh share asin's kernel; acos's real part is atan2(re w, x).
// CHECK-LABEL: func.func @acos_acosh
// CHECK: ^bb0(%[[Z:.*]]: complex<f64>, %{{.*}}: complex<f64>):
// CHECK-DAG: %[[X:.*]] = complex.re %[[Z]] : complex<f64>
// CHECK: %[[RE:.*]] = math.atan2 %{{.*}}, %[[X]] : f64
// CHECK: complex.create %[[RE]], %{{.*}} : complex<f64>
// CHECK: linalg.generic
// CHECK: %[[ANGLE:.*]] = math.atan2 %{{.*}}, %{{.*}} : f64
// CHECK: %[[NEG:.*]] = arith.negf %[[ANGLE]] : f64
// CHECK: %[[IM:.*]] = arith.select %{{.*}}, %[[NEG]], %[[ANGLE]] : f64
// CHECK: complex.create %{{.*}}, %[[IM]] : complex<f64>
// CHECK-NOT: hlo.
func.func @acos_acosh(%x: tensor<4xcomplex<f64>>) -> (tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>) {
  %0 = hlo.acos %x : tensor<4xcomplex<f64>>
  %1 = hlo.acosh %x : tensor<4xcomplex<f64>>
  return %0, %1 : tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>
}

// -----

// asinh(z) = -i asin(iz): the kernel on (|y|, |x|), the real part's sign
// from x, the imaginary part atan2(y, re w).
// CHECK-LABEL: func.func @asinh
// CHECK: ^bb0(%[[Z:.*]]: complex<f32>, %{{.*}}: complex<f32>):
// CHECK-DAG: %[[X:.*]] = complex.re %[[Z]] : complex<f32>
// CHECK-DAG: %[[Y:.*]] = complex.im %[[Z]] : complex<f32>
// CHECK: %[[LEFT:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : f32
// CHECK: %[[RE:.*]] = arith.select %[[LEFT]], %{{.*}}, %{{.*}} : f32
// CHECK: %[[IM:.*]] = math.atan2 %[[Y]], %{{.*}} : f32
// CHECK: complex.create %[[RE]], %[[IM]] : complex<f32>
// CHECK-NOT: hlo.
func.func @asinh(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = hlo.asinh %x : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

// atanh(z) = (log1p(4|x| / ((1 - |x|)^2 + y^2)) / 4 with x's sign,
// atan2(2y, (1 - |x|)(1 + |x|) - y^2) / 2), +-pi / 2 beyond 2^106 in f64;
// atan(z) = -i atanh(iz).
// CHECK-LABEL: func.func @atanh_atan
// CHECK: ^bb0(%[[Z:.*]]: complex<f64>, %{{.*}}: complex<f64>):
// CHECK-DAG: %[[Y:.*]] = complex.im %[[Z]] : complex<f64>
// CHECK-DAG: arith.constant 8.1129638414606681E+31 : f64
// CHECK-DAG: %[[TWOY:.*]] = arith.addf %[[Y]], %[[Y]] : f64
// CHECK-DAG: math.atan2 %[[TWOY]], %{{.*}} : f64
// CHECK-DAG: arith.constant 3.1415926535897931 : f64
// CHECK: complex.create
// CHECK: linalg.generic
// CHECK: math.atan2
// CHECK: %[[NEGU:.*]] = arith.negf %{{.*}} : f64
// CHECK: complex.create %{{.*}}, %[[NEGU]] : complex<f64>
// CHECK-NOT: hlo.
func.func @atanh_atan(%x: tensor<4xcomplex<f64>>) -> (tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>) {
  %0 = hlo.atanh %x : tensor<4xcomplex<f64>>
  %1 = hlo.atan %x : tensor<4xcomplex<f64>>
  return %0, %1 : tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>
}

// -----

// sinh(z) = (sinh x cos y, cosh x sin y); from |x| = 700 on, e^|x| / 2
// as (e^(|x|/2) / 2) e^(|x|/2) so the parts overflow only where the result
// does. cosh is the same with the parts' roles swapped.
// CHECK-LABEL: func.func @sinh_cosh
// CHECK: ^bb0(%[[Z:.*]]: complex<f64>, %{{.*}}: complex<f64>):
// CHECK-DAG: %[[X:.*]] = complex.re %[[Z]] : complex<f64>
// CHECK-DAG: %[[Y:.*]] = complex.im %[[Z]] : complex<f64>
// CHECK-DAG: %[[COS:.*]] = math.cos %[[Y]] : f64
// CHECK-DAG: %[[SIN:.*]] = math.sin %[[Y]] : f64
// CHECK-DAG: %[[SINH:.*]] = math.sinh %[[X]] : f64
// CHECK-DAG: %[[COSH:.*]] = math.cosh %[[X]] : f64
// CHECK-DAG: arith.mulf %[[SINH]], %[[COS]] : f64
// CHECK-DAG: arith.mulf %[[COSH]], %[[SIN]] : f64
// CHECK-DAG: arith.constant 7.000000e+02 : f64
// CHECK-DAG: math.exp
// CHECK: complex.create
// CHECK: linalg.generic
// CHECK-DAG: math.cosh
// CHECK-DAG: math.sinh
// CHECK: complex.create
// CHECK-NOT: hlo.
func.func @sinh_cosh(%x: tensor<4xcomplex<f64>>) -> (tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>) {
  %0 = hlo.sinh %x : tensor<4xcomplex<f64>>
  %1 = hlo.cosh %x : tensor<4xcomplex<f64>>
  return %0, %1 : tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>
}

// -----

// logistic(z) = 1 / (1 + exp(-z)) in complex arithmetic.
// CHECK-LABEL: func.func @logistic
// CHECK: ^bb0(%[[Z:.*]]: complex<f32>, %{{.*}}: complex<f32>):
// CHECK-DAG: %[[ONE:.*]] = complex.constant [1.000000e+00 : f32, 0.000000e+00 : f32] : complex<f32>
// CHECK-DAG: %[[NEG:.*]] = complex.neg %[[Z]] : complex<f32>
// CHECK: %[[E:.*]] = complex.exp %[[NEG]] : complex<f32>
// CHECK: %[[D:.*]] = complex.add %[[ONE]], %[[E]] : complex<f32>
// CHECK: %[[R:.*]] = complex.div %[[ONE]], %[[D]] : complex<f32>
// CHECK: linalg.yield %[[R]] : complex<f32>
func.func @logistic(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = hlo.logistic %x : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}
