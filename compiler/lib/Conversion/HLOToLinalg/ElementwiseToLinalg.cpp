//===- ElementwiseToLinalg.cpp - unary and binary arithmetic to linalg ----===//
//
// Each op becomes one parallel linalg.generic whose body is the scalar
// computation below. Integer division and remainder are guarded so that no
// input reaches arith's undefined cases (x / 0, INT_MIN / -1), which trap
// on x86; the guarded results follow XLA. Complex operands become complex
// dialect ops, which convert-complex-to-standard expands after bufferization,
// except the functions that expansion computes inaccurately or not at all,
// which ComplexFunctions.cpp builds from the parts.
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"
#include "ScalarMath.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

using namespace mlir;
using namespace numlir::hlo_to_linalg;
namespace hlo = numlir::hlo;

namespace {

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

Value lower(hlo::NegateOp, Scalar &s, ValueRange a) {
  if (s.isComplex())
    return complex::NegOp::create(s.b, s.loc, a[0]);
  if (s.isFloat())
    return arith::NegFOp::create(s.b, s.loc, a[0]);
  return arith::SubIOp::create(s.b, s.loc, s.i(0), a[0]);
}

/// The modulus of a complex value is its real result.
Value lower(hlo::AbsOp, Scalar &s, ValueRange a) {
  if (s.isComplex())
    return complex::AbsOp::create(s.b, s.loc, a[0]);
  if (s.isFloat())
    return math::AbsFOp::create(s.b, s.loc, a[0]);
  if (s.isUnsigned())
    return a[0];
  return math::AbsIOp::create(s.b, s.loc, a[0]);
}

/// Floats: -1, +1, or x itself for NaN and both zeros (so -0.0 stays -0.0
/// and NaN stays NaN). Signed: (x > 0) - (x < 0). Unsigned: x != 0.
/// Complex: z / |z|, and z itself for 0.
Value lower(hlo::SignOp, Scalar &s, ValueRange a) {
  Value x = a[0];
  if (s.isComplex())
    return complex::SignOp::create(s.b, s.loc, x);
  if (s.isFloat()) {
    Value zero = s.f(0.0);
    Value negative = s.select(s.cmp(arith::CmpFPredicate::OLT, x, zero),
                              s.f(-1.0), x);
    return s.select(s.cmp(arith::CmpFPredicate::OGT, x, zero), s.f(1.0),
                    negative);
  }
  auto extend = [&](Value bit) {
    return arith::ExtUIOp::create(s.b, s.loc, s.type, bit);
  };
  Value zero = s.i(0);
  if (s.isUnsigned())
    return extend(s.cmp(arith::CmpIPredicate::ne, x, zero));
  Value positive = extend(s.cmp(arith::CmpIPredicate::sgt, x, zero));
  Value negative = extend(s.cmp(arith::CmpIPredicate::slt, x, zero));
  return arith::SubIOp::create(s.b, s.loc, positive, negative);
}

template <typename MathOp>
Value lowerMath(Scalar &s, ValueRange a) {
  return MathOp::create(s.b, s.loc, a[0]);
}
/// The math op on floats, the complex op on complex values.
template <typename MathOp, typename ComplexOp>
Value lowerMath(Scalar &s, ValueRange a) {
  if (s.isComplex())
    return ComplexOp::create(s.b, s.loc, a[0]);
  return MathOp::create(s.b, s.loc, a[0]);
}
Value lower(hlo::ExpOp, Scalar &s, ValueRange a) {
  return lowerMath<math::ExpOp, complex::ExpOp>(s, a);
}
Value lower(hlo::LogOp, Scalar &s, ValueRange a) {
  if (s.isComplex())
    return complexLog(s, a[0]);
  return lowerMath<math::LogOp>(s, a);
}
Value lower(hlo::TanhOp, Scalar &s, ValueRange a) {
  if (s.isComplex())
    return complexTanh(s, a[0]);
  return lowerMath<math::TanhOp>(s, a);
}
Value lower(hlo::SqrtOp, Scalar &s, ValueRange a) {
  if (s.isComplex())
    return complexSqrt(s, a[0]);
  return lowerMath<math::SqrtOp>(s, a);
}
Value lower(hlo::RsqrtOp, Scalar &s, ValueRange a) {
  return lowerMath<math::RsqrtOp, complex::RsqrtOp>(s, a);
}
Value lower(hlo::SinOp, Scalar &s, ValueRange a) {
  if (s.isComplex())
    return complexSin(s, a[0]);
  return lowerMath<math::SinOp>(s, a);
}
Value lower(hlo::CosOp, Scalar &s, ValueRange a) {
  if (s.isComplex())
    return complexCos(s, a[0]);
  return lowerMath<math::CosOp>(s, a);
}
Value lower(hlo::FloorOp, Scalar &s, ValueRange a) {
  return lowerMath<math::FloorOp>(s, a);
}
Value lower(hlo::CeilOp, Scalar &s, ValueRange a) {
  return lowerMath<math::CeilOp>(s, a);
}

/// With e = exp(-|x|), which never overflows: 1 / (1 + e) for x >= 0 and
/// e / (1 + e) for x < 0, so neither tail loses precision or makes NaN.
/// Complex: 1 / (1 + exp(-z)) (complexLogistic).
Value lower(hlo::LogisticOp, Scalar &s, ValueRange a) {
  if (s.isComplex())
    return complexLogistic(s, a[0]);
  Value x = a[0];
  Value absX = math::AbsFOp::create(s.b, s.loc, x);
  Value e = math::ExpOp::create(s.b, s.loc,
                                arith::NegFOp::create(s.b, s.loc, absX));
  Value one = s.f(1.0);
  Value denominator = arith::AddFOp::create(s.b, s.loc, one, e);
  Value numerator = s.select(s.cmp(arith::CmpFPredicate::OGE, x, s.f(0.0)),
                             one, e);
  return arith::DivFOp::create(s.b, s.loc, numerator, denominator);
}

Value lower(hlo::NotOp, Scalar &s, ValueRange a) {
  return arith::XOrIOp::create(s.b, s.loc, a[0], s.i(-1));
}

//===----------------------------------------------------------------------===//
// Complex parts
//===----------------------------------------------------------------------===//

Value lower(hlo::ConjOp, Scalar &s, ValueRange a) {
  return complex::ConjOp::create(s.b, s.loc, a[0]);
}
Value lower(hlo::RealOp, Scalar &s, ValueRange a) {
  return complex::ReOp::create(s.b, s.loc, a[0]);
}
Value lower(hlo::ImagOp, Scalar &s, ValueRange a) {
  return complex::ImOp::create(s.b, s.loc, a[0]);
}
Value lower(hlo::ComplexOp, Scalar &s, ValueRange a) {
  return complex::CreateOp::create(s.b, s.loc, ComplexType::get(s.type), a[0],
                                   a[1]);
}

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

template <typename FloatOp, typename IntOp, typename ComplexOp>
Value lowerArith(Scalar &s, ValueRange a) {
  if (s.isComplex())
    return ComplexOp::create(s.b, s.loc, a[0], a[1]);
  if (s.isFloat())
    return FloatOp::create(s.b, s.loc, a[0], a[1]);
  return IntOp::create(s.b, s.loc, a[0], a[1]);
}
Value lower(hlo::AddOp, Scalar &s, ValueRange a) {
  return lowerArith<arith::AddFOp, arith::AddIOp, complex::AddOp>(s, a);
}
Value lower(hlo::SubtractOp, Scalar &s, ValueRange a) {
  return lowerArith<arith::SubFOp, arith::SubIOp, complex::SubOp>(s, a);
}
Value lower(hlo::MultiplyOp, Scalar &s, ValueRange a) {
  return lowerArith<arith::MulFOp, arith::MulIOp, complex::MulOp>(s, a);
}
Value lower(hlo::AndOp, Scalar &s, ValueRange a) {
  return arith::AndIOp::create(s.b, s.loc, a[0], a[1]);
}
Value lower(hlo::OrOp, Scalar &s, ValueRange a) {
  return arith::OrIOp::create(s.b, s.loc, a[0], a[1]);
}
Value lower(hlo::XorOp, Scalar &s, ValueRange a) {
  return arith::XOrIOp::create(s.b, s.loc, a[0], a[1]);
}

/// The divisor to use instead of `rhs` so that arith's division is defined:
/// 1 where rhs is 0 or (signed) where lhs / rhs is INT_MIN / -1. Sets
/// `isZero` to `rhs == 0`.
Value safeDivisor(Scalar &s, Value lhs, Value rhs, Value &isZero) {
  isZero = s.cmp(arith::CmpIPredicate::eq, rhs, s.i(0));
  Value replace = isZero;
  if (!s.isUnsigned()) {
    Value lhsIsMin = s.cmp(arith::CmpIPredicate::eq, lhs,
                           s.i(APInt::getSignedMinValue(s.width())));
    Value rhsIsMinusOne = s.cmp(arith::CmpIPredicate::eq, rhs, s.i(-1));
    Value overflow = arith::AndIOp::create(s.b, s.loc, lhsIsMin, rhsIsMinusOne);
    replace = arith::OrIOp::create(s.b, s.loc, isZero, overflow);
  }
  return s.select(replace, s.i(1), rhs);
}

/// x / 0 is all ones (-1 signed, UINT_MAX unsigned); INT_MIN / -1 is
/// INT_MIN, which dividing by the substituted 1 gives.
Value lower(hlo::DivideOp, Scalar &s, ValueRange a) {
  if (s.isComplex())
    return complex::DivOp::create(s.b, s.loc, a[0], a[1]);
  if (s.isFloat())
    return arith::DivFOp::create(s.b, s.loc, a[0], a[1]);
  Value isZero;
  Value divisor = safeDivisor(s, a[0], a[1], isZero);
  Value quotient =
      s.isUnsigned()
          ? Value(arith::DivUIOp::create(s.b, s.loc, a[0], divisor))
          : Value(arith::DivSIOp::create(s.b, s.loc, a[0], divisor));
  return s.select(isZero, s.i(-1), quotient);
}

/// Float: C fmod. Integer: x % 0 is x; INT_MIN % -1 is 0, which the
/// substituted divisor 1 gives.
Value lower(hlo::RemainderOp, Scalar &s, ValueRange a) {
  if (s.isFloat())
    return arith::RemFOp::create(s.b, s.loc, a[0], a[1]);
  Value isZero;
  Value divisor = safeDivisor(s, a[0], a[1], isZero);
  Value remainder =
      s.isUnsigned()
          ? Value(arith::RemUIOp::create(s.b, s.loc, a[0], divisor))
          : Value(arith::RemSIOp::create(s.b, s.loc, a[0], divisor));
  return s.select(isZero, a[0], remainder);
}

/// Floats propagate NaN; i1 max is `or`, min is `and`.
template <typename FloatOp, typename SignedOp, typename UnsignedOp,
          typename BoolOp>
Value lowerMinMax(Scalar &s, ValueRange a) {
  if (s.isFloat())
    return FloatOp::create(s.b, s.loc, a[0], a[1]);
  if (s.isBool())
    return BoolOp::create(s.b, s.loc, a[0], a[1]);
  if (s.isUnsigned())
    return UnsignedOp::create(s.b, s.loc, a[0], a[1]);
  return SignedOp::create(s.b, s.loc, a[0], a[1]);
}
Value lower(hlo::MaximumOp, Scalar &s, ValueRange a) {
  return lowerMinMax<arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp,
                     arith::OrIOp>(s, a);
}
Value lower(hlo::MinimumOp, Scalar &s, ValueRange a) {
  return lowerMinMax<arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp,
                     arith::AndIOp>(s, a);
}

/// Complex: complex.pow. Floats: math.powf. Integers: math.ipowi (wrapping), only ever called
/// with a non-negative exponent. Signed negative exponents give 1 for base
/// 1, +-1 for base -1 and 0 otherwise (XLA's rule). Unsigned exponents
/// with the top bit set are split as b^(2^(N-1)) * b^rest, where
/// b^(2^(N-1)) mod 2^N is 1 for odd b and 0 for even b (N >= 8).
Value lower(hlo::PowerOp, Scalar &s, ValueRange a) {
  Value base = a[0], exponent = a[1];
  if (s.isComplex())
    return complex::PowOp::create(s.b, s.loc, base, exponent);
  if (s.isFloat())
    return math::PowFOp::create(s.b, s.loc, base, exponent);
  Value zero = s.i(0), one = s.i(1);
  Value topBitSet = s.cmp(arith::CmpIPredicate::slt, exponent, zero);
  Value lowBits = arith::AndIOp::create(
      s.b, s.loc, exponent, s.i(APInt::getSignedMaxValue(s.width())));
  Value power = math::IPowIOp::create(s.b, s.loc, s.type, base, lowBits);
  auto isOdd = [&](Value v) {
    return s.cmp(arith::CmpIPredicate::ne,
                 arith::AndIOp::create(s.b, s.loc, v, one), zero);
  };
  Value special;
  if (s.isUnsigned()) {
    special = s.select(isOdd(base), power, zero);
  } else {
    Value baseIsOne = s.cmp(arith::CmpIPredicate::eq, base, one);
    Value baseIsMinusOne = s.cmp(arith::CmpIPredicate::eq, base, s.i(-1));
    Value minusOnePower = s.select(isOdd(exponent), s.i(-1), one);
    special = s.select(baseIsOne, one,
                       s.select(baseIsMinusOne, minusOnePower, zero));
  }
  return s.select(topBitSet, special, power);
}

//===----------------------------------------------------------------------===//
// Integer bit ops
//===----------------------------------------------------------------------===//

/// The shift amount is unsigned; amounts of at least the bit width are
/// replaced so that arith never sees a poison shift.
Value isWideShift(Scalar &s, Value amount) {
  return s.cmp(arith::CmpIPredicate::uge, amount, s.i(s.width()));
}
Value lower(hlo::ShiftLeftOp, Scalar &s, ValueRange a) {
  Value wide = isWideShift(s, a[1]);
  Value shifted = arith::ShLIOp::create(s.b, s.loc, a[0],
                                        s.select(wide, s.i(0), a[1]));
  return s.select(wide, s.i(0), shifted);
}
Value lower(hlo::ShiftRightLogicalOp, Scalar &s, ValueRange a) {
  Value wide = isWideShift(s, a[1]);
  Value shifted = arith::ShRUIOp::create(s.b, s.loc, a[0],
                                         s.select(wide, s.i(0), a[1]));
  return s.select(wide, s.i(0), shifted);
}
/// Shifting by width - 1 already fills every bit with the sign.
Value lower(hlo::ShiftRightArithmeticOp, Scalar &s, ValueRange a) {
  Value amount =
      s.select(isWideShift(s, a[1]), s.i(s.width() - 1), a[1]);
  return arith::ShRSIOp::create(s.b, s.loc, a[0], amount);
}
Value lower(hlo::PopcntOp, Scalar &s, ValueRange a) {
  return math::CtPopOp::create(s.b, s.loc, a[0]);
}
Value lower(hlo::CountLeadingZerosOp, Scalar &s, ValueRange a) {
  return math::CountLeadingZerosOp::create(s.b, s.loc, a[0]);
}

//===----------------------------------------------------------------------===//
// More float math. f16 and bf16 compute in f32 (`inF32`); lgamma and
// digamma compute in f64 for every type.
//===----------------------------------------------------------------------===//

using FloatBodyFn = function_ref<Value(Scalar &, ValueRange)>;

/// Runs `body` on the operands extended to `wide` (when narrower) and
/// truncates the result back.
Value computeIn(Scalar &s, FloatType wide, ValueRange a, FloatBodyFn body) {
  if (s.width() >= wide.getWidth())
    return body(s, a);
  SmallVector<Value> extended;
  for (Value v : a)
    extended.push_back(arith::ExtFOp::create(s.b, s.loc, wide, v));
  Scalar ws{s.b, s.loc, wide, wide};
  Value result = body(ws, extended);
  return arith::TruncFOp::create(s.b, s.loc, s.type, result);
}
Value inF32(Scalar &s, ValueRange a, FloatBodyFn body) {
  return computeIn(s, s.b.getF32Type(), a, body);
}

template <typename MathOp>
Value mathInF32(Scalar &s, ValueRange a) {
  return inF32(s, a, [](Scalar &w, ValueRange v) -> Value {
    if constexpr (MathOp::template hasTrait<OpTrait::NOperands<2>::Impl>())
      return MathOp::create(w.b, w.loc, v[0], v[1]);
    else
      return MathOp::create(w.b, w.loc, v[0]);
  });
}

Value lower(hlo::TanOp, Scalar &s, ValueRange a) {
  if (s.isComplex())
    return complexTan(s, a[0]);
  return mathInF32<math::TanOp>(s, a);
}
/// The libm function on floats (in f32 for f16 and bf16), the complex
/// function from the parts (ComplexFunctions.cpp) on complex values.
template <typename MathOp>
Value mathInF32OrComplex(Scalar &s, ValueRange a,
                         Value (*complexFn)(Scalar &, Value)) {
  if (s.isComplex())
    return complexFn(s, a[0]);
  return mathInF32<MathOp>(s, a);
}
Value lower(hlo::AsinOp, Scalar &s, ValueRange a) {
  return mathInF32OrComplex<math::AsinOp>(s, a, complexAsin);
}
Value lower(hlo::AcosOp, Scalar &s, ValueRange a) {
  return mathInF32OrComplex<math::AcosOp>(s, a, complexAcos);
}
Value lower(hlo::AtanOp, Scalar &s, ValueRange a) {
  return mathInF32OrComplex<math::AtanOp>(s, a, complexAtan);
}
Value lower(hlo::SinhOp, Scalar &s, ValueRange a) {
  return mathInF32OrComplex<math::SinhOp>(s, a, complexSinh);
}
Value lower(hlo::CoshOp, Scalar &s, ValueRange a) {
  return mathInF32OrComplex<math::CoshOp>(s, a, complexCosh);
}
Value lower(hlo::AsinhOp, Scalar &s, ValueRange a) {
  return mathInF32OrComplex<math::AsinhOp>(s, a, complexAsinh);
}
Value lower(hlo::AcoshOp, Scalar &s, ValueRange a) {
  return mathInF32OrComplex<math::AcoshOp>(s, a, complexAcosh);
}
Value lower(hlo::AtanhOp, Scalar &s, ValueRange a) {
  return mathInF32OrComplex<math::AtanhOp>(s, a, complexAtanh);
}
Value lower(hlo::ErfOp, Scalar &s, ValueRange a) {
  return mathInF32<math::ErfOp>(s, a);
}
Value lower(hlo::CbrtOp, Scalar &s, ValueRange a) {
  return mathInF32<math::CbrtOp>(s, a);
}
Value lower(hlo::RoundNearestEvenOp, Scalar &s, ValueRange a) {
  return mathInF32<math::RoundEvenOp>(s, a);
}
Value lower(hlo::RoundNearestAfzOp, Scalar &s, ValueRange a) {
  return mathInF32<math::RoundOp>(s, a);
}
Value lower(hlo::Atan2Op, Scalar &s, ValueRange a) {
  return mathInF32<math::Atan2Op>(s, a);
}


/// FloatMath::log1p, in f32 for f16 and bf16.
Value lower(hlo::LogPlusOneOp, Scalar &s, ValueRange a) {
  if (s.isComplex())
    return complexLog1p(s, a[0]);
  return inF32(s, a, [](Scalar &w, ValueRange v) {
    FloatMath m{w};
    return m.log1p(v[0]);
  });
}

/// FloatMath::expm1, in f32 for f16 and bf16.
Value lower(hlo::ExponentialMinusOneOp, Scalar &s, ValueRange a) {
  if (s.isComplex())
    return complexExpm1(s, a[0]);
  return inF32(s, a, [](Scalar &w, ValueRange v) {
    FloatMath m{w};
    return m.expm1(v[0]);
  });
}

/// Giles' single-precision approximation of erfinv ("Approximating the
/// erfinv function", GPU Computing Gems, 2011).
Value erfInvGiles(FloatMath &m, Value x) {
  // w = -log1p(-x^2) (as XLA computes it; -log((1-x)(1+x)) rounds
  // differently), with Goldberg's log1p: log(u) * t / (u - 1), u = 1 + t.
  Value t = m.neg(m.mul(x, x));
  Value u = m.add(m.c(1.0), t);
  Value log1p = m.s.select(m.eq(u, m.c(1.0)), t,
                           m.mul(m.log(u), m.div(t, m.sub(u, m.c(1.0)))));
  Value w = m.neg(log1p);
  Value small = m.poly(m.sub(w, m.c(2.5)),
                       {2.81022636e-08, 3.43273939e-07, -3.5233877e-06,
                        -4.39150654e-06, 0.00021858087, -0.00125372503,
                        -0.00417768164, 0.246640727, 1.50140941});
  Value large = m.poly(m.sub(m.sqrt(w), m.c(3.0)),
                       {-0.000200214257, 0.000100950558, 0.00134934322,
                        -0.00367342844, 0.00573950773, -0.0076224613,
                        0.00943887047, 1.00167406, 2.83297682});
  return m.mul(m.s.select(m.lt(w, m.c(5.0)), small, large), x);
}

/// f32 and narrower: Giles' approximation. f64: Giles' value refined by
/// Newton steps on erf(y) = x, using erfc(|y|) = 1 - |x| (exact for
/// |x| >= 0.5) in the tails so the residual keeps its precision.
/// erf_inv(+-1) = +-inf, NaN outside [-1, 1].
Value lower(hlo::ErfInvOp, Scalar &s, ValueRange a) {
  return inF32(s, a, [](Scalar &w, ValueRange v) {
    FloatMath m{w};
    Value x = v[0];
    Value y = erfInvGiles(m, x);
    if (w.width() == 64) {
      Value ax = m.abs(x);
      Value tail = m.s.cmp(arith::CmpFPredicate::OGE, ax, m.c(0.5));
      Value oneMinusAx = m.sub(m.c(1.0), ax);
      Value ay = m.abs(y);
      for (int step = 0; step < 3; ++step) {
        // Residual of |y|: erf(|y|) - |x|, or -(erfc(|y|) - (1 - |x|)).
        Value viaErf = m.sub(math::ErfOp::create(w.b, w.loc, ay), ax);
        Value viaErfc = m.neg(
            m.sub(math::ErfcOp::create(w.b, w.loc, ay), oneMinusAx));
        Value residual = w.select(tail, viaErfc, viaErf);
        Value slope =
            m.mul(m.c(1.1283791670955126), m.exp(m.neg(m.mul(ay, ay))));
        Value next = m.sub(ay, m.div(residual, slope));
        // Keep Giles' value where the step is not finite (|x| near 1).
        Value finite = m.s.cmp(arith::CmpFPredicate::OLT, m.abs(next),
                               m.c(INFINITY));
        ay = w.select(finite, next, ay);
      }
      y = math::CopySignOp::create(w.b, w.loc, ay, x);
    }
    Value atOne = m.eq(m.abs(x), m.c(1.0));
    return w.select(atOne, m.mul(x, m.c(INFINITY)), y);
  });
}

Value isIntegral(FloatMath &m, Value x) { return m.eq(m.floor(x), x); }

/// x - round(x), in [-1/2, 1/2]: exact (Sterbenz), and x itself for |x| < 1/2.
Value nearestIntegerOffset(FloatMath &m, Value x) {
  return m.sub(x, m.op<math::RoundEvenOp>(x));
}

/// Stirling's series at y = x + 10 (or x itself once x >= 10), shifted
/// back with lgamma(x) = lgamma(x + 10) - log(x (x + 1) ... (x + 9)), for
/// x >= 0.5; reflection lgamma(x) = log(pi) - log|sin(pi x)| -
/// lgamma(1 - x) below. +inf at non-positive integers and +-inf. In f64.
Value lower(hlo::LgammaOp, Scalar &s, ValueRange a) {
  return computeIn(s, s.b.getF64Type(), a, [](Scalar &w, ValueRange v) {
    FloatMath m{w};
    Value x = v[0];
    Value reflect = m.lt(x, m.c(0.5));
    Value z = w.select(reflect, m.sub(m.c(1.0), x), x);
    Value small = m.lt(z, m.c(10.0));
    Value product = z;
    for (int k = 1; k < 10; ++k)
      product = m.mul(product, m.add(z, m.c(k)));
    Value y = w.select(small, m.add(z, m.c(10.0)), z);
    Value inv = m.div(m.c(1.0), y);
    Value inv2 = m.mul(inv, inv);
    // sum B_2k / (2k (2k - 1) y^(2k - 1)), k = 1..7.
    Value series = m.mul(
        inv, m.poly(inv2, {1.0 / 156.0, -691.0 / 360360.0, 1.0 / 1188.0,
                           -1.0 / 1680.0, 1.0 / 1260.0, -1.0 / 360.0,
                           1.0 / 12.0}));
    Value stirling = m.add(
        m.add(m.sub(m.mul(m.sub(y, m.c(0.5)), m.log(y)), y),
              m.c(0.91893853320467274)), // log(2 pi) / 2
        series);
    Value positive =
        w.select(small, m.sub(stirling, m.log(product)), stirling);
    // lgamma(1) = lgamma(2) = 0 exactly, not the rounding of the sums above.
    positive = w.select(m.either(m.eq(x, m.c(1.0)), m.eq(x, m.c(2.0))), m.c(0.0),
                        positive);
    // |sin(pi x)| = |sin(pi r)| with r = x - round(x) in [-1/2, 1/2], exact
    // (x - floor(x) rounds to 1 for tiny negative x, and loses the distance to
    // a pole just below an integer).
    Value fraction = nearestIntegerOffset(m, x);
    Value sinPiX = m.abs(math::SinOp::create(
        w.b, w.loc, m.mul(m.c(3.14159265358979323846), fraction)));
    Value reflected = m.sub(m.sub(m.c(1.1447298858494002), m.log(sinPiX)),
                            positive); // log(pi) - ...
    Value result = w.select(reflect, reflected, positive);
    Value inf = m.c(INFINITY);
    Value pole = m.s.cmp(arith::CmpFPredicate::OLE, x, m.c(0.0));
    pole = arith::AndIOp::create(w.b, w.loc, pole, isIntegral(m, x));
    Value infinite = m.eq(m.abs(x), inf);
    result = w.select(pole, inf, result);
    return w.select(infinite, inf, result);
  });
}

/// Reflection digamma(x) = digamma(1 - x) - pi / tan(pi x) for x < 0.5,
/// then digamma(y) = digamma(y + 10) - sum 1/(y + k), then the asymptotic
/// series at y + 10 >= 10. NaN at non-positive integers and -inf. In f64.
Value lower(hlo::DigammaOp, Scalar &s, ValueRange a) {
  return computeIn(s, s.b.getF64Type(), a, [](Scalar &w, ValueRange v) {
    FloatMath m{w};
    Value x = v[0];
    Value reflect = m.lt(x, m.c(0.5));
    Value y = w.select(reflect, m.sub(m.c(1.0), x), x);
    Value shift = m.c(0.0);
    for (int k = 0; k < 10; ++k)
      shift = m.add(shift, m.div(m.c(1.0), m.add(y, m.c(k))));
    Value big = m.add(y, m.c(10.0));
    Value inv = m.div(m.c(1.0), big);
    Value inv2 = m.mul(inv, inv);
    // log(y) - 1/(2y) - sum B_2k / (2k y^2k), k = 1..6.
    Value series = m.mul(
        inv2, m.poly(inv2, {-691.0 / 32760.0, 1.0 / 132.0, -1.0 / 240.0,
                            1.0 / 252.0, -1.0 / 120.0, 1.0 / 12.0}));
    Value asymptotic =
        m.sub(m.sub(m.log(big), m.mul(m.c(0.5), inv)), series);
    Value result = m.sub(asymptotic, shift);
    // tan(pi x) = tan(pi r), r = x - round(x) exact (as in lgamma).
    Value fraction = nearestIntegerOffset(m, x);
    Value tanPiX = math::TanOp::create(
        w.b, w.loc, m.mul(m.c(3.14159265358979323846), fraction));
    Value reflected =
        m.sub(result, m.div(m.c(3.14159265358979323846), tanPiX));
    result = w.select(reflect, reflected, result);
    Value pole = m.s.cmp(arith::CmpFPredicate::OLE, x, m.c(0.0));
    pole = arith::AndIOp::create(w.b, w.loc, pole, isIntegral(m, x));
    return w.select(pole, m.c(NAN), result);
  });
}

/// Bit arithmetic on the integer image: NaN if either is NaN, `rhs` if
/// equal, the smallest subnormal with `rhs`'s sign from zero, else one ulp
/// up or down in magnitude.
Value lower(hlo::NextAfterOp, Scalar &s, ValueRange a) {
  Value x = a[0], y = a[1];
  Type intType = s.b.getIntegerType(s.width());
  Scalar is{s.b, s.loc, intType, intType};
  auto bits = [&](Value v) {
    return arith::BitcastOp::create(s.b, s.loc, intType, v);
  };
  Value xBits = bits(x), yBits = bits(y);
  Value signMask = is.i(APInt::getSignMask(s.width()));
  Value smallest = arith::OrIOp::create(
      s.b, s.loc, arith::AndIOp::create(s.b, s.loc, yBits, signMask), is.i(1));
  Value zero = s.f(0.0);
  Value xPositive = s.cmp(arith::CmpFPredicate::OGT, x, zero);
  Value towardLarger = s.cmp(arith::CmpFPredicate::OLT, x, y);
  Value awayFromZero =
      arith::CmpIOp::create(s.b, s.loc, arith::CmpIPredicate::eq, xPositive,
                            towardLarger);
  Value stepped = s.select(awayFromZero,
                           arith::AddIOp::create(s.b, s.loc, xBits, is.i(1)),
                           arith::SubIOp::create(s.b, s.loc, xBits, is.i(1)));
  Value resultBits = s.select(s.cmp(arith::CmpFPredicate::OEQ, x, zero),
                              smallest, stepped);
  Value result = arith::BitcastOp::create(s.b, s.loc, s.type, resultBits);
  result = s.select(s.cmp(arith::CmpFPredicate::OEQ, x, y), y, result);
  Value unordered = s.cmp(arith::CmpFPredicate::UNO, x, y);
  return s.select(unordered, s.f(NAN), result);
}

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

template <typename OpTy>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedTensorType(this->getTypeConverter(), op.getType());
    // The operands' types: the result's, except for the ops that take
    // complex values apart or build them (abs, real, imag, complex).
    Type operandType = op->getOperand(0).getType();
    Type element = getElementTypeOrSelf(operandType);
    Type type = convertedTensorType(this->getTypeConverter(), operandType)
                    .getElementType();
    Value result = buildElementwiseGeneric(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Scalar s{b, loc, element, type};
          return lower(op, s, args);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void numlir::hlo_to_linalg::populateElementwisePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<
      ElementwiseLowering<hlo::NegateOp>, ElementwiseLowering<hlo::AbsOp>,
      ElementwiseLowering<hlo::SignOp>, ElementwiseLowering<hlo::ExpOp>,
      ElementwiseLowering<hlo::LogOp>, ElementwiseLowering<hlo::TanhOp>,
      ElementwiseLowering<hlo::LogisticOp>, ElementwiseLowering<hlo::SqrtOp>,
      ElementwiseLowering<hlo::RsqrtOp>, ElementwiseLowering<hlo::SinOp>,
      ElementwiseLowering<hlo::CosOp>, ElementwiseLowering<hlo::FloorOp>,
      ElementwiseLowering<hlo::CeilOp>, ElementwiseLowering<hlo::NotOp>,
      ElementwiseLowering<hlo::AddOp>, ElementwiseLowering<hlo::SubtractOp>,
      ElementwiseLowering<hlo::MultiplyOp>, ElementwiseLowering<hlo::DivideOp>,
      ElementwiseLowering<hlo::RemainderOp>,
      ElementwiseLowering<hlo::MaximumOp>, ElementwiseLowering<hlo::MinimumOp>,
      ElementwiseLowering<hlo::PowerOp>, ElementwiseLowering<hlo::AndOp>,
      ElementwiseLowering<hlo::OrOp>, ElementwiseLowering<hlo::XorOp>,
      ElementwiseLowering<hlo::ShiftLeftOp>,
      ElementwiseLowering<hlo::ShiftRightLogicalOp>,
      ElementwiseLowering<hlo::ShiftRightArithmeticOp>,
      ElementwiseLowering<hlo::PopcntOp>,
      ElementwiseLowering<hlo::CountLeadingZerosOp>,
      ElementwiseLowering<hlo::LogPlusOneOp>,
      ElementwiseLowering<hlo::ExponentialMinusOneOp>,
      ElementwiseLowering<hlo::TanOp>, ElementwiseLowering<hlo::AsinOp>,
      ElementwiseLowering<hlo::AcosOp>, ElementwiseLowering<hlo::AtanOp>,
      ElementwiseLowering<hlo::SinhOp>, ElementwiseLowering<hlo::CoshOp>,
      ElementwiseLowering<hlo::AsinhOp>, ElementwiseLowering<hlo::AcoshOp>,
      ElementwiseLowering<hlo::AtanhOp>, ElementwiseLowering<hlo::ErfOp>,
      ElementwiseLowering<hlo::ErfInvOp>, ElementwiseLowering<hlo::CbrtOp>,
      ElementwiseLowering<hlo::RoundNearestEvenOp>,
      ElementwiseLowering<hlo::RoundNearestAfzOp>,
      ElementwiseLowering<hlo::LgammaOp>, ElementwiseLowering<hlo::DigammaOp>,
      ElementwiseLowering<hlo::Atan2Op>, ElementwiseLowering<hlo::NextAfterOp>,
      ElementwiseLowering<hlo::ConjOp>, ElementwiseLowering<hlo::RealOp>,
      ElementwiseLowering<hlo::ImagOp>, ElementwiseLowering<hlo::ComplexOp>>(
      converter, patterns.getContext());
}
