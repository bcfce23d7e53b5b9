//===- HLOFolders.cpp - constant folding and identity folds of hlo ops ----===//
//
// Elementwise ops fold when every operand is a constant, with the semantics
// of docs/hlo-dialect.md (XLA's integer division by zero, NaN-propagating
// maximum/minimum, signless integers are signed, i1 is unsigned). Shape ops
// fold away when they do not change their operand. Algebraic identities
// such as `x + 0` are not folders; they live in the hlo-simplify pass.
//
//===----------------------------------------------------------------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/CommonFolders.h"
#include "llvm/ADT/APSInt.h"

#include <cmath>
#include <complex>

using namespace mlir;
using namespace numlir::hlo;

/// Non-splat constants above this many elements are not folded, so folding
/// never builds huge attributes. Splats fold at any size.
constexpr int64_t kMaxFoldedElements = 1 << 16;

/// True if every operand is a dense constant of real elements that is a
/// splat or small. Complex constants are not folded: the folders below
/// compute on APInt and APFloat elements.
static bool areFoldable(ArrayRef<Attribute> operands) {
  return llvm::all_of(operands, [](Attribute attr) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
    return dense && !isa<ComplexType>(dense.getElementType()) &&
           (dense.isSplat() || dense.getNumElements() <= kMaxFoldedElements);
  });
}

static Type elementTypeOf(Attribute attr) {
  return cast<DenseElementsAttr>(attr).getElementType();
}

/// Signless integers are signed; unsigned integers and i1 are unsigned.
static bool isUnsignedLike(Type elementType) {
  return elementType.isUnsignedInteger() || elementType.isInteger(1);
}

namespace {
using IntUnaryFn = function_ref<std::optional<APInt>(const APInt &)>;
using FloatUnaryFn = function_ref<std::optional<APFloat>(const APFloat &)>;
using IntBinaryFn =
    function_ref<std::optional<APInt>(const APInt &, const APInt &)>;
using FloatBinaryFn =
    function_ref<std::optional<APFloat>(const APFloat &, const APFloat &)>;
} // namespace

/// Folds a unary elementwise op; a null function means the op does not
/// accept that element kind.
static Attribute foldUnary(ArrayRef<Attribute> operands, Type resultType,
                           IntUnaryFn intFn, FloatUnaryFn floatFn) {
  if (!areFoldable(operands))
    return {};
  if (isa<FloatType>(elementTypeOf(operands[0])))
    return floatFn ? constFoldUnaryOpConditional<FloatAttr, APFloat, void>(
                         operands, resultType, floatFn)
                   : Attribute();
  return intFn ? constFoldUnaryOpConditional<IntegerAttr, APInt, void>(
                     operands, resultType, intFn)
               : Attribute();
}

static Attribute foldBinary(ArrayRef<Attribute> operands, Type resultType,
                            IntBinaryFn intFn, FloatBinaryFn floatFn) {
  if (!areFoldable(operands))
    return {};
  if (isa<FloatType>(elementTypeOf(operands[0])))
    return floatFn ? constFoldBinaryOpConditional<FloatAttr, APFloat, void>(
                         operands, resultType, floatFn)
                   : Attribute();
  return intFn ? constFoldBinaryOpConditional<IntegerAttr, APInt, void>(
                     operands, resultType, intFn)
               : Attribute();
}

/// Evaluates a libm function in double precision and rounds the result to
/// the semantics of `x` (f16, bf16, f32 or f64).
static APFloat viaDouble(const APFloat &x, double (*fn)(double)) {
  bool losesInfo;
  APFloat wide = x;
  wide.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
               &losesInfo);
  APFloat result(fn(wide.convertToDouble()));
  result.convert(x.getSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
  return result;
}

//===----------------------------------------------------------------------===//
// Constants and unary ops
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult NegateOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getOperands(), getType(), [](const APInt &x) { return -x; },
      [](const APFloat &x) { return neg(x); });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedLike(getType().getElementType());
  return foldUnary(
      adaptor.getOperands(), getType(),
      [&](const APInt &x) { return isUnsigned ? x : x.abs(); },
      [](const APFloat &x) { return abs(x); });
}

OpFoldResult SignOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedLike(getType().getElementType());
  return foldUnary(
      adaptor.getOperands(), getType(),
      [&](const APInt &x) {
        if (x.isZero())
          return x;
        if (!isUnsigned && x.isNegative())
          return APInt::getAllOnes(x.getBitWidth());
        return APInt(x.getBitWidth(), 1);
      },
      // NaN stays NaN and -0.0 stays -0.0.
      [](const APFloat &x) {
        if (x.isNaN() || x.isZero())
          return x;
        return APFloat::getOne(x.getSemantics(), x.isNegative());
      });
}

#define NUMLIR_FOLD_VIA_DOUBLE(OP, EXPR)                                       \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return foldUnary(adaptor.getOperands(), getType(), nullptr,                \
                     [](const APFloat &x) {                                    \
                       return viaDouble(x, [](double v) { return EXPR; });     \
                     });                                                       \
  }
NUMLIR_FOLD_VIA_DOUBLE(ExpOp, std::exp(v))
NUMLIR_FOLD_VIA_DOUBLE(LogOp, std::log(v))
NUMLIR_FOLD_VIA_DOUBLE(TanhOp, std::tanh(v))
NUMLIR_FOLD_VIA_DOUBLE(LogisticOp, 1.0 / (1.0 + std::exp(-v)))
NUMLIR_FOLD_VIA_DOUBLE(SqrtOp, std::sqrt(v))
NUMLIR_FOLD_VIA_DOUBLE(RsqrtOp, 1.0 / std::sqrt(v))
NUMLIR_FOLD_VIA_DOUBLE(SinOp, std::sin(v))
NUMLIR_FOLD_VIA_DOUBLE(CosOp, std::cos(v))

NUMLIR_FOLD_VIA_DOUBLE(LogPlusOneOp, std::log1p(v))
NUMLIR_FOLD_VIA_DOUBLE(ExponentialMinusOneOp, std::expm1(v))
NUMLIR_FOLD_VIA_DOUBLE(TanOp, std::tan(v))
NUMLIR_FOLD_VIA_DOUBLE(AsinOp, std::asin(v))
NUMLIR_FOLD_VIA_DOUBLE(AcosOp, std::acos(v))
NUMLIR_FOLD_VIA_DOUBLE(AtanOp, std::atan(v))
NUMLIR_FOLD_VIA_DOUBLE(SinhOp, std::sinh(v))
NUMLIR_FOLD_VIA_DOUBLE(CoshOp, std::cosh(v))
NUMLIR_FOLD_VIA_DOUBLE(AsinhOp, std::asinh(v))
NUMLIR_FOLD_VIA_DOUBLE(AcoshOp, std::acosh(v))
NUMLIR_FOLD_VIA_DOUBLE(AtanhOp, std::atanh(v))
NUMLIR_FOLD_VIA_DOUBLE(ErfOp, std::erf(v))
NUMLIR_FOLD_VIA_DOUBLE(CbrtOp, std::cbrt(v))
NUMLIR_FOLD_VIA_DOUBLE(LgammaOp, std::lgamma(v))
#undef NUMLIR_FOLD_VIA_DOUBLE

static std::optional<APFloat> roundToIntegral(APFloat x,
                                              APFloat::roundingMode mode) {
  x.roundToIntegral(mode);
  return x;
}

OpFoldResult FloorOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperands(), getType(), nullptr,
                   [](const APFloat &x) {
                     return roundToIntegral(x, APFloat::rmTowardNegative);
                   });
}

OpFoldResult CeilOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperands(), getType(), nullptr,
                   [](const APFloat &x) {
                     return roundToIntegral(x, APFloat::rmTowardPositive);
                   });
}

OpFoldResult RoundNearestEvenOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperands(), getType(), nullptr,
                   [](const APFloat &x) {
                     return roundToIntegral(x, APFloat::rmNearestTiesToEven);
                   });
}

OpFoldResult RoundNearestAfzOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperands(), getType(), nullptr,
                   [](const APFloat &x) {
                     return roundToIntegral(x, APFloat::rmNearestTiesToAway);
                   });
}

OpFoldResult PopcntOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getOperands(), getType(),
      [](const APInt &x) { return APInt(x.getBitWidth(), x.popcount()); },
      nullptr);
}

OpFoldResult CountLeadingZerosOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getOperands(), getType(),
      [](const APInt &x) { return APInt(x.getBitWidth(), x.countl_zero()); },
      nullptr);
}

OpFoldResult IsFiniteOp::fold(FoldAdaptor adaptor) {
  ArrayRef<Attribute> operands = adaptor.getOperands();
  if (!areFoldable(operands))
    return {};
  return constFoldUnaryOpConditional<FloatAttr, APFloat, void, IntegerAttr>(
      operands, getType(), [](const APFloat &x) -> std::optional<APInt> {
        return APInt(1, x.isFinite());
      });
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getOperands(), getType(), [](const APInt &x) { return ~x; },
      nullptr);
}

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

static constexpr APFloat::roundingMode kRound = APFloat::rmNearestTiesToEven;

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) { return a + b; },
      [](const APFloat &a, const APFloat &b) { return a + b; });
}

OpFoldResult SubtractOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) { return a - b; },
      [](const APFloat &a, const APFloat &b) { return a - b; });
}

OpFoldResult MultiplyOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) { return a * b; },
      [](const APFloat &a, const APFloat &b) { return a * b; });
}

// XLA semantics: x / 0 is all ones (-1 signed, the maximum unsigned), and
// INT_MIN / -1 is INT_MIN (the wrapped result).
OpFoldResult DivideOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedLike(getType().getElementType());
  return foldBinary(
      adaptor.getOperands(), getType(),
      [&](const APInt &a, const APInt &b) {
        if (b.isZero())
          return APInt::getAllOnes(a.getBitWidth());
        if (isUnsigned)
          return a.udiv(b);
        if (a.isMinSignedValue() && b.isAllOnes())
          return a;
        return a.sdiv(b);
      },
      [](const APFloat &a, const APFloat &b) { return a / b; });
}

// XLA semantics: x % 0 is x, and INT_MIN % -1 is 0. The result has the sign
// of the dividend for integers and floats (C fmod).
OpFoldResult RemainderOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedLike(getType().getElementType());
  return foldBinary(
      adaptor.getOperands(), getType(),
      [&](const APInt &a, const APInt &b) {
        if (b.isZero())
          return a;
        if (isUnsigned)
          return a.urem(b);
        if (a.isMinSignedValue() && b.isAllOnes())
          return APInt::getZero(a.getBitWidth());
        return a.srem(b);
      },
      [](const APFloat &a, const APFloat &b) {
        APFloat result = a;
        result.mod(b);
        return result;
      });
}

// Floats: NaN if either operand is NaN, and -0.0 < +0.0.
OpFoldResult MaximumOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedLike(getType().getElementType());
  return foldBinary(
      adaptor.getOperands(), getType(),
      [&](const APInt &a, const APInt &b) {
        return isUnsigned ? llvm::APIntOps::umax(a, b)
                          : llvm::APIntOps::smax(a, b);
      },
      [](const APFloat &a, const APFloat &b) { return maximum(a, b); });
}

OpFoldResult MinimumOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedLike(getType().getElementType());
  return foldBinary(
      adaptor.getOperands(), getType(),
      [&](const APInt &a, const APInt &b) {
        return isUnsigned ? llvm::APIntOps::umin(a, b)
                          : llvm::APIntOps::smin(a, b);
      },
      [](const APFloat &a, const APFloat &b) { return minimum(a, b); });
}

// Integer powers wrap; a negative exponent is not folded (its result is
// implementation-defined, see the spec).
OpFoldResult PowerOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedLike(getType().getElementType());
  return foldBinary(
      adaptor.getOperands(), getType(),
      [&](const APInt &base, const APInt &exponent) -> std::optional<APInt> {
        if (!isUnsigned && exponent.isNegative())
          return std::nullopt;
        APInt result(base.getBitWidth(), 1), square = base;
        for (APInt e = exponent; !e.isZero(); e.lshrInPlace(1)) {
          if (e[0])
            result *= square;
          square *= square;
        }
        return result;
      },
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        bool losesInfo;
        APFloat x = a, y = b;
        x.convert(APFloat::IEEEdouble(), kRound, &losesInfo);
        y.convert(APFloat::IEEEdouble(), kRound, &losesInfo);
        APFloat result(std::pow(x.convertToDouble(), y.convertToDouble()));
        result.convert(a.getSemantics(), kRound, &losesInfo);
        return result;
      });
}

OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) { return a & b; }, nullptr);
}

OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) { return a | b; }, nullptr);
}

OpFoldResult XorOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) { return a ^ b; }, nullptr);
}

// Shift amounts are unsigned; amounts of at least the bit width shift every
// bit out (XLA): 0, or all sign bits for the arithmetic right shift.
OpFoldResult ShiftLeftOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) {
        if (b.uge(a.getBitWidth()))
          return APInt::getZero(a.getBitWidth());
        return a.shl(b);
      },
      nullptr);
}

OpFoldResult ShiftRightLogicalOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) {
        if (b.uge(a.getBitWidth()))
          return APInt::getZero(a.getBitWidth());
        return a.lshr(b);
      },
      nullptr);
}

OpFoldResult ShiftRightArithmeticOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APInt &a, const APInt &b) {
        if (b.uge(a.getBitWidth()))
          return a.ashr(a.getBitWidth() - 1);
        return a.ashr(b);
      },
      nullptr);
}

OpFoldResult Atan2Op::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(), nullptr,
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        bool losesInfo;
        APFloat y = a, x = b;
        y.convert(APFloat::IEEEdouble(), kRound, &losesInfo);
        x.convert(APFloat::IEEEdouble(), kRound, &losesInfo);
        APFloat result(std::atan2(y.convertToDouble(), x.convertToDouble()));
        result.convert(a.getSemantics(), kRound, &losesInfo);
        return result;
      });
}

// NaN if either is NaN; `rhs` if equal (so nextafter(-0, +0) = +0);
// otherwise one ulp from `lhs` towards `rhs`.
OpFoldResult NextAfterOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(), nullptr,
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        if (a.isNaN() || b.isNaN())
          return APFloat::getNaN(a.getSemantics());
        APFloat::cmpResult order = a.compare(b);
        if (order == APFloat::cmpEqual)
          return b;
        APFloat result = a;
        result.next(/*nextDown=*/order == APFloat::cmpGreaterThan);
        return result;
      });
}

OpFoldResult BitcastConvertOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  if (!areFoldable(adaptor.getOperands()))
    return {};
  return cast<DenseElementsAttr>(adaptor.getOperand())
      .bitcast(getType().getElementType());
}

OpFoldResult ClampOp::fold(FoldAdaptor adaptor) {
  if (!areFoldable(adaptor.getOperands()))
    return {};
  auto lo = cast<DenseElementsAttr>(adaptor.getMin());
  auto x = cast<DenseElementsAttr>(adaptor.getOperand());
  auto hi = cast<DenseElementsAttr>(adaptor.getMax());
  int64_t n = x.getNumElements();
  auto at = [](DenseElementsAttr attr, int64_t i) {
    return attr.isSplat() ? 0 : i;
  };
  Type elementType = getType().getElementType();
  if (isa<FloatType>(elementType)) {
    auto los = lo.getValues<APFloat>(), xs = x.getValues<APFloat>(),
         his = hi.getValues<APFloat>();
    SmallVector<APFloat> values;
    values.reserve(n);
    for (int64_t i = 0; i < n; ++i)
      values.push_back(minimum(maximum(xs[at(x, i)], los[at(lo, i)]),
                               his[at(hi, i)]));
    return DenseElementsAttr::get(getType(), values);
  }
  bool isUnsigned = isUnsignedLike(elementType);
  auto los = lo.getValues<APInt>(), xs = x.getValues<APInt>(),
       his = hi.getValues<APInt>();
  SmallVector<APInt> values;
  values.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    const APInt &v = xs[at(x, i)], &l = los[at(lo, i)], &h = his[at(hi, i)];
    APInt r = isUnsigned ? llvm::APIntOps::umax(v, l)
                         : llvm::APIntOps::smax(v, l);
    values.push_back(isUnsigned ? llvm::APIntOps::umin(r, h)
                                : llvm::APIntOps::smin(r, h));
  }
  return DenseElementsAttr::get(getType(), values);
}

//===----------------------------------------------------------------------===//
// compare, select, convert
//===----------------------------------------------------------------------===//

static bool compareInts(ComparisonDirection direction, const APInt &a,
                        const APInt &b, bool isUnsigned) {
  switch (direction) {
  case ComparisonDirection::EQ:
    return a == b;
  case ComparisonDirection::NE:
    return a != b;
  case ComparisonDirection::LT:
    return isUnsigned ? a.ult(b) : a.slt(b);
  case ComparisonDirection::LE:
    return isUnsigned ? a.ule(b) : a.sle(b);
  case ComparisonDirection::GT:
    return isUnsigned ? a.ugt(b) : a.sgt(b);
  case ComparisonDirection::GE:
    return isUnsigned ? a.uge(b) : a.sge(b);
  }
  llvm_unreachable("unknown comparison direction");
}

/// Ordered comparisons, except NE, which is true when either side is NaN.
static bool compareFloats(ComparisonDirection direction, const APFloat &a,
                          const APFloat &b) {
  APFloat::cmpResult order = a.compare(b);
  switch (direction) {
  case ComparisonDirection::EQ:
    return order == APFloat::cmpEqual;
  case ComparisonDirection::NE:
    return order != APFloat::cmpEqual;
  case ComparisonDirection::LT:
    return order == APFloat::cmpLessThan;
  case ComparisonDirection::LE:
    return order == APFloat::cmpLessThan || order == APFloat::cmpEqual;
  case ComparisonDirection::GT:
    return order == APFloat::cmpGreaterThan;
  case ComparisonDirection::GE:
    return order == APFloat::cmpGreaterThan || order == APFloat::cmpEqual;
  }
  llvm_unreachable("unknown comparison direction");
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  ArrayRef<Attribute> operands = adaptor.getOperands();
  if (!areFoldable(operands))
    return {};
  ComparisonDirection direction = getComparisonDirection();
  Type elementType = getLhs().getType().getElementType();
  if (isa<FloatType>(elementType))
    return constFoldBinaryOpConditional<FloatAttr, APFloat, void, IntegerAttr>(
        operands, getType(),
        [&](const APFloat &a, const APFloat &b) -> std::optional<APInt> {
          return APInt(1, compareFloats(direction, a, b));
        });
  bool isUnsigned = isUnsignedLike(elementType);
  return constFoldBinaryOpConditional<IntegerAttr, APInt, void>(
      operands, getType(),
      [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return APInt(1, compareInts(direction, a, b, isUnsigned));
      });
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (!areFoldable(adaptor.getOperands()))
    return {};
  auto pred = cast<DenseElementsAttr>(adaptor.getPred());
  auto onTrue = cast<DenseElementsAttr>(adaptor.getOnTrue());
  auto onFalse = cast<DenseElementsAttr>(adaptor.getOnFalse());
  if (pred.isSplat())
    return pred.getSplatValue<bool>() ? onTrue : onFalse;
  SmallVector<Attribute> values;
  values.reserve(pred.getNumElements());
  for (auto [p, t, f] :
       llvm::zip_equal(pred.getValues<bool>(), onTrue.getValues<Attribute>(),
                       onFalse.getValues<Attribute>()))
    values.push_back(p ? t : f);
  return DenseElementsAttr::get(getType(), values);
}

/// Converts one integer element (signed unless `isUnsigned`) to `to`.
static std::optional<APInt> convertIntToInt(const APInt &x, bool isUnsigned,
                                            IntegerType to) {
  if (to.getWidth() == 1)
    return APInt(1, !x.isZero());
  return isUnsigned ? x.zextOrTrunc(to.getWidth())
                    : x.sextOrTrunc(to.getWidth());
}

/// Converts one float element to an integer, rounding toward zero. NaN and
/// out-of-range values are implementation-defined and not folded.
static std::optional<APInt> convertFloatToInt(const APFloat &x,
                                              IntegerType to) {
  if (to.getWidth() == 1)
    return APInt(1, !x.isZero());
  APSInt result(to.getWidth(), to.isUnsigned());
  bool isExact;
  if (x.convertToInteger(result, APFloat::rmTowardZero, &isExact) &
      APFloat::opInvalidOp)
    return std::nullopt;
  return APInt(result);
}

OpFoldResult ConvertOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  ArrayRef<Attribute> operands = adaptor.getOperands();
  if (!areFoldable(operands))
    return {};
  Type from = getOperand().getType().getElementType();
  Type to = getType().getElementType();
  if (isa<ComplexType>(from) || isa<ComplexType>(to))
    return {};
  auto toFloat = dyn_cast<FloatType>(to);
  auto toInt = dyn_cast<IntegerType>(to);
  if (isa<FloatType>(from) && toFloat)
    return constFoldUnaryOpConditional<FloatAttr, APFloat, void>(
        operands, getType(), [&](APFloat x) -> std::optional<APFloat> {
          bool losesInfo;
          x.convert(toFloat.getFloatSemantics(), kRound, &losesInfo);
          return x;
        });
  if (isa<FloatType>(from))
    return constFoldUnaryOpConditional<FloatAttr, APFloat, void, IntegerAttr>(
        operands, getType(),
        [&](const APFloat &x) { return convertFloatToInt(x, toInt); });
  bool isUnsigned = isUnsignedLike(from);
  if (toFloat)
    return constFoldUnaryOpConditional<IntegerAttr, APInt, void, FloatAttr>(
        operands, getType(), [&](const APInt &x) -> std::optional<APFloat> {
          APFloat result(toFloat.getFloatSemantics());
          result.convertFromAPInt(x, !isUnsigned, kRound);
          return result;
        });
  return constFoldUnaryOpConditional<IntegerAttr, APInt, void>(
      operands, getType(),
      [&](const APInt &x) { return convertIntToInt(x, isUnsigned, toInt); });
}

//===----------------------------------------------------------------------===//
// Shape ops and reduce
//===----------------------------------------------------------------------===//

static DenseElementsAttr getSplat(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  return dense && dense.isSplat() ? dense : nullptr;
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  if (DenseElementsAttr splat = getSplat(adaptor.getOperand()))
    return splat.resizeSplat(getType());
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  if (areFoldable(adaptor.getOperand()))
    return cast<DenseElementsAttr>(adaptor.getOperand()).reshape(getType());
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (llvm::equal(getPermutation(), llvm::seq<int64_t>(getType().getRank())))
    return getOperand();
  if (DenseElementsAttr splat = getSplat(adaptor.getOperand()))
    return splat.resizeSplat(getType());
  return {};
}

/// The value a reduction of `kind` starts from, so reducing zero elements
/// gives it; null where the kind does not apply to the element type.
static TypedAttr reduceIdentity(ReduceKind kind, Type elementType) {
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    switch (kind) {
    case ReduceKind::Sum:
      return FloatAttr::get(floatType, APFloat::getZero(semantics));
    case ReduceKind::Prod:
      return FloatAttr::get(floatType, APFloat::getOne(semantics));
    case ReduceKind::Max:
      return FloatAttr::get(floatType, APFloat::getInf(semantics, true));
    case ReduceKind::Min:
      return FloatAttr::get(floatType, APFloat::getInf(semantics, false));
    case ReduceKind::And:
    case ReduceKind::Or:
      return {};
    }
  }
  auto intType = cast<IntegerType>(elementType);
  unsigned width = intType.getWidth();
  bool isUnsigned = isUnsignedLike(intType);
  APInt value;
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::Or:
    value = APInt::getZero(width);
    break;
  case ReduceKind::Prod:
    value = APInt(width, 1);
    break;
  case ReduceKind::And:
    value = APInt::getAllOnes(width);
    break;
  case ReduceKind::Max:
    value = isUnsigned ? APInt::getMinValue(width)
                       : APInt::getSignedMinValue(width);
    break;
  case ReduceKind::Min:
    value = isUnsigned ? APInt::getMaxValue(width)
                       : APInt::getSignedMaxValue(width);
    break;
  }
  return IntegerAttr::get(intType, value);
}

OpFoldResult ReduceOp::fold(FoldAdaptor) {
  if (getDimensions().empty())
    return getOperand();
  if (getOperand().getType().getNumElements() != 0)
    return {};
  Type elementType = getType().getElementType();
  if (auto complexType = dyn_cast<ComplexType>(elementType)) {
    // Sum and prod, the only complex kinds: (0, 0) and (1, 0).
    const llvm::fltSemantics &semantics =
        cast<FloatType>(complexType.getElementType()).getFloatSemantics();
    APFloat zero = APFloat::getZero(semantics);
    APFloat real = getKind() == ReduceKind::Prod
                       ? APFloat::getOne(semantics)
                       : zero;
    std::complex<APFloat> identity(real, zero);
    return DenseElementsAttr::get(getType(), ArrayRef(identity));
  }
  if (TypedAttr identity = reduceIdentity(getKind(), elementType))
    return DenseElementsAttr::get(getType(), identity);
  return {};
}

/// A scan over a dimension of size 0 or 1, or of an empty tensor, is its
/// operand.
OpFoldResult CumulativeOp::fold(FoldAdaptor) {
  RankedTensorType type = getOperand().getType();
  if (type.getNumElements() == 0 || type.getDimSize(getDimension()) == 1)
    return getOperand();
  return {};
}
