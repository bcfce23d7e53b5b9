//===- ElementwiseToLinalg.cpp - unary and binary arithmetic to linalg ----===//
//
// Each op becomes one parallel linalg.generic whose body is the scalar
// computation below. Integer division and remainder are guarded so that no
// input reaches arith's undefined cases (x / 0, INT_MIN / -1), which trap
// on x86; the guarded results follow XLA.
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace numlir::hlo_to_linalg;
namespace hlo = numlir::hlo;

namespace {

/// What a scalar body needs: a builder, and the element type of the hlo
/// operands (with its signedness; the values themselves are signless).
struct Scalar {
  OpBuilder &b;
  Location loc;
  Type element;  // original hlo element type, e.g. ui32
  Type type;     // the signless type of the values, e.g. i32

  bool isFloat() const { return isa<FloatType>(element); }
  bool isUnsigned() const { return element.isUnsignedInteger(); }
  bool isBool() const { return element.isInteger(1); }
  unsigned width() const { return type.getIntOrFloatBitWidth(); }

  Value i(int64_t v) const { return intConstant(b, loc, type, v); }
  Value i(const APInt &v) const { return intConstant(b, loc, type, v); }
  Value f(double v) const { return floatConstant(b, loc, type, v); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) const {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) const {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) const {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
};

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

Value lower(hlo::NegateOp, Scalar &s, ValueRange a) {
  if (s.isFloat())
    return arith::NegFOp::create(s.b, s.loc, a[0]);
  return arith::SubIOp::create(s.b, s.loc, s.i(0), a[0]);
}

Value lower(hlo::AbsOp, Scalar &s, ValueRange a) {
  if (s.isFloat())
    return math::AbsFOp::create(s.b, s.loc, a[0]);
  if (s.isUnsigned())
    return a[0];
  return math::AbsIOp::create(s.b, s.loc, a[0]);
}

/// Floats: -1, +1, or x itself for NaN and both zeros (so -0.0 stays -0.0
/// and NaN stays NaN). Signed: (x > 0) - (x < 0). Unsigned: x != 0.
Value lower(hlo::SignOp, Scalar &s, ValueRange a) {
  Value x = a[0];
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
Value lower(hlo::ExpOp, Scalar &s, ValueRange a) {
  return lowerMath<math::ExpOp>(s, a);
}
Value lower(hlo::LogOp, Scalar &s, ValueRange a) {
  return lowerMath<math::LogOp>(s, a);
}
Value lower(hlo::TanhOp, Scalar &s, ValueRange a) {
  return lowerMath<math::TanhOp>(s, a);
}
Value lower(hlo::SqrtOp, Scalar &s, ValueRange a) {
  return lowerMath<math::SqrtOp>(s, a);
}
Value lower(hlo::RsqrtOp, Scalar &s, ValueRange a) {
  return lowerMath<math::RsqrtOp>(s, a);
}
Value lower(hlo::SinOp, Scalar &s, ValueRange a) {
  return lowerMath<math::SinOp>(s, a);
}
Value lower(hlo::CosOp, Scalar &s, ValueRange a) {
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
Value lower(hlo::LogisticOp, Scalar &s, ValueRange a) {
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
// Binary ops
//===----------------------------------------------------------------------===//

template <typename FloatOp, typename IntOp>
Value lowerArith(Scalar &s, ValueRange a) {
  if (s.isFloat())
    return FloatOp::create(s.b, s.loc, a[0], a[1]);
  return IntOp::create(s.b, s.loc, a[0], a[1]);
}
Value lower(hlo::AddOp, Scalar &s, ValueRange a) {
  return lowerArith<arith::AddFOp, arith::AddIOp>(s, a);
}
Value lower(hlo::SubtractOp, Scalar &s, ValueRange a) {
  return lowerArith<arith::SubFOp, arith::SubIOp>(s, a);
}
Value lower(hlo::MultiplyOp, Scalar &s, ValueRange a) {
  return lowerArith<arith::MulFOp, arith::MulIOp>(s, a);
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

/// Floats: math.powf. Integers: math.ipowi (wrapping), only ever called
/// with a non-negative exponent. Signed negative exponents give 1 for base
/// 1, +-1 for base -1 and 0 otherwise (XLA's rule). Unsigned exponents
/// with the top bit set are split as b^(2^(N-1)) * b^rest, where
/// b^(2^(N-1)) mod 2^N is 1 for odd b and 0 for even b (N >= 8).
Value lower(hlo::PowerOp, Scalar &s, ValueRange a) {
  Value base = a[0], exponent = a[1];
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
// The pattern
//===----------------------------------------------------------------------===//

template <typename OpTy>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "unsupported result type");
    Type element = getElementTypeOrSelf(op.getType());
    Value result = buildElementwiseGeneric(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Scalar s{b, loc, element, resultType.getElementType()};
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
      ElementwiseLowering<hlo::OrOp>, ElementwiseLowering<hlo::XorOp>>(
      converter, patterns.getContext());
}
