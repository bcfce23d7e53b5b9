//===- ReductionToLinalg.cpp - hlo.reduce to linalg.reduce ----------------===//
//
// A reduction is a linalg.reduce over an init filled with the identity of
// its combiner, so reducing zero elements yields the identity.
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace numlir::hlo_to_linalg;
namespace hlo = numlir::hlo;
using Kind = hlo::ReduceKind;

namespace {

/// On i1, sum and max are `or`, prod and min are `and`.
Kind boolKind(Kind kind) {
  switch (kind) {
  case Kind::Sum:
  case Kind::Max:
  case Kind::Or:
    return Kind::Or;
  default:
    return Kind::And;
  }
}

/// The identity of `kind` on `element` (the original, possibly unsigned,
/// element type), as a constant of the signless `type`.
Value identity(OpBuilder &b, Location loc, Kind kind, Type element,
               Type type) {
  if (auto floatType = dyn_cast<FloatType>(element)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    APFloat value = kind == Kind::Sum   ? APFloat::getZero(sem)
                    : kind == Kind::Prod ? APFloat::getOne(sem)
                    : APFloat::getInf(sem, /*Negative=*/kind == Kind::Max);
    return arith::ConstantOp::create(b, loc, FloatAttr::get(type, value));
  }
  unsigned width = type.getIntOrFloatBitWidth();
  bool isUnsigned = element.isUnsignedInteger();
  APInt value;
  switch (kind) {
  case Kind::Sum:
  case Kind::Or:
    value = APInt::getZero(width);
    break;
  case Kind::Prod:
    value = APInt(width, 1);
    break;
  case Kind::Max:
    value = isUnsigned ? APInt::getZero(width)
                       : APInt::getSignedMinValue(width);
    break;
  case Kind::Min:
    value = isUnsigned ? APInt::getMaxValue(width)
                       : APInt::getSignedMaxValue(width);
    break;
  case Kind::And:
    value = APInt::getAllOnes(width);
    break;
  }
  return intConstant(b, loc, type, value);
}

/// Combines the accumulator with one element; floats propagate NaN.
Value combine(OpBuilder &b, Location loc, Kind kind, Type element, Value x,
              Value acc) {
  if (isa<FloatType>(element)) {
    switch (kind) {
    case Kind::Sum:
      return arith::AddFOp::create(b, loc, x, acc);
    case Kind::Prod:
      return arith::MulFOp::create(b, loc, x, acc);
    case Kind::Max:
      return arith::MaximumFOp::create(b, loc, x, acc);
    default:
      return arith::MinimumFOp::create(b, loc, x, acc);
    }
  }
  bool isUnsigned = element.isUnsignedInteger();
  switch (kind) {
  case Kind::Sum:
    return arith::AddIOp::create(b, loc, x, acc);
  case Kind::Prod:
    return arith::MulIOp::create(b, loc, x, acc);
  case Kind::Max:
    return isUnsigned ? Value(arith::MaxUIOp::create(b, loc, x, acc))
                      : Value(arith::MaxSIOp::create(b, loc, x, acc));
  case Kind::Min:
    return isUnsigned ? Value(arith::MinUIOp::create(b, loc, x, acc))
                      : Value(arith::MinSIOp::create(b, loc, x, acc));
  case Kind::And:
    return arith::AndIOp::create(b, loc, x, acc);
  case Kind::Or:
    return arith::OrIOp::create(b, loc, x, acc);
  }
  llvm_unreachable("unknown reduce kind");
}

struct ReduceLowering : OpConversionPattern<hlo::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    Type element = getElementTypeOrSelf(op.getOperand().getType());
    Kind kind = op.getKind();
    if (element.isInteger(1))
      kind = boolKind(kind);
    else if (isa<FloatType>(element) &&
             (kind == Kind::And || kind == Kind::Or))
      return rewriter.notifyMatchFailure(op, "bitwise reduction of floats");
    if (op.getDimensions().empty()) {
      rewriter.replaceOp(op, adaptor.getOperand());
      return success();
    }

    Location loc = op.getLoc();
    Type type = resultType.getElementType();
    Value init = linalg::FillOp::create(
                     rewriter, loc,
                     ValueRange{identity(rewriter, loc, kind, element, type)},
                     ValueRange{emptyTensor(rewriter, loc, resultType)})
                     .getResult(0);
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, ValueRange{adaptor.getOperand()}, ValueRange{init},
        op.getDimensions(), [&](OpBuilder &b, Location l, ValueRange args) {
          Value next = combine(b, l, kind, element, args[0], args[1]);
          linalg::YieldOp::create(b, l, next);
        });
    rewriter.replaceOp(op, reduce->getResult(0));
    return success();
  }
};

} // namespace

void numlir::hlo_to_linalg::populateReductionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReduceLowering>(converter, patterns.getContext());
}
