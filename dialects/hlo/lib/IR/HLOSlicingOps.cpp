//===- HLOSlicingOps.cpp - verifiers and folders of slicing ops -----------===//
//
// slice, dynamic_slice, dynamic_update_slice, concatenate, pad, reverse,
// gather and scatter; the rules are in docs/hlo-dialect.md. Folders remove
// ops that do not change their operand and evaluate small constants.
//
//===----------------------------------------------------------------------===//

#include "HLOFormatting.h"
#include "HLOVerification.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace numlir::hlo;

/// Non-splat constants above this many elements are not folded.
constexpr int64_t kMaxFoldedElements = 1 << 16;

static LogicalResult verifyResultShape(Operation *op, ArrayRef<int64_t> shape,
                                       ArrayRef<int64_t> expected,
                                       StringRef why) {
  if (shape == expected)
    return success();
  return op->emitOpError("result shape ")
         << listString(shape) << " must be " << listString(expected) << " ("
         << why << ")";
}

/// Checks that `list` (the attribute `name`) has `rank` entries.
static LogicalResult verifyListSize(Operation *op, StringRef name,
                                    ArrayRef<int64_t> list, int64_t rank,
                                    StringRef ofWhat) {
  if (static_cast<int64_t>(list.size()) == rank)
    return success();
  return op->emitOpError() << name << " must have one entry per " << ofWhat
                           << " dimension, got " << list.size()
                           << " for rank " << rank;
}

/// Checks that `dims` (the attribute `name`) are in [0, rank), unique and,
/// if `sorted`, increasing.
static LogicalResult verifyDimList(Operation *op, StringRef name,
                                   ArrayRef<int64_t> dims, int64_t rank,
                                   StringRef ofWhat, bool sorted) {
  llvm::SmallBitVector seen(rank);
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= rank)
      return op->emitOpError()
             << name << " entry " << dim << " is out of range for " << ofWhat
             << " of rank " << rank;
    if (seen.test(dim))
      return op->emitOpError()
             << name << " " << listString(dims) << " repeats dimension "
             << dim;
    if (sorted && i > 0 && dim < dims[i - 1])
      return op->emitOpError()
             << name << " must be sorted, got " << listString(dims);
    seen.set(dim);
  }
  return success();
}

/// Start index operands are scalars of one integer type.
static LogicalResult verifyStartIndices(Operation *op, ValueRange indices,
                                        int64_t rank) {
  if (static_cast<int64_t>(indices.size()) != rank)
    return op->emitOpError("expected one start index per operand dimension, "
                           "got ")
           << indices.size() << " for an operand of rank " << rank;
  for (auto [i, index] : llvm::enumerate(indices)) {
    auto type = cast<RankedTensorType>(index.getType());
    if (type.getRank() != 0)
      return op->emitOpError("start index #")
             << i << " must be a rank-0 tensor, got " << type;
    if (type != indices[0].getType())
      return op->emitOpError("start indices must have one type, got ")
             << indices[0].getType() << " and " << type;
  }
  return success();
}

/// Calls `fn(resultIndex, linear)` for every row-major index of `shape`.
static void forEachIndex(ArrayRef<int64_t> shape,
                         function_ref<void(ArrayRef<int64_t>)> fn) {
  int64_t count = ShapedType::getNumElements(shape);
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    fn(index);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

static int64_t linearize(ArrayRef<int64_t> index, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (auto [i, size] : llvm::zip_equal(index, shape))
    linear = linear * size + i;
  return linear;
}

/// A small (or splat) dense constant of real elements, or null. Complex
/// constants are not folded: their elements are not Attributes.
static DenseElementsAttr foldableConstant(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || isa<ComplexType>(dense.getElementType()) ||
      (!dense.isSplat() && dense.getNumElements() > kMaxFoldedElements))
    return {};
  return dense;
}

/// Builds a constant of `type` whose element at each index is the operand's
/// element at `source(index)`, or `fill` where that returns -1.
static DenseElementsAttr
remapConstant(DenseElementsAttr operand, RankedTensorType type,
              function_ref<int64_t(ArrayRef<int64_t>)> source,
              Attribute fill = {}) {
  if (type.getNumElements() > kMaxFoldedElements)
    return {};
  SmallVector<Attribute> operandValues(operand.getValues<Attribute>());
  SmallVector<Attribute> values;
  values.reserve(type.getNumElements());
  forEachIndex(type.getShape(), [&](ArrayRef<int64_t> index) {
    int64_t from = source(index);
    values.push_back(from < 0 ? fill : operandValues[from]);
  });
  return DenseElementsAttr::get(type, values);
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  int64_t rank = operandType.getRank();
  ArrayRef<int64_t> start = getStartIndices(), limit = getLimitIndices(),
                    strides = getStrides();
  if (failed(verifyListSize(*this, "start", start, rank, "operand")) ||
      failed(verifyListSize(*this, "limit", limit, rank, "operand")) ||
      failed(verifyListSize(*this, "strides", strides, rank, "operand")))
    return failure();
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = operandType.getDimSize(d);
    if (start[d] < 0 || start[d] > size)
      return emitOpError("start ")
             << start[d] << " of dim " << d << " must be in [0, " << size
             << "]";
    if (limit[d] < start[d] || limit[d] > size)
      return emitOpError("limit ")
             << limit[d] << " of dim " << d << " must be in [start, size] = ["
             << start[d] << ", " << size << "]";
    if (strides[d] <= 0)
      return emitOpError("stride of dim ")
             << d << " must be positive, got " << strides[d];
    expected.push_back(llvm::divideCeil(limit[d] - start[d], strides[d]));
  }
  if (failed(verifyResultShape(*this, getType().getShape(), expected,
                               "ceil((limit - start) / strides)")))
    return failure();
  return verifyEqualElementTypes(
      *this, {{"operand", operandType}, {"result", getType()}});
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  DenseElementsAttr operand = foldableConstant(adaptor.getOperand());
  if (!operand)
    return {};
  if (operand.isSplat())
    return operand.resizeSplat(getType());
  ArrayRef<int64_t> shape = getOperand().getType().getShape();
  ArrayRef<int64_t> start = getStartIndices(), strides = getStrides();
  return remapConstant(operand, getType(), [&](ArrayRef<int64_t> index) {
    SmallVector<int64_t> from;
    for (auto [i, s, st] : llvm::zip_equal(index, start, strides))
      from.push_back(s + i * st);
    return linearize(from, shape);
  });
}

//===----------------------------------------------------------------------===//
// dynamic_slice, dynamic_update_slice
//===----------------------------------------------------------------------===//

LogicalResult DynamicSliceOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  int64_t rank = operandType.getRank();
  if (failed(verifyStartIndices(*this, getStartIndices(), rank)) ||
      failed(verifyListSize(*this, "sizes", getSliceSizes(), rank, "operand")))
    return failure();
  for (auto [d, size] : llvm::enumerate(getSliceSizes()))
    if (size < 0 || size > operandType.getDimSize(d))
      return emitOpError("slice size ")
             << size << " of dim " << d << " must be in [0, "
             << operandType.getDimSize(d) << "]";
  if (failed(verifyResultShape(*this, getType().getShape(), getSliceSizes(),
                               "the slice sizes")))
    return failure();
  return verifyEqualElementTypes(
      *this, {{"operand", operandType}, {"result", getType()}});
}

OpFoldResult DynamicSliceOp::fold(FoldAdaptor adaptor) {
  // A slice as large as the operand starts at 0 after clamping.
  if (getOperand().getType() == getType())
    return getOperand();
  if (DenseElementsAttr operand = foldableConstant(adaptor.getOperand()))
    if (operand.isSplat())
      return operand.resizeSplat(getType());
  return {};
}

LogicalResult DynamicUpdateSliceOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  RankedTensorType updateType = getUpdate().getType();
  int64_t rank = operandType.getRank();
  if (failed(verifyStartIndices(*this, getStartIndices(), rank)))
    return failure();
  if (updateType.getRank() != rank)
    return emitOpError("update rank ")
           << updateType.getRank() << " must equal operand rank " << rank;
  for (int64_t d = 0; d < rank; ++d)
    if (updateType.getDimSize(d) > operandType.getDimSize(d))
      return emitOpError("update dim ")
             << d << " of size " << updateType.getDimSize(d)
             << " is larger than operand dim " << d << " of size "
             << operandType.getDimSize(d);
  return verifyEqualElementTypes(
      *this, {{"update", updateType}, {"result", getType()}});
}

OpFoldResult DynamicUpdateSliceOp::fold(FoldAdaptor) {
  // An update as large as the operand replaces all of it.
  if (getUpdate().getType() == getType())
    return getUpdate();
  if (getUpdate().getType().getNumElements() == 0)
    return getOperand();
  return {};
}

//===----------------------------------------------------------------------===//
// concatenate
//===----------------------------------------------------------------------===//

LogicalResult ConcatenateOp::verify() {
  if (getInputs().empty())
    return emitOpError("expected at least one input");
  auto firstType = cast<RankedTensorType>(getInputs()[0].getType());
  int64_t rank = firstType.getRank();
  int64_t dim = getDimension();
  if (dim < 0 || dim >= rank)
    return emitOpError("dimension ")
           << dim << " is out of range for inputs of rank " << rank;
  SmallVector<int64_t> expected(firstType.getShape());
  expected[dim] = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    auto type = cast<RankedTensorType>(input.getType());
    if (type.getElementType() != firstType.getElementType())
      return emitOpError("input #")
             << i << " has element type " << type.getElementType()
             << ", but input #0 has " << firstType.getElementType();
    if (type.getRank() != rank)
      return emitOpError("input #")
             << i << " has rank " << type.getRank()
             << ", but input #0 has rank " << rank;
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && type.getDimSize(d) != firstType.getDimSize(d))
        return emitOpError("input #")
               << i << " has size " << type.getDimSize(d) << " in dim " << d
               << ", but input #0 has size " << firstType.getDimSize(d);
    std::optional<int64_t> joined =
        llvm::checkedAdd<int64_t>(expected[dim], type.getDimSize(dim));
    if (!joined)
      return emitOpError("the inputs' sizes along dim ")
             << dim << " add up to more than int64 can hold";
    expected[dim] = *joined;
  }
  if (failed(verifyResultShape(*this, getType().getShape(), expected,
                               "the input shapes joined along dim " +
                                   std::to_string(dim))))
    return failure();
  return verifyEqualElementTypes(
      *this, {{"input", firstType}, {"result", getType()}});
}

OpFoldResult ConcatenateOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs()[0];
  SmallVector<DenseElementsAttr> inputs;
  for (Attribute attr : adaptor.getInputs()) {
    inputs.push_back(foldableConstant(attr));
    if (!inputs.back())
      return {};
  }
  RankedTensorType type = getType();
  if (type.getNumElements() > kMaxFoldedElements)
    return {};
  int64_t dim = getDimension();
  SmallVector<SmallVector<Attribute>> values;
  for (DenseElementsAttr input : inputs)
    values.emplace_back(input.getValues<Attribute>());
  SmallVector<Attribute> result;
  forEachIndex(type.getShape(), [&](ArrayRef<int64_t> index) {
    SmallVector<int64_t> from(index);
    for (auto [i, input] : llvm::enumerate(inputs)) {
      ArrayRef<int64_t> shape = input.getType().getShape();
      if (from[dim] < shape[dim]) {
        result.push_back(values[i][linearize(from, shape)]);
        return;
      }
      from[dim] -= shape[dim];
    }
  });
  return DenseElementsAttr::get(type, result);
}

//===----------------------------------------------------------------------===//
// pad
//===----------------------------------------------------------------------===//

LogicalResult PadOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  int64_t rank = operandType.getRank();
  if (getPaddingValue().getType().getRank() != 0)
    return emitOpError("padding value must be a rank-0 tensor, got ")
           << getPaddingValue().getType();
  if (failed(verifyEqualElementTypes(
          *this, {{"padding value", getPaddingValue().getType()},
                  {"operand", operandType}})))
    return failure();
  ArrayRef<int64_t> low = getEdgePaddingLow(), high = getEdgePaddingHigh(),
                    interior = getInteriorPadding();
  if (failed(verifyListSize(*this, "low", low, rank, "operand")) ||
      failed(verifyListSize(*this, "high", high, rank, "operand")) ||
      failed(verifyListSize(*this, "interior", interior, rank, "operand")))
    return failure();
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < rank; ++d) {
    if (interior[d] < 0)
      return emitOpError("interior padding of dim ")
             << d << " must be non-negative, got " << interior[d];
    int64_t size = operandType.getDimSize(d);
    std::optional<int64_t> padded = llvm::checkedMulAdd<int64_t>(
        std::max<int64_t>(size - 1, 0), interior[d], size);
    // low + high first: a huge low cancelled by a huge negative high is a
    // valid padding.
    std::optional<int64_t> edges = llvm::checkedAdd<int64_t>(low[d], high[d]);
    std::optional<int64_t> total;
    if (padded && edges)
      total = llvm::checkedAdd<int64_t>(*padded, *edges);
    if (!total)
      return emitOpError("padding of dim ")
             << d << " (size " << size << ", low = " << low[d]
             << ", high = " << high[d] << ", interior = " << interior[d]
             << ") overflows int64";
    if (*total < 0)
      return emitOpError("padding of dim ")
             << d << " removes more than its " << *padded
             << " elements: low = " << low[d] << ", high = " << high[d];
    expected.push_back(*total);
  }
  if (failed(verifyResultShape(*this, getType().getShape(), expected,
                               "low + size + (size - 1) * interior + high")))
    return failure();
  return verifyEqualElementTypes(
      *this, {{"operand", operandType}, {"result", getType()}});
}

OpFoldResult PadOp::fold(FoldAdaptor adaptor) {
  auto isZero = [](int64_t v) { return v == 0; };
  if (llvm::all_of(getEdgePaddingLow(), isZero) &&
      llvm::all_of(getEdgePaddingHigh(), isZero) &&
      llvm::all_of(getInteriorPadding(), isZero))
    return getOperand();
  DenseElementsAttr operand = foldableConstant(adaptor.getOperand());
  DenseElementsAttr padding = foldableConstant(adaptor.getPaddingValue());
  if (!operand || !padding)
    return {};
  Attribute fill = padding.getSplatValue<Attribute>();
  if (operand.isSplat() && operand.getSplatValue<Attribute>() == fill)
    return DenseElementsAttr::get(getType(), fill);
  ArrayRef<int64_t> shape = getOperand().getType().getShape();
  ArrayRef<int64_t> low = getEdgePaddingLow(), interior = getInteriorPadding();
  return remapConstant(
      operand, getType(),
      [&](ArrayRef<int64_t> index) -> int64_t {
        SmallVector<int64_t> from;
        for (auto [d, i] : llvm::enumerate(index)) {
          // Checked and unsigned: low may be INT64_MIN and interior
          // INT64_MAX on a dim of size 1; either puts `i` in the padding.
          std::optional<int64_t> offset =
              llvm::checkedSub<int64_t>(static_cast<int64_t>(i), low[d]);
          if (!offset || *offset < 0)
            return -1;
          uint64_t step = static_cast<uint64_t>(interior[d]) + 1;
          uint64_t unsignedOffset = static_cast<uint64_t>(*offset);
          if (unsignedOffset % step != 0 ||
              unsignedOffset / step >= static_cast<uint64_t>(shape[d]))
            return -1;
          from.push_back(unsignedOffset / step);
        }
        return linearize(from, shape);
      },
      fill);
}

//===----------------------------------------------------------------------===//
// reverse
//===----------------------------------------------------------------------===//

LogicalResult ReverseOp::verify() {
  return verifyDimList(*this, "dims", getDimensions(), getType().getRank(),
                       "an operand", /*sorted=*/false);
}

OpFoldResult ReverseOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> shape = getType().getShape();
  if (llvm::all_of(getDimensions(), [&](int64_t d) { return shape[d] <= 1; }))
    return getOperand();
  DenseElementsAttr operand = foldableConstant(adaptor.getOperand());
  if (!operand)
    return {};
  if (operand.isSplat())
    return operand;
  llvm::SmallBitVector reversed(shape.size());
  for (int64_t d : getDimensions())
    reversed.set(d);
  return remapConstant(operand, getType(), [&](ArrayRef<int64_t> index) {
    SmallVector<int64_t> from(index);
    for (auto [d, i] : llvm::enumerate(from))
      if (reversed.test(d))
        i = shape[d] - 1 - i;
    return linearize(from, shape);
  });
}

//===----------------------------------------------------------------------===//
// gather, scatter
//===----------------------------------------------------------------------===//

/// The number of index vectors' entries: the size of index_vector_dim, or 1
/// when it is the (implicit) trailing dimension.
static LogicalResult verifyIndexVectorDim(Operation *op,
                                          RankedTensorType indicesType,
                                          int64_t indexVectorDim,
                                          int64_t &vectorSize) {
  int64_t rank = indicesType.getRank();
  if (indexVectorDim < 0 || indexVectorDim > rank)
    return op->emitOpError("index_vector_dim ")
           << indexVectorDim << " must be in [0, " << rank
           << "] for indices of rank " << rank;
  vectorSize = indexVectorDim == rank ? 1 : indicesType.getDimSize(indexVectorDim);
  return success();
}

/// The indices' shape without index_vector_dim: the index vectors' grid.
static SmallVector<int64_t> batchShape(RankedTensorType indicesType,
                                       int64_t indexVectorDim) {
  SmallVector<int64_t> shape;
  for (auto [d, size] : llvm::enumerate(indicesType.getShape()))
    if (static_cast<int64_t>(d) != indexVectorDim)
      shape.push_back(size);
  return shape;
}

LogicalResult GatherOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  RankedTensorType indicesType = getStartIndices().getType();
  int64_t operandRank = operandType.getRank();
  ArrayRef<int64_t> offsetDims = getOffsetDims();
  ArrayRef<int64_t> collapsed = getCollapsedSliceDims();
  ArrayRef<int64_t> startIndexMap = getStartIndexMap();
  ArrayRef<int64_t> sliceSizes = getSliceSizes();

  int64_t vectorSize;
  if (failed(verifyIndexVectorDim(*this, indicesType, getIndexVectorDim(),
                                  vectorSize)))
    return failure();
  if (static_cast<int64_t>(startIndexMap.size()) != vectorSize)
    return emitOpError("start_index_map ")
           << listString(startIndexMap) << " must have one entry per index "
           << "vector entry, got " << startIndexMap.size() << " for vectors "
           << "of size " << vectorSize;
  if (failed(verifyDimList(*this, "start_index_map", startIndexMap,
                           operandRank, "an operand", /*sorted=*/false)) ||
      failed(verifyDimList(*this, "collapsed_slice_dims", collapsed,
                           operandRank, "an operand", /*sorted=*/true)) ||
      failed(verifyListSize(*this, "slice_sizes", sliceSizes, operandRank,
                            "operand")))
    return failure();
  for (auto [d, size] : llvm::enumerate(sliceSizes))
    if (size < 0 || size > operandType.getDimSize(d))
      return emitOpError("slice size ")
             << size << " of dim " << d << " must be in [0, "
             << operandType.getDimSize(d) << "]";
  for (int64_t d : collapsed)
    if (sliceSizes[d] > 1)
      return emitOpError("collapsed dim ")
             << d << " must have slice size 0 or 1, got " << sliceSizes[d];

  int64_t offsetRank = operandRank - static_cast<int64_t>(collapsed.size());
  if (static_cast<int64_t>(offsetDims.size()) != offsetRank)
    return emitOpError("offset_dims ")
           << listString(offsetDims) << " must have one entry per operand "
           << "dim not in collapsed_slice_dims, which is " << offsetRank;
  SmallVector<int64_t> batch = batchShape(indicesType, getIndexVectorDim());
  int64_t resultRank = static_cast<int64_t>(batch.size()) + offsetRank;
  if (failed(verifyDimList(*this, "offset_dims", offsetDims, resultRank,
                           "a result", /*sorted=*/true)))
    return failure();

  // Offset dims take the uncollapsed slice sizes in order; the other
  // result dims take the batch shape in order.
  llvm::SmallBitVector isCollapsed(operandRank), isOffset(resultRank);
  for (int64_t d : collapsed)
    isCollapsed.set(d);
  for (int64_t d : offsetDims)
    isOffset.set(d);
  SmallVector<int64_t> expected;
  int64_t nextSlice = 0, nextBatch = 0;
  for (int64_t d = 0; d < resultRank; ++d) {
    if (isOffset.test(d)) {
      while (isCollapsed.test(nextSlice))
        ++nextSlice;
      expected.push_back(sliceSizes[nextSlice++]);
    } else {
      expected.push_back(batch[nextBatch++]);
    }
  }
  if (failed(verifyResultShape(
          *this, getType().getShape(), expected,
          "the index batch dims with the uncollapsed slice sizes at "
          "offset_dims")))
    return failure();
  return verifyEqualElementTypes(
      *this, {{"operand", operandType}, {"result", getType()}});
}

LogicalResult ScatterOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  RankedTensorType indicesType = getScatterIndices().getType();
  RankedTensorType updatesType = getUpdates().getType();
  int64_t operandRank = operandType.getRank();
  int64_t updatesRank = updatesType.getRank();
  ArrayRef<int64_t> windowDims = getUpdateWindowDims();
  ArrayRef<int64_t> inserted = getInsertedWindowDims();
  ArrayRef<int64_t> toOperand = getScatterDimsToOperandDims();

  int64_t vectorSize;
  if (failed(verifyIndexVectorDim(*this, indicesType, getIndexVectorDim(),
                                  vectorSize)))
    return failure();
  if (static_cast<int64_t>(toOperand.size()) != vectorSize)
    return emitOpError("scatter_dims_to_operand_dims ")
           << listString(toOperand) << " must have one entry per index "
           << "vector entry, got " << toOperand.size() << " for vectors of "
           << "size " << vectorSize;
  if (failed(verifyDimList(*this, "scatter_dims_to_operand_dims", toOperand,
                           operandRank, "an operand", /*sorted=*/false)) ||
      failed(verifyDimList(*this, "inserted_window_dims", inserted,
                           operandRank, "an operand", /*sorted=*/true)) ||
      failed(verifyDimList(*this, "update_window_dims", windowDims,
                           updatesRank, "updates", /*sorted=*/true)))
    return failure();
  int64_t windowRank = operandRank - static_cast<int64_t>(inserted.size());
  if (static_cast<int64_t>(windowDims.size()) != windowRank)
    return emitOpError("update_window_dims ")
           << listString(windowDims) << " must have one entry per operand "
           << "dim not in inserted_window_dims, which is " << windowRank;
  SmallVector<int64_t> batch = batchShape(indicesType, getIndexVectorDim());
  if (updatesRank != static_cast<int64_t>(batch.size()) + windowRank)
    return emitOpError("updates rank ")
           << updatesRank << " must be the number of index batch dims ("
           << batch.size() << ") plus update_window_dims (" << windowRank
           << ")";

  llvm::SmallBitVector isInserted(operandRank), isWindow(updatesRank);
  for (int64_t d : inserted)
    isInserted.set(d);
  for (int64_t d : windowDims)
    isWindow.set(d);
  int64_t nextOperand = 0, nextBatch = 0;
  for (int64_t d = 0; d < updatesRank; ++d) {
    int64_t size = updatesType.getDimSize(d);
    if (isWindow.test(d)) {
      while (isInserted.test(nextOperand))
        ++nextOperand;
      int64_t bound = operandType.getDimSize(nextOperand);
      if (size > bound)
        return emitOpError("updates window dim ")
               << d << " of size " << size << " is larger than operand dim "
               << nextOperand << " of size " << bound;
      ++nextOperand;
    } else if (size != batch[nextBatch++]) {
      return emitOpError("updates dim ")
             << d << " of size " << size << " must match index batch dim "
             << nextBatch - 1 << " of size " << batch[nextBatch - 1]
             << " (the indices' shape without index_vector_dim is "
             << listString(batch) << ")";
    }
  }
  if (failed(verifyEqualElementTypes(
          *this, {{"updates", updatesType}, {"operand", operandType}})))
    return failure();
  bool isPred = operandType.getElementType().isInteger(1);
  if (isPred && (getKind() == ScatterKind::Add || getKind() == ScatterKind::Mul))
    return emitOpError("'") << stringifyEnum(getKind())
                            << "' scatter needs a float or integer element "
                               "type, got i1";
  Type elementType = operandType.getElementType();
  if (isa<ComplexType>(elementType) &&
      (getKind() == ScatterKind::Min || getKind() == ScatterKind::Max))
    return emitOpError("'") << stringifyEnum(getKind())
                            << "' scatter needs a real element type, got "
                            << elementType;
  return success();
}

OpFoldResult ScatterOp::fold(FoldAdaptor) {
  if (getUpdates().getType().getNumElements() == 0)
    return getOperand();
  return {};
}
