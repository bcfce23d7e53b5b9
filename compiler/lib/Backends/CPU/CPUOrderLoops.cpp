//===- CPUOrderLoops.cpp - contiguous innermost loops for linalg ops ------===//

#include "numlir/Backends/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace numlir {
#define GEN_PASS_DEF_CPUORDERLOOPS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// The loop that should be innermost: the one indexing the last dimension
/// of the most operands. Ties keep the current innermost loop, then prefer
/// parallel loops (they vectorize without reassociating a reduction).
unsigned chooseInnermostLoop(linalg::GenericOp op) {
  unsigned numLoops = op.getNumLoops();
  SmallVector<int> contiguousUses(numLoops, 0);
  for (AffineMap map : op.getIndexingMapsArray()) {
    if (map.getNumResults() == 0)
      continue;
    if (auto dim = dyn_cast<AffineDimExpr>(map.getResults().back()))
      ++contiguousUses[dim.getPosition()];
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned best = numLoops - 1;
  for (unsigned loop = 0; loop < numLoops; ++loop) {
    if (contiguousUses[loop] > contiguousUses[best] ||
        (contiguousUses[loop] == contiguousUses[best] && best != numLoops - 1 &&
         iterators[loop] == utils::IteratorType::parallel &&
         iterators[best] != utils::IteratorType::parallel))
      best = loop;
  }
  return best;
}

struct CPUOrderLoopsPass
    : numlir::impl::CPUOrderLoopsBase<CPUOrderLoopsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> contractions;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::MatvecOp,
              linalg::VecmatOp, linalg::BatchMatvecOp>(op.getOperation()))
        contractions.push_back(op);
    });
    for (linalg::LinalgOp op : contractions) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }

    SmallVector<linalg::GenericOp> generics;
    getOperation()->walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics) {
      unsigned numLoops = op.getNumLoops();
      if (numLoops < 2)
        continue;
      unsigned innermost = chooseInnermostLoop(op);
      if (innermost == numLoops - 1)
        continue;
      SmallVector<unsigned> order;
      for (unsigned loop = 0; loop < numLoops; ++loop)
        if (loop != innermost)
          order.push_back(loop);
      order.push_back(innermost);
      rewriter.setInsertionPoint(op);
      if (failed(linalg::interchangeGenericOp(rewriter, op, order)))
        return signalPassFailure();
    }
  }
};

} // namespace
