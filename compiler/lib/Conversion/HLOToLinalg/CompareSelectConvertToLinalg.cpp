//===- CompareSelectConvertToLinalg.cpp - compare, select, convert --------===//
//
// The elementwise ops whose operand and result element types (or shapes,
// for clamp's scalar bounds) differ. Like the arithmetic ops they become
// one parallel linalg.generic each.
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace numlir::hlo_to_linalg;
namespace hlo = numlir::hlo;

namespace {

/// Floats compare ordered (false if either is NaN) except NE, which is true
/// for NaN. Unsigned integers and i1 compare unsigned. Complex values (EQ
/// and NE only) compare both parts that way.
Value compareScalars(OpBuilder &b, Location loc, hlo::ComparisonDirection dir,
                     Type element, Value lhs, Value rhs) {
  using D = hlo::ComparisonDirection;
  if (isa<ComplexType>(element)) {
    if (dir == D::EQ)
      return complex::EqualOp::create(b, loc, lhs, rhs);
    return complex::NotEqualOp::create(b, loc, lhs, rhs);
  }
  if (isa<FloatType>(element)) {
    using P = arith::CmpFPredicate;
    P p = dir == D::EQ   ? P::OEQ
          : dir == D::NE ? P::UNE
          : dir == D::LT ? P::OLT
          : dir == D::LE ? P::OLE
          : dir == D::GT ? P::OGT
                         : P::OGE;
    return arith::CmpFOp::create(b, loc, p, lhs, rhs);
  }
  using P = arith::CmpIPredicate;
  bool isUnsigned = element.isUnsignedInteger() || element.isInteger(1);
  P p = dir == D::EQ   ? P::eq
        : dir == D::NE ? P::ne
        : dir == D::LT ? (isUnsigned ? P::ult : P::slt)
        : dir == D::LE ? (isUnsigned ? P::ule : P::sle)
        : dir == D::GT ? (isUnsigned ? P::ugt : P::sgt)
                       : (isUnsigned ? P::uge : P::sge);
  return arith::CmpIOp::create(b, loc, p, lhs, rhs);
}

struct CompareLowering : OpConversionPattern<hlo::CompareOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::CompareOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = getElementTypeOrSelf(op.getLhs().getType());
    hlo::ComparisonDirection dir = op.getComparisonDirection();
    Value result = buildElementwiseGeneric(
        rewriter, op.getLoc(), op.getType(), adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return compareScalars(b, loc, dir, element, args[0], args[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SelectLowering : OpConversionPattern<hlo::SelectOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedTensorType(getTypeConverter(), op.getType());
    Value result = buildElementwiseGeneric(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Float to integer rounds toward zero and saturates like XLA: NaN gives 0,
/// values beyond the target range give its minimum or maximum. The
/// fptosi/fptoui only ever sees in-range values, so it is never poison.
Value floatToInt(OpBuilder &b, Location loc, Value x, Type intType,
                 bool isUnsigned) {
  auto floatType = cast<FloatType>(x.getType());
  unsigned width = intType.getIntOrFloatBitWidth();
  auto floatOf = [&](double v) {
    // Powers of two are exact; beyond the float's range this rounds to inf,
    // which still bounds every finite value correctly.
    APFloat value(v);
    bool losesInfo;
    value.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    return arith::ConstantOp::create(b, loc, FloatAttr::get(floatType, value));
  };
  auto cmp = [&](arith::CmpFPredicate p, Value lhs, Value rhs) {
    return arith::CmpFOp::create(b, loc, p, lhs, rhs);
  };
  // The range [low, high) (for unsigned: (-1, 2^N)) holds the values that
  // truncate to a representable integer.
  Value high = floatOf(std::ldexp(1.0, isUnsigned ? width : width - 1));
  Value aboveLow =
      isUnsigned
          ? cmp(arith::CmpFPredicate::OGT, x, floatOf(-1.0))
          : cmp(arith::CmpFPredicate::OGE, x,
                floatOf(-std::ldexp(1.0, width - 1)));
  Value inRange = arith::AndIOp::create(
      b, loc, aboveLow, cmp(arith::CmpFPredicate::OLT, x, high));
  Value zeroFloat = floatOf(0.0);
  Value safe = arith::SelectOp::create(b, loc, inRange, x, zeroFloat);
  Value converted =
      isUnsigned ? Value(arith::FPToUIOp::create(b, loc, intType, safe))
                 : Value(arith::FPToSIOp::create(b, loc, intType, safe));

  APInt max = isUnsigned ? APInt::getMaxValue(width)
                         : APInt::getSignedMaxValue(width);
  APInt min = isUnsigned ? APInt::getZero(width)
                         : APInt::getSignedMinValue(width);
  Value saturated = arith::SelectOp::create(
      b, loc, cmp(arith::CmpFPredicate::OGE, x, high),
      intConstant(b, loc, intType, max), intConstant(b, loc, intType, min));
  Value isNaN = cmp(arith::CmpFPredicate::UNO, x, x);
  saturated = arith::SelectOp::create(
      b, loc, isNaN, intConstant(b, loc, intType, 0), saturated);
  return arith::SelectOp::create(b, loc, inRange, converted, saturated);
}

/// Converts one scalar from `from` (original hlo element type) to `to`;
/// `type` is the signless type of the result. A real value x becomes the
/// complex (x, 0); a complex value converts part by part to a complex type
/// and gives its real part, converted, to a real type (as XLA).
Value convertScalar(OpBuilder &b, Location loc, Value x, Type from, Type to,
                    Type type) {
  if (x.getType() == type)
    return x; // same type, or a signedness-only change
  auto fromComplex = dyn_cast<ComplexType>(from);
  if (auto toComplex = dyn_cast<ComplexType>(to)) {
    Type part = toComplex.getElementType();
    if (!fromComplex) {
      Value re = convertScalar(b, loc, x, from, part, part);
      Value zero = floatConstant(b, loc, part, 0.0);
      return complex::CreateOp::create(b, loc, type, re, zero);
    }
    Type fromPart = fromComplex.getElementType();
    Value re = complex::ReOp::create(b, loc, x);
    Value im = complex::ImOp::create(b, loc, x);
    re = convertScalar(b, loc, re, fromPart, part, part);
    im = convertScalar(b, loc, im, fromPart, part, part);
    return complex::CreateOp::create(b, loc, type, re, im);
  }
  if (fromComplex)
    return convertScalar(b, loc, complex::ReOp::create(b, loc, x),
                         fromComplex.getElementType(), to, type);
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (to.isInteger(1)) {
    if (fromFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                   floatConstant(b, loc, x.getType(), 0.0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                 intConstant(b, loc, x.getType(), 0));
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  bool fromUnsigned = from.isUnsignedInteger() || from.isInteger(1);
  if (fromFloat && toFloat) {
    if (fromWidth == toWidth) // f16 <-> bf16: go through f32, exactly
      x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    if (x.getType().getIntOrFloatBitWidth() < toWidth)
      return arith::ExtFOp::create(b, loc, type, x);
    return arith::TruncFOp::create(b, loc, type, x);
  }
  if (toFloat) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, loc, type, x);
    return arith::SIToFPOp::create(b, loc, type, x);
  }
  if (fromFloat)
    return floatToInt(b, loc, x, type, to.isUnsignedInteger());
  if (fromWidth < toWidth) {
    if (fromUnsigned)
      return arith::ExtUIOp::create(b, loc, type, x);
    return arith::ExtSIOp::create(b, loc, type, x);
  }
  return arith::TruncIOp::create(b, loc, type, x);
}

struct ConvertLowering : OpConversionPattern<hlo::ConvertOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::ConvertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedTensorType(getTypeConverter(), op.getType());
    if (adaptor.getOperand().getType() == resultType) {
      rewriter.replaceOp(op, adaptor.getOperand()); // e.g. i32 -> ui32
      return success();
    }
    Type from = getElementTypeOrSelf(op.getOperand().getType());
    Type to = getElementTypeOrSelf(op.getType());
    Value result = buildElementwiseGeneric(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return convertScalar(b, loc, args[0], from, to,
                               resultType.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// arith.bitcast on the signless types; a signedness-only change (ui32 to
/// i32) is no op at all.
struct BitcastConvertLowering : OpConversionPattern<hlo::BitcastConvertOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::BitcastConvertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedTensorType(getTypeConverter(), op.getType());
    if (adaptor.getOperand().getType() == resultType) {
      rewriter.replaceOp(op, adaptor.getOperand());
      return success();
    }
    Value result = buildElementwiseGeneric(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return arith::BitcastOp::create(b, loc,
                                          resultType.getElementType(), args[0]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// |x| != inf, ordered: false for NaN and both infinities.
struct IsFiniteLowering : OpConversionPattern<hlo::IsFiniteOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::IsFiniteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = buildElementwiseGeneric(
        rewriter, op.getLoc(), op.getType(), adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value abs = math::AbsFOp::create(b, loc, args[0]);
          Value inf = floatConstant(b, loc, abs.getType(), INFINITY);
          return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE,
                                       abs, inf);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// One generic; a rank-0 bound is read through a map to no dimensions.
/// minimum(maximum(x, lo), hi), NaN-propagating for floats.
struct ClampLowering : OpConversionPattern<hlo::ClampOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::ClampOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedTensorType(getTypeConverter(), op.getType());
    Location loc = op.getLoc();
    int64_t rank = resultType.getRank();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap scalar = AffineMap::get(rank, 0, rewriter.getContext());
    auto mapOf = [&](Value v) {
      return cast<RankedTensorType>(v.getType()).getRank() == 0 && rank != 0
                 ? scalar
                 : identity;
    };
    SmallVector<AffineMap> maps = {mapOf(adaptor.getMin()), identity,
                                   mapOf(adaptor.getMax()), identity};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Type element = getElementTypeOrSelf(op.getType());
    bool isFloat = isa<FloatType>(element);
    bool isUnsigned = element.isUnsignedInteger();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType},
        ValueRange{adaptor.getMin(), adaptor.getOperand(), adaptor.getMax()},
        ValueRange{emptyTensor(rewriter, loc, resultType)}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value lo = args[0], x = args[1], hi = args[2], r;
          if (isFloat) {
            r = arith::MaximumFOp::create(b, l, x, lo);
            r = arith::MinimumFOp::create(b, l, r, hi);
          } else if (isUnsigned) {
            r = arith::MaxUIOp::create(b, l, x, lo);
            r = arith::MinUIOp::create(b, l, r, hi);
          } else {
            r = arith::MaxSIOp::create(b, l, x, lo);
            r = arith::MinSIOp::create(b, l, r, hi);
          }
          linalg::YieldOp::create(b, l, r);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void numlir::hlo_to_linalg::populateCompareSelectConvertPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<CompareLowering, SelectLowering, ConvertLowering,
               BitcastConvertLowering, IsFiniteLowering, ClampLowering>(
      converter, patterns.getContext());
}
