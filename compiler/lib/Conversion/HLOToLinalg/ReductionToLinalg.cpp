//===- ReductionToLinalg.cpp - reduce, arg_reduce and cumulative ----------===//
//
// A reduction is a linalg.reduce over an init filled with the identity of
// its combiner, so reducing zero elements yields the identity. arg_reduce
// is a two-output linalg.generic; cumulative is a sequential scf.for scan.
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace numlir::hlo_to_linalg;
namespace hlo = numlir::hlo;
using Kind = hlo::ReduceKind;

namespace {

struct ReduceLowering : ReductionLowering<hlo::ReduceOp> {
  using ReductionLowering::ReductionLowering;

  LogicalResult rewrite(hlo::ReduceOp op, Adaptor adaptor,
                        const ReductionParts &parts,
                        ConversionPatternRewriter &rewriter) const override {
    auto [resultType, element, kind] = parts;
    if (op.getDimensions().empty()) {
      rewriter.replaceOp(op, adaptor.getOperand());
      return success();
    }

    Location loc = op.getLoc();
    Type type = resultType.getElementType();
    Value init = linalg::FillOp::create(
                     rewriter, loc,
                     ValueRange{reduceIdentity(rewriter, loc, kind, element, type)},
                     ValueRange{emptyTensor(rewriter, loc, resultType)})
                     .getResult(0);
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, ValueRange{adaptor.getOperand()}, ValueRange{init},
        op.getDimensions(), [&](OpBuilder &b, Location l, ValueRange args) {
          Value next = reduceCombine(b, l, kind, element, args[0], args[1]);
          linalg::YieldOp::create(b, l, next);
        });
    rewriter.replaceOp(op, reduce->getResult(0));
    return success();
  }
};

/// One linalg.generic with a reduction iterator over `dim` and two outputs,
/// the extreme value so far and its index. An element replaces the
/// accumulator when it is strictly more extreme (NaN beats every number),
/// or equally extreme at a smaller index, so the result is the first
/// occurrence whatever order the loop visits the elements in. The
/// accumulator starts at (identity, 0): an element equal to the identity
/// at index 0 then wins as it should.
struct ArgReduceLowering : OpConversionPattern<hlo::ArgReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::ArgReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value operand = adaptor.getOperand();
    auto operandType = cast<RankedTensorType>(operand.getType());
    RankedTensorType indexTensorType = op.getType();
    Type element = getElementTypeOrSelf(op.getOperand().getType());
    Type type = operandType.getElementType();
    Type indexType = indexTensorType.getElementType();
    bool isMax = op.getKind() == Kind::Max;
    int64_t rank = operandType.getRank(), dim = op.getDimension();

    Value initValue;
    if (element.isInteger(1))
      initValue = intConstant(rewriter, loc, type, isMax ? 0 : 1);
    else
      initValue = reduceIdentity(rewriter, loc, op.getKind(), element, type);
    auto valueTensorType = indexTensorType.clone(type);
    auto fill = [&](Value value, RankedTensorType tensorType) {
      return linalg::FillOp::create(
                 rewriter, loc, ValueRange{value},
                 ValueRange{emptyTensor(rewriter, loc, tensorType)})
          .getResult(0);
    };
    Value values = fill(initValue, valueTensorType);
    Value indices =
        fill(intConstant(rewriter, loc, indexType, 0), indexTensorType);

    SmallVector<AffineExpr> kept;
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim)
        kept.push_back(rewriter.getAffineDimExpr(d));
    AffineMap reduced = AffineMap::get(rank, 0, kept, rewriter.getContext());
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   reduced, reduced};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators[dim] = utils::IteratorType::reduction;
    bool isFloat = isa<FloatType>(element);
    bool isUnsigned = element.isUnsignedInteger() || element.isInteger(1);

    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueTensorType, indexTensorType},
        ValueRange{operand}, ValueRange{values, indices}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], accValue = args[1], accIndex = args[2];
          Value index = arith::IndexCastOp::create(
              b, l, indexType, linalg::IndexOp::create(b, l, dim));
          Value better, equal;
          if (isFloat) {
            using P = arith::CmpFPredicate;
            auto cmp = [&](P p, Value u, Value v) {
              return arith::CmpFOp::create(b, l, p, u, v);
            };
            Value xNaN = cmp(P::UNO, x, x);
            Value accNaN = cmp(P::UNO, accValue, accValue);
            Value accNumber = cmp(P::ORD, accValue, accValue);
            better = arith::OrIOp::create(
                b, l, cmp(isMax ? P::OGT : P::OLT, x, accValue),
                arith::AndIOp::create(b, l, xNaN, accNumber));
            equal = arith::OrIOp::create(
                b, l, cmp(P::OEQ, x, accValue),
                arith::AndIOp::create(b, l, xNaN, accNaN));
          } else {
            using P = arith::CmpIPredicate;
            P p = isMax ? (isUnsigned ? P::ugt : P::sgt)
                        : (isUnsigned ? P::ult : P::slt);
            better = arith::CmpIOp::create(b, l, p, x, accValue);
            equal = arith::CmpIOp::create(b, l, P::eq, x, accValue);
          }
          Value earlier = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                                index, accIndex);
          Value take = arith::OrIOp::create(
              b, l, better, arith::AndIOp::create(b, l, equal, earlier));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, x, accValue),
                         arith::SelectOp::create(b, l, take, index, accIndex)});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

/// An scf.for along `dim` (backwards when `reverse`) carrying the result.
/// The first slice is copied; step i combines operand slice i with result
/// slice i - 1 in a parallel generic. Slices enter the result through a
/// linalg.copy into the result's extract_slice, which bufferizes to loops
/// writing in place; a bare insert_slice would bufferize to a strided
/// memref.copy, which needs a runtime helper numlir executables do not link.
struct CumulativeLowering : OpConversionPattern<hlo::CumulativeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::CumulativeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value operand = adaptor.getOperand();
    auto type = cast<RankedTensorType>(operand.getType());
    Type element = getElementTypeOrSelf(op.getType());
    Kind kind = op.getKind();
    if (element.isInteger(1))
      kind = boolReduceKind(kind);
    int64_t rank = type.getRank(), dim = op.getDimension();
    int64_t size = type.getDimSize(dim);
    Value result = emptyTensor(rewriter, loc, type);
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, result);
      return success();
    }

    // Slices keep the scanned dimension (extent 1): a rank-reducing slice
    // type is ambiguous when other dimensions are 1 too, and folding the
    // loop of a length-2 axis re-inferred which dimension was dropped.
    SmallVector<int64_t> sliceShape(type.getShape());
    sliceShape[dim] = 1;
    auto sliceType = RankedTensorType::get(sliceShape, type.getElementType());
    SmallVector<OpFoldResult> sizes, strides(rank, rewriter.getIndexAttr(1));
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(rewriter.getIndexAttr(d == dim ? 1 : type.getDimSize(d)));
    auto offsetsAt = [&](OpFoldResult position) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[dim] = position;
      return offsets;
    };
    auto slice = [&](OpBuilder &b, Location l, Value source,
                     ArrayRef<OpFoldResult> offsets) -> Value {
      return tensor::ExtractSliceOp::create(b, l, sliceType, source, offsets,
                                            sizes, strides);
    };
    auto insert = [&](OpBuilder &b, Location l, Value source, Value dest,
                      ArrayRef<OpFoldResult> offsets) -> Value {
      Value copied =
          linalg::CopyOp::create(b, l, source, slice(b, l, dest, offsets))
              .getResult(0);
      return tensor::InsertSliceOp::create(b, l, copied, dest, offsets, sizes,
                                           strides);
    };

    bool reverse = op.getReverse();
    SmallVector<OpFoldResult> first =
        offsetsAt(rewriter.getIndexAttr(reverse ? size - 1 : 0));
    result = insert(rewriter, loc, slice(rewriter, loc, operand, first),
                    result, first);
    if (size > 1) {
      Value lower = arith::ConstantIndexOp::create(rewriter, loc, 1);
      Value upper = arith::ConstantIndexOp::create(rewriter, loc, size);
      Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
      auto loop = scf::ForOp::create(
          rewriter, loc, lower, upper, step, ValueRange{result},
          [&](OpBuilder &b, Location l, Value i, ValueRange iterArgs) {
            Value one = arith::ConstantIndexOp::create(b, l, 1);
            Value position = i, previous;
            if (reverse) {
              position = arith::SubIOp::create(
                  b, l, arith::ConstantIndexOp::create(b, l, size - 1), i);
              previous = arith::AddIOp::create(b, l, position, one);
            } else {
              previous = arith::SubIOp::create(b, l, position, one);
            }
            SmallVector<OpFoldResult> offsets = offsetsAt(position);
            Value next = buildElementwiseGeneric(
                b, l, sliceType,
                ValueRange{slice(b, l, operand, offsets),
                           slice(b, l, iterArgs[0], offsetsAt(previous))},
                [&](OpBuilder &nb, Location nl, ValueRange args) {
                  return reduceCombine(nb, nl, kind, element, args[0], args[1]);
                });
            scf::YieldOp::create(
                b, l, ValueRange{insert(b, l, next, iterArgs[0], offsets)});
          });
      result = loop.getResult(0);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

FailureOr<ReductionParts> numlir::hlo_to_linalg::matchReduction(
    Operation *op, Value operand, Kind kind, const TypeConverter *converter,
    ConversionPatternRewriter &rewriter) {
  Type element = getElementTypeOrSelf(operand.getType());
  if (element.isInteger(1))
    kind = boolReduceKind(kind);
  else if (isa<FloatType>(element) && (kind == Kind::And || kind == Kind::Or))
    return rewriter.notifyMatchFailure(op, "bitwise reduction of floats");
  return ReductionParts{
      convertedTensorType(converter, op->getResult(0).getType()), element,
      kind};
}

Kind numlir::hlo_to_linalg::boolReduceKind(Kind kind) {
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
Value numlir::hlo_to_linalg::reduceIdentity(OpBuilder &b, Location loc,
                                            Kind kind, Type element, Type type) {
  if (isa<ComplexType>(element)) // sum or prod
    return complexConstant(b, loc, type, kind == Kind::Prod ? 1.0 : 0.0, 0.0);
  if (auto floatType = dyn_cast<FloatType>(element)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    APFloat value = kind == Kind::Sum   ? APFloat::getZero(sem)
                    : kind == Kind::Prod ? APFloat::getOne(sem)
                    : APFloat::getInf(sem, /*Negative=*/kind == Kind::Max);
    return arith::ConstantOp::create(b, loc, FloatAttr::get(type, value));
  }
  unsigned width = type.getIntOrFloatBitWidth();
  bool isUnsigned = element.isUnsignedInteger() || width == 1;
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

/// Combines the accumulator with one element; floats propagate NaN. Float
/// combiners may be reassociated (as XLA does), which lets LLVM vectorize
/// reductions into several partial accumulators.
Value numlir::hlo_to_linalg::reduceCombine(OpBuilder &b, Location loc, Kind kind,
                                           Type element, Value x, Value acc) {
  if (isa<ComplexType>(element)) {
    auto reassoc = arith::FastMathFlags::reassoc;
    if (kind == Kind::Prod)
      return complex::MulOp::create(b, loc, x, acc, reassoc);
    return complex::AddOp::create(b, loc, x, acc, reassoc);
  }
  if (isa<FloatType>(element)) {
    auto reassoc = arith::FastMathFlags::reassoc;
    switch (kind) {
    case Kind::Sum:
      return arith::AddFOp::create(b, loc, x, acc, reassoc);
    case Kind::Prod:
      return arith::MulFOp::create(b, loc, x, acc, reassoc);
    case Kind::Max:
      return arith::MaximumFOp::create(b, loc, x, acc, reassoc);
    default:
      return arith::MinimumFOp::create(b, loc, x, acc, reassoc);
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


void numlir::hlo_to_linalg::populateReductionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReduceLowering, ArgReduceLowering, CumulativeLowering>(
      converter, patterns.getContext());
}
