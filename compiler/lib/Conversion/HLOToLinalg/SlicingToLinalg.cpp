//===- SlicingToLinalg.cpp - slicing, gather and scatter to tensor/linalg -===//
//
// Static slices, pads and concatenations become tensor.extract_slice /
// insert_slice with static offsets; dynamic slices clamp their run-time
// starts first, so every access stays in bounds; reverse and gather are
// generics over the result; scatter is a loop over update windows that
// skips windows outside the operand, so duplicates apply in order.
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace numlir::hlo_to_linalg;
namespace hlo = numlir::hlo;

namespace {

bool isUnsignedElement(Value hloValue) {
  Type element = cast<RankedTensorType>(hloValue.getType()).getElementType();
  return element.isUnsignedInteger() || element.isInteger(1);
}

/// A scalar integer as i64: sign-extended, or zero-extended if unsigned.
Value toI64(OpBuilder &b, Location loc, Value scalar, bool isUnsigned) {
  Type i64 = b.getI64Type();
  if (scalar.getType() == i64)
    return scalar;
  if (isUnsigned)
    return arith::ExtUIOp::create(b, loc, i64, scalar);
  return arith::ExtSIOp::create(b, loc, i64, scalar);
}

/// min(max(x, 0), upper) as an index, reading x as signed or unsigned, so
/// that any start index becomes a valid one, as in XLA.
Value clampToIndex(OpBuilder &b, Location loc, Value scalar, bool isUnsigned,
                   int64_t upper) {
  Value wide = toI64(b, loc, scalar, isUnsigned);
  Value hi = intConstant(b, loc, b.getI64Type(), upper);
  Value clamped;
  if (isUnsigned) {
    clamped = arith::MinUIOp::create(b, loc, wide, hi);
  } else {
    Value zero = intConstant(b, loc, b.getI64Type(), 0);
    clamped = arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, wide, zero), hi);
  }
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), clamped);
}

/// Reads a rank-0 tensor.
Value extractScalar(OpBuilder &b, Location loc, Value tensor) {
  return tensor::ExtractOp::create(b, loc, tensor, ValueRange{});
}

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// The row-major multi-index of `linear` in `shape`.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> shape) {
  SmallVector<Value> index(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    Value size = indexConstant(b, loc, shape[d]);
    index[d] = d == 0 ? linear : arith::RemUIOp::create(b, loc, linear, size);
    if (d > 0)
      linear = arith::DivUIOp::create(b, loc, linear, size);
  }
  return index;
}

SmallVector<OpFoldResult> staticValues(OpBuilder &b, ArrayRef<int64_t> values) {
  return llvm::map_to_vector(values, [&](int64_t v) -> OpFoldResult {
    return b.getIndexAttr(v);
  });
}

/// A copy of a static or dynamic slice of `source` in a fresh tensor.
/// Returning the extract_slice itself would bufferize to a strided view,
/// and copying a strided view out needs a runtime helper (memrefCopy) that
/// numlir executables do not link; linalg.copy lowers to plain loops.
Value copySlice(OpBuilder &b, Location loc, RankedTensorType type,
                Value source, ArrayRef<OpFoldResult> offsets,
                ArrayRef<int64_t> strides) {
  Value slice = tensor::ExtractSliceOp::create(
      b, loc, type, source, offsets, staticValues(b, type.getShape()),
      staticValues(b, strides));
  return linalg::CopyOp::create(b, loc, slice, emptyTensor(b, loc, type))
      .getResult(0);
}

/// `source` written into `dest` at a static strided slice. The copy into
/// an extract_slice of `dest` and the matching insert_slice bufferize to a
/// loop writing straight into `dest`'s buffer (a bare insert_slice would
/// copy into a strided view, see copySlice). `dest` must be a fresh tensor.
Value insertIntoSlice(OpBuilder &b, Location loc, Value source, Value dest,
                      ArrayRef<int64_t> offsets, ArrayRef<int64_t> strides) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> offsetValues = staticValues(b, offsets);
  SmallVector<OpFoldResult> sizes = staticValues(b, sourceType.getShape());
  SmallVector<OpFoldResult> strideValues = staticValues(b, strides);
  Value window = tensor::ExtractSliceOp::create(
      b, loc, sourceType, dest, offsetValues, sizes, strideValues);
  Value copied =
      linalg::CopyOp::create(b, loc, source, window).getResult(0);
  return tensor::InsertSliceOp::create(b, loc, copied, dest, offsetValues,
                                       sizes, strideValues);
}

/// Results with no elements need no computation.
bool replaceIfEmpty(Operation *op, RankedTensorType type,
                    ConversionPatternRewriter &rewriter) {
  if (type.getNumElements() != 0)
    return false;
  rewriter.replaceOp(op, emptyTensor(rewriter, op->getLoc(), type));
  return true;
}

struct SliceLowering : OpConversionPattern<hlo::SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type =
        convertedTensorType(getTypeConverter(), op.getType());
    if (replaceIfEmpty(op, type, rewriter))
      return success();
    rewriter.replaceOp(op, copySlice(rewriter, op.getLoc(), type,
                                     adaptor.getOperand(),
                                     staticValues(rewriter, op.getStartIndices()),
                                     op.getStrides()));
    return success();
  }
};

/// The clamped start offsets of a dynamic (update) slice of `sizes`.
SmallVector<OpFoldResult> clampedStarts(OpBuilder &b, Location loc,
                                        ValueRange hloIndices,
                                        ValueRange indices,
                                        ArrayRef<int64_t> operandShape,
                                        ArrayRef<int64_t> sizes) {
  SmallVector<OpFoldResult> starts;
  for (auto [d, index] : llvm::enumerate(indices)) {
    // A slice as large as the dimension can only start at 0.
    if (sizes[d] == operandShape[d]) {
      starts.push_back(b.getIndexAttr(0));
      continue;
    }
    starts.push_back(clampToIndex(b, loc, extractScalar(b, loc, index),
                                  isUnsignedElement(hloIndices[d]),
                                  operandShape[d] - sizes[d]));
  }
  return starts;
}

struct DynamicSliceLowering : OpConversionPattern<hlo::DynamicSliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::DynamicSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type =
        convertedTensorType(getTypeConverter(), op.getType());
    if (replaceIfEmpty(op, type, rewriter))
      return success();
    SmallVector<OpFoldResult> starts = clampedStarts(
        rewriter, op.getLoc(), op.getStartIndices(),
        adaptor.getStartIndices(), op.getOperand().getType().getShape(),
        op.getSliceSizes());
    SmallVector<int64_t> ones(type.getRank(), 1);
    rewriter.replaceOp(op, copySlice(rewriter, op.getLoc(), type,
                                     adaptor.getOperand(), starts, ones));
    return success();
  }
};

/// A loop nest over the update that writes each element into the operand
/// at the clamped start; it bufferizes in place where the operand's buffer
/// may be overwritten.
struct DynamicUpdateSliceLowering
    : OpConversionPattern<hlo::DynamicUpdateSliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::DynamicUpdateSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> updateShape = op.getUpdate().getType().getShape();
    if (op.getUpdate().getType().getNumElements() == 0) {
      rewriter.replaceOp(op, adaptor.getOperand());
      return success();
    }
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> starts = clampedStarts(
        rewriter, loc, op.getStartIndices(), adaptor.getStartIndices(),
        op.getOperand().getType().getShape(), updateShape);
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t size : updateShape) {
      lbs.push_back(indexConstant(rewriter, loc, 0));
      ubs.push_back(indexConstant(rewriter, loc, size));
      steps.push_back(indexConstant(rewriter, loc, 1));
    }
    Value update = adaptor.getUpdate();
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, ValueRange{adaptor.getOperand()},
        [&](OpBuilder &b, Location loc, ValueRange ivs,
            ValueRange acc) -> scf::ValueVector {
          SmallVector<Value> position;
          for (auto [iv, start] : llvm::zip_equal(ivs, starts))
            position.push_back(arith::AddIOp::create(
                b, loc, iv, getValueOrCreateConstantIndexOp(b, loc, start)));
          Value value = tensor::ExtractOp::create(b, loc, update, ivs);
          return {tensor::InsertOp::create(b, loc, value, acc[0], position)};
        });
    rewriter.replaceOp(op, nest.results);
    return success();
  }
};

/// Each input is inserted into a tensor.empty at its running offset.
struct ConcatenateLowering : OpConversionPattern<hlo::ConcatenateOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::ConcatenateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type =
        convertedTensorType(getTypeConverter(), op.getType());
    if (replaceIfEmpty(op, type, rewriter))
      return success();
    Location loc = op.getLoc();
    int64_t dim = op.getDimension();
    Value result = emptyTensor(rewriter, loc, type);
    SmallVector<int64_t> offsets(type.getRank(), 0), ones(type.getRank(), 1);
    for (Value input : adaptor.getInputs()) {
      auto inputType = cast<RankedTensorType>(input.getType());
      if (inputType.getNumElements() != 0)
        result = insertIntoSlice(rewriter, loc, input, result, offsets, ones);
      offsets[dim] += inputType.getDimSize(dim);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Fills the result with the padding value and inserts, with stride
/// interior + 1, the operand elements that land inside the result.
/// Operand element j of dim d lands at low + j * (interior + 1).
struct PadLowering : OpConversionPattern<hlo::PadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type =
        convertedTensorType(getTypeConverter(), op.getType());
    if (replaceIfEmpty(op, type, rewriter))
      return success();
    Location loc = op.getLoc();
    Value padding = extractScalar(rewriter, loc, adaptor.getPaddingValue());
    Value result =
        linalg::FillOp::create(rewriter, loc, padding,
                               emptyTensor(rewriter, loc, type))
            .getResult(0);

    ArrayRef<int64_t> shape = op.getOperand().getType().getShape();
    SmallVector<int64_t> first, count, ones, offsets, strides;
    for (auto [d, size] : llvm::enumerate(shape)) {
      // The verifier bounds low + (size - 1) * step + 1 + high, not each
      // term: low may be near INT64_MIN, and the interior padding of a dim
      // of size 1 (which has no interior) may be INT64_MAX. Unsigned
      // arithmetic is exact for every intermediate here.
      int64_t low = op.getEdgePaddingLow()[d];
      int64_t resultSize = type.getDimSize(d);
      uint64_t step =
          size <= 1 ? 1 : static_cast<uint64_t>(op.getInteriorPadding()[d]) + 1;
      if (low >= resultSize) {
        rewriter.replaceOp(op, result);
        return success();
      }
      // The operand elements j in [begin, end) land in [0, result size).
      uint64_t negLow = low >= 0 ? 0 : 0 - static_cast<uint64_t>(low);
      uint64_t begin = negLow / step + (negLow % step != 0);
      uint64_t last = static_cast<uint64_t>(resultSize - 1) -
                      static_cast<uint64_t>(low); // resultSize - 1 - low
      uint64_t end = std::min<uint64_t>(size, last / step + 1);
      if (begin >= end) {
        rewriter.replaceOp(op, result);
        return success();
      }
      first.push_back(begin);
      count.push_back(end - begin);
      ones.push_back(1);
      offsets.push_back(
          static_cast<int64_t>(static_cast<uint64_t>(low) + begin * step));
      strides.push_back(end - begin == 1 ? 1 : step);
    }
    Value source = adaptor.getOperand();
    if (ArrayRef(count) != shape)
      source = tensor::ExtractSliceOp::create(
          rewriter, loc, RankedTensorType::get(count, type.getElementType()),
          source, staticValues(rewriter, first), staticValues(rewriter, count),
          staticValues(rewriter, ones));
    rewriter.replaceOp(
        op, insertIntoSlice(rewriter, loc, source, result, offsets, strides));
    return success();
  }
};

/// A generic whose input map reads reversed dims at size - 1 - i.
struct ReverseLowering : OpConversionPattern<hlo::ReverseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::ReverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type =
        convertedTensorType(getTypeConverter(), op.getType());
    if (replaceIfEmpty(op, type, rewriter))
      return success();
    MLIRContext *ctx = getContext();
    int64_t rank = type.getRank();
    SmallVector<AffineExpr> inputExprs;
    for (int64_t d = 0; d < rank; ++d)
      inputExprs.push_back(getAffineDimExpr(d, ctx));
    for (int64_t d : op.getDimensions())
      inputExprs[d] = type.getDimSize(d) - 1 - getAffineDimExpr(d, ctx);
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, inputExprs, ctx),
                                   AffineMap::getMultiDimIdentityMap(rank, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value init = emptyTensor(rewriter, op.getLoc(), type);
    rewriter.replaceOpWithNewOp<linalg::GenericOp>(
        op, TypeRange{type}, ValueRange{adaptor.getOperand()},
        ValueRange{init}, maps, iterators,
        [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args[0]);
        });
    return success();
  }
};

/// Reads entry `k` of the index vector at `batch` (the indices' position
/// without index_vector_dim) as a scalar.
Value readIndexVectorEntry(OpBuilder &b, Location loc, Value indices,
                           ArrayRef<Value> batch, int64_t indexVectorDim,
                           int64_t k) {
  SmallVector<Value> position(batch);
  int64_t rank = cast<RankedTensorType>(indices.getType()).getRank();
  if (indexVectorDim < rank)
    position.insert(position.begin() + indexVectorDim,
                    indexConstant(b, loc, k));
  return tensor::ExtractOp::create(b, loc, indices, position);
}

/// A generic over the result: each element finds its index vector, clamps
/// the slice start into the operand, adds its offset in the slice and
/// reads the operand there.
struct GatherLowering : OpConversionPattern<hlo::GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type =
        convertedTensorType(getTypeConverter(), op.getType());
    if (replaceIfEmpty(op, type, rewriter))
      return success();
    ArrayRef<int64_t> operandShape = op.getOperand().getType().getShape();
    int64_t operandRank = operandShape.size();
    int64_t resultRank = type.getRank();
    bool isUnsigned = isUnsignedElement(op.getStartIndices());
    llvm::SmallBitVector isOffset(resultRank), isCollapsed(operandRank);
    for (int64_t d : op.getOffsetDims())
      isOffset.set(d);
    for (int64_t d : op.getCollapsedSliceDims())
      isCollapsed.set(d);
    Value operand = adaptor.getOperand();
    Value indices = adaptor.getStartIndices();

    auto body = [&](OpBuilder &b, Location loc, ValueRange) -> Value {
      SmallVector<Value> batch, offset;
      for (int64_t d = 0; d < resultRank; ++d) {
        Value i = linalg::IndexOp::create(b, loc, d);
        (isOffset.test(d) ? offset : batch).push_back(i);
      }
      // Operand dims not collapsed take the offsets in order.
      SmallVector<Value> position(operandRank);
      for (int64_t d = 0, next = 0; d < operandRank; ++d)
        position[d] = isCollapsed.test(d) ? indexConstant(b, loc, 0)
                                          : offset[next++];
      for (auto [k, d] : llvm::enumerate(op.getStartIndexMap())) {
        Value entry = readIndexVectorEntry(b, loc, indices, batch,
                                           op.getIndexVectorDim(), k);
        Value start = clampToIndex(b, loc, entry, isUnsigned,
                                   operandShape[d] - op.getSliceSizes()[d]);
        position[d] = arith::AddIOp::create(b, loc, position[d], start);
      }
      return tensor::ExtractOp::create(b, loc, operand, position);
    };
    rewriter.replaceOp(op, buildElementwiseGeneric(rewriter, op.getLoc(),
                                                   type, {}, body));
    return success();
  }
};

Value combine(OpBuilder &b, Location loc, hlo::ScatterKind kind, Value old,
              Value update, bool isUnsigned) {
  bool isFloat = isa<FloatType>(old.getType());
  if (isa<ComplexType>(old.getType()) && kind != hlo::ScatterKind::Set) {
    // The verifier allows set, add and mul.
    if (kind == hlo::ScatterKind::Mul)
      return complex::MulOp::create(b, loc, old, update);
    return complex::AddOp::create(b, loc, old, update);
  }
  switch (kind) {
  case hlo::ScatterKind::Set:
    return update;
  case hlo::ScatterKind::Add:
    return isFloat ? arith::AddFOp::create(b, loc, old, update).getResult()
                   : arith::AddIOp::create(b, loc, old, update).getResult();
  case hlo::ScatterKind::Mul:
    return isFloat ? arith::MulFOp::create(b, loc, old, update).getResult()
                   : arith::MulIOp::create(b, loc, old, update).getResult();
  case hlo::ScatterKind::Min:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, old, update);
    return isUnsigned ? arith::MinUIOp::create(b, loc, old, update).getResult()
                      : arith::MinSIOp::create(b, loc, old, update).getResult();
  case hlo::ScatterKind::Max:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, old, update);
    return isUnsigned ? arith::MaxUIOp::create(b, loc, old, update).getResult()
                      : arith::MaxSIOp::create(b, loc, old, update).getResult();
  }
  llvm_unreachable("unknown scatter kind");
}

/// An scf.for over the index vectors, carrying the result tensor. Each
/// iteration reads the window start, checks that the whole window lies in
/// the operand and, if so, combines the window's elements one by one in an
/// inner scf.for.
struct ScatterLowering : OpConversionPattern<hlo::ScatterOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::ScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> operandShape = op.getOperand().getType().getShape();
    ArrayRef<int64_t> updatesShape = op.getUpdates().getType().getShape();
    int64_t operandRank = operandShape.size();
    int64_t updatesRank = updatesShape.size();
    if (op.getUpdates().getType().getNumElements() == 0) {
      rewriter.replaceOp(op, adaptor.getOperand());
      return success();
    }
    llvm::SmallBitVector isWindow(updatesRank), isInserted(operandRank);
    for (int64_t d : op.getUpdateWindowDims())
      isWindow.set(d);
    for (int64_t d : op.getInsertedWindowDims())
      isInserted.set(d);
    SmallVector<int64_t> batchShape, windowShape;
    for (auto [d, size] : llvm::enumerate(updatesShape))
      (isWindow.test(d) ? windowShape : batchShape).push_back(size);
    // The window's extent along each operand dim (1 where inserted).
    SmallVector<int64_t> windowExtent(operandRank, 1);
    for (int64_t d = 0, next = 0; d < operandRank; ++d)
      if (!isInserted.test(d))
        windowExtent[d] = windowShape[next++];

    bool indexUnsigned = isUnsignedElement(op.getScatterIndices());
    bool valueUnsigned = isUnsignedElement(op.getOperand());
    Value indices = adaptor.getScatterIndices();
    Value updates = adaptor.getUpdates();
    Value zero = indexConstant(rewriter, loc, 0);
    Value one = indexConstant(rewriter, loc, 1);
    Value numBatch =
        indexConstant(rewriter, loc, ShapedType::getNumElements(batchShape));
    Value numWindow =
        indexConstant(rewriter, loc, ShapedType::getNumElements(windowShape));
    Type i64 = rewriter.getI64Type();

    auto outer = scf::ForOp::create(
        rewriter, loc, zero, numBatch, one, ValueRange{adaptor.getOperand()},
        [&](OpBuilder &b, Location loc, Value p, ValueRange acc) {
          SmallVector<Value> batch = delinearize(b, loc, p, batchShape);
          SmallVector<Value> start(operandRank, zero);
          Value inBounds = arith::ConstantIntOp::create(b, loc, 1, 1);
          for (auto [k, d] :
               llvm::enumerate(op.getScatterDimsToOperandDims())) {
            Value entry = toI64(
                b, loc,
                readIndexVectorEntry(b, loc, indices, batch,
                                     op.getIndexVectorDim(), k),
                indexUnsigned);
            Value hi =
                intConstant(b, loc, i64, operandShape[d] - windowExtent[d]);
            Value ok = arith::CmpIOp::create(
                b, loc,
                indexUnsigned ? arith::CmpIPredicate::ule
                              : arith::CmpIPredicate::sle,
                entry, hi);
            if (!indexUnsigned)
              ok = arith::AndIOp::create(
                  b, loc, ok,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                        entry, intConstant(b, loc, i64, 0)));
            inBounds = arith::AndIOp::create(b, loc, inBounds, ok);
            start[d] = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                                  entry);
          }
          auto ifOp = scf::IfOp::create(
              b, loc, inBounds,
              [&](OpBuilder &b, Location loc) {
                auto inner = scf::ForOp::create(
                    b, loc, zero, numWindow, one, acc,
                    [&](OpBuilder &b, Location loc, Value w,
                        ValueRange target) {
                      SmallVector<Value> window =
                          delinearize(b, loc, w, windowShape);
                      SmallVector<Value> updatePos;
                      for (int64_t d = 0, nb = 0, nw = 0; d < updatesRank; ++d)
                        updatePos.push_back(isWindow.test(d) ? window[nw++]
                                                             : batch[nb++]);
                      SmallVector<Value> operandPos(start);
                      for (int64_t d = 0, nw = 0; d < operandRank; ++d)
                        if (!isInserted.test(d))
                          operandPos[d] = arith::AddIOp::create(
                              b, loc, start[d], window[nw++]);
                      Value update =
                          tensor::ExtractOp::create(b, loc, updates, updatePos);
                      Value old = tensor::ExtractOp::create(b, loc, target[0],
                                                            operandPos);
                      Value value = combine(b, loc, op.getKind(), old, update,
                                            valueUnsigned);
                      Value next = tensor::InsertOp::create(
                          b, loc, value, target[0], operandPos);
                      scf::YieldOp::create(b, loc, next);
                    });
                scf::YieldOp::create(b, loc, inner.getResults());
              },
              [&](OpBuilder &b, Location loc) {
                scf::YieldOp::create(b, loc, acc);
              });
          scf::YieldOp::create(b, loc, ifOp.getResults());
        });
    rewriter.replaceOp(op, outer.getResults());
    return success();
  }
};

} // namespace

void numlir::hlo_to_linalg::populateSlicingPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<SliceLowering, DynamicSliceLowering, DynamicUpdateSliceLowering,
               ConcatenateLowering, PadLowering, ReverseLowering,
               GatherLowering, ScatterLowering>(converter,
                                                patterns.getContext());
}
