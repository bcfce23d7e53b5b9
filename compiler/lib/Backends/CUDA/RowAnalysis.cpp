//===- RowAnalysis.cpp - which loops of a kernel's ops are rows -----------===//
//
// Rows are followed through views only as far as a view provably leaves
// them in place: a cast keeps them all, a reshape keeps a row whose
// dimension gains or loses only unit dimensions (64 -> 64x1), and anything
// else (64x4 -> 256, a subview, a reinterpret_cast) may move an element to
// another row, so the rows stop there.
//
//===----------------------------------------------------------------------===//

#include "RowAnalysis.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace numlir::cuda::launches {
namespace {

/// How many of the first `dims` dimensions of a reshape's result address
/// the same index of its source: dimension k does when its group of the
/// reassociation holds dimension k of the expanded side and otherwise
/// only dimensions of size 1 (64 -> 64x1 keeps the row, 64x4 -> 256 does
/// not).
int64_t reshapeKeepsLeadingDims(ArrayRef<ReassociationIndices> groups,
                                ArrayRef<int64_t> expandedShape, int64_t dims) {
  int64_t kept = 0;
  for (; kept < dims && kept < int64_t(groups.size()); ++kept) {
    bool aligned = llvm::is_contained(groups[kept], kept);
    for (int64_t d : groups[kept])
      aligned &= d == kept || expandedShape[d] == 1;
    if (!aligned)
      break;
  }
  return kept;
}

/// How many of the first `dims` dimensions a view leaves where they are.
int64_t viewKeepsLeadingDims(Operation *view, int64_t dims) {
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(view))
    return reshapeKeepsLeadingDims(expand.getReassociationIndices(),
                                   expand.getResultType().getShape(), dims);
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(view))
    return reshapeKeepsLeadingDims(collapse.getReassociationIndices(),
                                   collapse.getSrcType().getShape(), dims);
  if (isa<memref::CastOp>(view))
    return dims;
  return 0;
}

} // namespace

bool isView(Operation *op) {
  return isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::ReinterpretCastOp, memref::CastOp>(op);
}

Value rootBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isView(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

int64_t product(ArrayRef<int64_t> values) {
  int64_t result = 1;
  for (int64_t v : values)
    result *= v;
  return result;
}

int64_t sharedRowDims(ArrayRef<linalg::GenericOp> ops) {
  linalg::GenericOp root = ops.back();
  SmallVector<int64_t> extents = root.getStaticLoopRanges();
  int64_t rows = int64_t(extents.size());
  for (linalg::GenericOp op : ops) {
    SmallVector<int64_t> own = op.getStaticLoopRanges();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    int64_t shared = 0;
    while (shared < rows && shared < int64_t(own.size()) &&
           iterators[shared] == utils::IteratorType::parallel &&
           own[shared] == extents[shared])
      ++shared;
    rows = shared;
  }
  llvm::DenseSet<Value> written;
  for (linalg::GenericOp op : ops)
    for (OpOperand &init : op.getDpsInitsMutable())
      written.insert(rootBuffer(init.get()));
  for (linalg::GenericOp op : ops)
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()) ||
          !written.contains(rootBuffer(operand.get())))
        continue;
      rows = std::min(rows, rowAlignedDims(op, operand, rows));
    }
  return rows;
}

int64_t rowAlignedDims(linalg::GenericOp op, OpOperand &operand, int64_t rows) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  int64_t aligned = 0;
  while (aligned < rows && aligned < int64_t(map.getNumResults()) &&
         map.getResult(aligned) == getAffineDimExpr(aligned, op.getContext()))
    ++aligned;
  return viewsKeepLeadingDims(operand.get(), aligned);
}

int64_t viewsKeepLeadingDims(Value value, int64_t dims) {
  for (; Operation *def = value.getDefiningOp(); value = def->getOperand(0)) {
    if (!isView(def))
      break;
    dims = std::min(dims, viewKeepsLeadingDims(def, dims));
  }
  return dims;
}

} // namespace numlir::cuda::launches
