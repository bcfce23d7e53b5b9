//===- UnshareEmptyTensors.cpp - one tensor.empty per use ------------------===//
//
// One-shot bufferization analyses conflicts within alias sets, pairwise; an
// empty tensor shared by every op of one shape puts the whole function into
// one set. A tensor.empty is a value without contents, so each use may have
// its own.
//
//===----------------------------------------------------------------------===//

#include "numlir/Bufferization/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace numlir {
#define GEN_PASS_DEF_UNSHAREEMPTYTENSORS
#include "numlir/Bufferization/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {
struct UnshareEmptyTensorsPass
    : numlir::impl::UnshareEmptyTensorsBase<UnshareEmptyTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> shared;
    getOperation()->walk([&](tensor::EmptyOp empty) {
      if (!empty->hasOneUse() && !empty->use_empty())
        shared.push_back(empty);
    });
    OpBuilder builder(&getContext());
    for (tensor::EmptyOp empty : shared) {
      // The first use keeps the original; the others get a clone just
      // before their user, which the original's operands dominate.
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : empty->getUses())
        uses.push_back(&use);
      for (OpOperand *use : llvm::drop_begin(uses)) {
        builder.setInsertionPoint(use->getOwner());
        use->set(builder.clone(*empty)->getResult(0));
      }
    }
  }
};
} // namespace
