//===- BufferQueries.cpp - what linalg ops on buffers may assume ----------===//

#include "numlir/Bufferization/BufferQueries.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

Value numlir::rootAllocation(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (isa<memref::AllocOp, memref::AllocaOp>(def))
      return memref;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return {};
    memref = view.getViewSource();
  }
  auto argument = cast<BlockArgument>(memref);
  Block *owner = argument.getOwner();
  if (!owner->isEntryBlock() || !isa<func::FuncOp>(owner->getParentOp()))
    return {};
  return memref;
}

bool numlir::piecesAreIndependent(linalg::LinalgOp op) {
  bool writes = false;
  op.getBlock()->walk([&](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (effects ? effects.hasEffect<MemoryEffects::Write>()
                : !nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
                      !isa<linalg::YieldOp>(nested))
      writes = true;
  });
  if (writes)
    return false;
  for (OpOperand *input : op.getDpsInputOperands())
    for (OpOperand &init : op.getDpsInitsMutable())
      if (input->get() == init.get() &&
          op.getMatchingIndexingMap(input) != op.getMatchingIndexingMap(&init))
        return false;
  return true;
}
