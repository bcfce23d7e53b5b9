//===- WindowToLinalg.cpp - reduce_window and convolution to linalg -------===//
//
// Both ops first materialize their padded, dilated input: a linalg.generic
// over the padded shape that reads the operand where an index lands on an
// element and yields the fill value (the reduction identity, or zero)
// elsewhere. Negative padding simply cuts. This needs no strided
// insert_slice, whose bufferized copy would call a runtime helper. The
// window loop is then one linalg.generic whose input map is
// `out * stride + window * dilation`, with the window dimensions as
// reduction iterators. Convolution groups become an extra loop after
// tensor.expand_shape splits the grouped dimensions.
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace numlir::hlo_to_linalg;
namespace hlo = numlir::hlo;
using Kind = hlo::ReduceKind;

namespace {

//===----------------------------------------------------------------------===//
// Padding and base dilation
//===----------------------------------------------------------------------===//

Value filled(OpBuilder &b, Location loc, RankedTensorType type, Value fill) {
  return linalg::FillOp::create(b, loc, ValueRange{fill},
                                ValueRange{emptyTensor(b, loc, type)})
      .getResult(0);
}

/// Negative padding as a crop of the input: for each dim, the kept input
/// elements [first, first + count) and the non-negative padding that
/// remains around them; nullopt if no element is kept in some dim.
/// Afterwards every index the padding code computes lies in [-size, size]
/// of the padded dim, so nothing overflows even for paddings near +-2^63
/// that cancel out (the verifier bounds only their sum).
struct CroppedPadding {
  SmallVector<int64_t> first, count, low, high;
};
std::optional<CroppedPadding> cropNegativePadding(ArrayRef<int64_t> shape,
                                                  ArrayRef<int64_t> low,
                                                  ArrayRef<int64_t> high,
                                                  ArrayRef<int64_t> dilation) {
  CroppedPadding result;
  for (auto [d, size] : llvm::enumerate(shape)) {
    uint64_t step = dilation[d];
    // The dilated input D has `dilated` positions; element j is at j * step.
    uint64_t dilated = size == 0 ? 0 : (size - 1) * step + 1;
    uint64_t cropFront = low[d] < 0 ? 0 - static_cast<uint64_t>(low[d]) : 0;
    uint64_t cropBack = high[d] < 0 ? 0 - static_cast<uint64_t>(high[d]) : 0;
    if (cropFront >= dilated || cropBack >= dilated - cropFront)
      return std::nullopt;
    // Kept positions [cropFront, keptEnd) hold elements [first, last).
    uint64_t keptEnd = dilated - cropBack;
    uint64_t first = cropFront / step + (cropFront % step != 0);
    uint64_t last = (keptEnd - 1) / step + 1;
    if (first >= last)
      return std::nullopt;
    result.first.push_back(first);
    result.count.push_back(last - first);
    result.low.push_back(std::max<int64_t>(low[d], 0) +
                         static_cast<int64_t>(first * step - cropFront));
    result.high.push_back(std::max<int64_t>(high[d], 0) +
                          static_cast<int64_t>(keptEnd - ((last - 1) * step + 1)));
  }
  return result;
}

/// `input` with `dilation[d] - 1` copies of `fill` between its elements
/// along each dimension d, then padded by `low[d]`/`high[d]` copies of
/// `fill` (a negative count removes elements). Returns `input` itself when
/// there is nothing to do.
Value padAndDilate(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> edgeLow, ArrayRef<int64_t> edgeHigh,
                   ArrayRef<int64_t> dilation, Value fill) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> shape;
  bool identityMap = true;
  for (int64_t d = 0; d < rank; ++d) {
    // Sizes and (low + high) fit int64 (checked by the verifier).
    int64_t size = inputType.getDimSize(d);
    int64_t dilated = size == 0 ? 0 : (size - 1) * dilation[d] + 1;
    shape.push_back(dilated + (edgeLow[d] + edgeHigh[d]));
    identityMap &= edgeLow[d] == 0 && edgeHigh[d] == 0 && dilation[d] == 1;
  }
  if (identityMap)
    return input;
  auto paddedType = RankedTensorType::get(shape, inputType.getElementType());
  std::optional<CroppedPadding> cropped =
      inputType.getNumElements() == 0
          ? std::nullopt
          : cropNegativePadding(inputType.getShape(), edgeLow, edgeHigh,
                                dilation);
  if (!cropped)
    return filled(b, loc, paddedType, fill);
  if (ArrayRef(cropped->count) != inputType.getShape()) {
    SmallVector<int64_t> ones(rank, 1);
    input = tensor::ExtractSliceOp::create(
        b, loc,
        RankedTensorType::get(cropped->count, inputType.getElementType()),
        input, ValueRange{}, ValueRange{}, ValueRange{},
        b.getDenseI64ArrayAttr(cropped->first),
        b.getDenseI64ArrayAttr(cropped->count), b.getDenseI64ArrayAttr(ones));
  }
  auto type = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> low = cropped->low, high = cropped->high;
  if (llvm::all_of(llvm::concat<const int64_t>(low, high),
                   [](int64_t v) { return v == 0; }) &&
      llvm::all_of(dilation, [](int64_t v) { return v == 1; }))
    return input;

  // out[i] = in[(i - low) / dilation] where that is an element, else fill.
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{paddedType}, ValueRange{},
      ValueRange{emptyTensor(b, loc, paddedType)}, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value valid;
        SmallVector<Value> indices;
        Value zero = arith::ConstantIndexOp::create(nb, nl, 0);
        for (int64_t d = 0; d < rank; ++d) {
          Value index = linalg::IndexOp::create(nb, nl, d);
          if (low[d] == 0 && high[d] == 0 && dilation[d] == 1) {
            indices.push_back(index);
            continue;
          }
          Value source = arith::SubIOp::create(
              nb, nl, index, arith::ConstantIndexOp::create(nb, nl, low[d]));
          Value stride = arith::ConstantIndexOp::create(nb, nl, dilation[d]);
          Value holeCheck;
          if (dilation[d] != 1) {
            holeCheck = arith::CmpIOp::create(
                nb, nl, arith::CmpIPredicate::eq,
                arith::RemSIOp::create(nb, nl, source, stride), zero);
            source = arith::DivSIOp::create(nb, nl, source, stride);
          }
          // Range checks are only needed where padding is positive; an
          // out-of-range index is clamped to 0, so no read goes astray.
          SmallVector<Value> rangeChecks;
          if (low[d] > 0)
            rangeChecks.push_back(arith::CmpIOp::create(
                nb, nl, arith::CmpIPredicate::sge, index,
                arith::ConstantIndexOp::create(nb, nl, low[d])));
          if (high[d] > 0)
            rangeChecks.push_back(arith::CmpIOp::create(
                nb, nl, arith::CmpIPredicate::slt, source,
                arith::ConstantIndexOp::create(nb, nl, type.getDimSize(d))));
          Value inRange;
          for (Value check : rangeChecks)
            inRange = inRange ? arith::AndIOp::create(nb, nl, inRange, check)
                              : check;
          if (inRange)
            source = arith::SelectOp::create(nb, nl, inRange, source, zero);
          indices.push_back(source);
          for (Value check : {inRange, holeCheck})
            if (check)
              valid = valid ? arith::AndIOp::create(nb, nl, valid, check)
                            : check;
        }
        Value result = tensor::ExtractOp::create(nb, nl, input, indices);
        if (valid) // else only negative padding: every index is an element
          result = arith::SelectOp::create(nb, nl, valid, result, fill);
        linalg::YieldOp::create(nb, nl, result);
      });
  return generic.getResult(0);
}

//===----------------------------------------------------------------------===//
// reduce_window
//===----------------------------------------------------------------------===//

struct ReduceWindowLowering : ReductionLowering<hlo::ReduceWindowOp> {
  using ReductionLowering::ReductionLowering;

  LogicalResult rewrite(hlo::ReduceWindowOp op, Adaptor adaptor,
                        const ReductionParts &parts,
                        ConversionPatternRewriter &rewriter) const override {
    auto [resultType, element, kind] = parts;

    Location loc = op.getLoc();
    // No windows: linalg would reject the window loop's input map.
    if (resultType.getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, resultType));
      return success();
    }
    Type type = resultType.getElementType();
    Value init = reduceIdentity(rewriter, loc, kind, element, type);
    int64_t rank = resultType.getRank();
    SmallVector<int64_t> low, high;
    for (auto [l, h] : op.getPaddingPairs()) {
      low.push_back(l);
      high.push_back(h);
    }
    Value padded = padAndDilate(rewriter, loc, adaptor.getOperand(), low,
                                high, op.getBaseDilations(), init);

    // Loops: the result dims (parallel), then the window dims (reduction).
    MLIRContext *ctx = getContext();
    int64_t numLoops = 2 * rank;
    SmallVector<AffineExpr> inputExprs;
    for (int64_t d = 0; d < rank; ++d)
      inputExprs.push_back(getAffineDimExpr(d, ctx) * op.getWindowStrides()[d] +
                           getAffineDimExpr(rank + d, ctx) *
                               op.getWindowDilations()[d]);
    SmallVector<AffineMap> maps = {
        AffineMap::get(numLoops, 0, inputExprs, ctx),
        AffineMap::getMultiDimIdentityMap(numLoops, ctx).getSliceMap(rank,
                                                                     rank),
        AffineMap::getMultiDimIdentityMap(numLoops, ctx).getSliceMap(0, rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.append(rank, utils::IteratorType::reduction);
    // The window operand only gives the loops their sizes.
    Value window = tensor::EmptyOp::create(rewriter, loc,
                                           op.getWindowDimensions(), type);
    rewriter.replaceOpWithNewOp<linalg::GenericOp>(
        op, TypeRange{resultType}, ValueRange{padded, window},
        ValueRange{filled(rewriter, loc, resultType, init)}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(
              b, l, reduceCombine(b, l, kind, element, args[0], args[2]));
        });
    return success();
  }
};

//===----------------------------------------------------------------------===//
// convolution
//===----------------------------------------------------------------------===//

/// Splits dimension `dim` of `value` into (`groups`, size / `groups`).
Value splitDim(OpBuilder &b, Location loc, Value value, int64_t dim,
               int64_t groups) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t next = shape.size();
    if (d == dim) {
      shape.append({groups, type.getDimSize(d) / groups});
      reassociation.push_back({next, next + 1});
    } else {
      shape.push_back(type.getDimSize(d));
      reassociation.push_back({next});
    }
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      reassociation);
}

struct ConvolutionLowering : OpConversionPattern<hlo::ConvolutionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::ConvolutionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedTensorType(getTypeConverter(), op.getType());
    Location loc = op.getLoc();
    if (resultType.getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, resultType));
      return success();
    }
    MLIRContext *ctx = getContext();
    Type type = resultType.getElementType();
    bool isFloat = isa<FloatType>(type);
    Value zero = isFloat ? floatConstant(rewriter, loc, type, 0.0)
                         : intConstant(rewriter, loc, type, 0);

    int64_t rank = resultType.getRank();
    int64_t numSpatial = rank - 2;
    ArrayRef<int64_t> lhsSpatial = op.getInputSpatialDimensions();
    ArrayRef<int64_t> rhsSpatial = op.getKernelSpatialDimensions();
    ArrayRef<int64_t> outSpatial = op.getOutputSpatialDimensions();
    int64_t featureGroups = op.getFeatureGroupCount();
    int64_t batchGroups = op.getBatchGroupCount();
    int64_t groups = featureGroups * batchGroups; // one of them is 1

    // Pad and dilate the lhs spatial dimensions with zeros.
    SmallVector<int64_t> low(rank, 0), high(rank, 0), dilation(rank, 1);
    for (auto [s, pad] : llvm::enumerate(op.getPaddingPairs())) {
      low[lhsSpatial[s]] = pad.first;
      high[lhsSpatial[s]] = pad.second;
      dilation[lhsSpatial[s]] = op.getLhsDilation()[s];
    }
    Value lhs = padAndDilate(rewriter, loc, adaptor.getLhs(), low, high,
                             dilation, zero);
    Value rhs = adaptor.getRhs();

    // Loops: out batch, [group], out feature (in group), out spatial...
    // (parallel); kernel input feature, kernel spatial... (reduction).
    int64_t next = 0;
    AffineExpr batch = getAffineDimExpr(next++, ctx);
    std::optional<AffineExpr> group;
    if (groups > 1)
      group = getAffineDimExpr(next++, ctx);
    AffineExpr outFeature = getAffineDimExpr(next++, ctx);
    SmallVector<AffineExpr> outPos, kernelPos;
    for (int64_t s = 0; s < numSpatial; ++s)
      outPos.push_back(getAffineDimExpr(next++, ctx));
    int64_t numParallel = next;
    AffineExpr inFeature = getAffineDimExpr(next++, ctx);
    for (int64_t s = 0; s < numSpatial; ++s)
      kernelPos.push_back(getAffineDimExpr(next++, ctx));
    int64_t numLoops = next;

    // The indexing expressions of each operand, with grouped dims split.
    SmallVector<AffineExpr> lhsExprs(rank), rhsExprs(rank), outExprs(rank);
    SmallVector<SmallVector<AffineExpr, 2>> lhsDims(rank), rhsDims(rank),
        outDims(rank);
    auto withGroup = [&](bool split, AffineExpr e) {
      return split ? SmallVector<AffineExpr, 2>{*group, e}
                   : SmallVector<AffineExpr, 2>{e};
    };
    lhsDims[op.getInputBatchDimension()] = withGroup(batchGroups > 1, batch);
    lhsDims[op.getInputFeatureDimension()] =
        withGroup(featureGroups > 1, inFeature);
    rhsDims[op.getKernelInputFeatureDimension()] = {inFeature};
    rhsDims[op.getKernelOutputFeatureDimension()] =
        withGroup(groups > 1, outFeature);
    outDims[op.getOutputBatchDimension()] = {batch};
    outDims[op.getOutputFeatureDimension()] = withGroup(groups > 1, outFeature);
    for (int64_t s = 0; s < numSpatial; ++s) {
      lhsDims[lhsSpatial[s]] = {outPos[s] * op.getWindowStrides()[s] +
                                kernelPos[s] * op.getRhsDilation()[s]};
      rhsDims[rhsSpatial[s]] = {kernelPos[s]};
      outDims[outSpatial[s]] = {outPos[s]};
    }
    auto flatten = [&](ArrayRef<SmallVector<AffineExpr, 2>> dims) {
      SmallVector<AffineExpr> exprs;
      for (const auto &d : dims)
        llvm::append_range(exprs, d);
      return AffineMap::get(numLoops, 0, exprs, ctx);
    };

    if (batchGroups > 1)
      lhs = splitDim(rewriter, loc, lhs, op.getInputBatchDimension(),
                     batchGroups);
    if (featureGroups > 1)
      lhs = splitDim(rewriter, loc, lhs, op.getInputFeatureDimension(),
                     featureGroups);
    if (groups > 1)
      rhs = splitDim(rewriter, loc, rhs, op.getKernelOutputFeatureDimension(),
                     groups);
    Value init = filled(rewriter, loc, resultType, zero);
    if (groups > 1)
      init = splitDim(rewriter, loc, init, op.getOutputFeatureDimension(),
                      groups);

    SmallVector<utils::IteratorType> iterators(numParallel,
                                               utils::IteratorType::parallel);
    iterators.append(numLoops - numParallel, utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{lhs, rhs},
        ValueRange{init},
        SmallVector<AffineMap>{flatten(lhsDims), flatten(rhsDims),
                               flatten(outDims)},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value sum;
          if (isFloat) {
            Value product = arith::MulFOp::create(b, l, args[0], args[1]);
            sum = arith::AddFOp::create(b, l, args[2], product);
          } else {
            Value product = arith::MulIOp::create(b, l, args[0], args[1]);
            sum = arith::AddIOp::create(b, l, args[2], product);
          }
          linalg::YieldOp::create(b, l, sum);
        });
    Value result = generic.getResult(0);
    if (groups > 1) {
      SmallVector<ReassociationIndices> reassociation;
      int64_t featureDim = op.getOutputFeatureDimension();
      for (int64_t d = 0, pos = 0; d < rank; ++d) {
        if (d == featureDim) {
          reassociation.push_back({pos, pos + 1});
          pos += 2;
        } else {
          reassociation.push_back({pos++});
        }
      }
      result = tensor::CollapseShapeOp::create(rewriter, loc, resultType,
                                               result, reassociation);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void numlir::hlo_to_linalg::populateWindowPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReduceWindowLowering, ConvolutionLowering>(
      converter, patterns.getContext());
}
