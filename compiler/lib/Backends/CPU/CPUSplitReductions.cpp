//===- CPUSplitReductions.cpp - partial results for long reductions -------===//
//
// A reduction with only a few outputs (a full sum, a sum of a few long
// rows) has no parallel loop worth splitting across threads: its one
// long reduction loop is split instead into `ratio` partial reductions
// over consecutive blocks, which cpu-parallelize-loops then runs on the
// threads, and a short reduction of the partials. The split does not
// depend on the thread count, so every NUMLIR_NUM_THREADS gives the same
// bits.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "ReassociableCombiner.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace numlir {
#define GEN_PASS_DEF_CPUSPLITREDUCTIONS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// Whether combining in another order gives the same result up to what the
/// reduction already allows: integer and max/min combiners are exact in any
/// order; float sums and products only when marked reassociable, as
/// `hlo.reduce` marks them.
bool mayReorder(Operation *combiner) {
  if (isa<arith::AddIOp, arith::MulIOp, arith::AndIOp, arith::OrIOp,
          arith::XOrIOp, arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp,
          arith::MinUIOp, arith::MaximumFOp, arith::MinimumFOp>(combiner))
    return true;
  return numlir::cpu::isReassociableFloatCombiner(combiner);
}

/// The number of partials to split `op`'s reduction into, or 0 to leave it:
/// one reduction loop of at least `minReduction` iterations, operands
/// indexed by plain loops, at most `maxOutputs` output elements, one output
/// combined by a reorderable op, and a power of two up to `ratio` that
/// divides the loop.
int64_t planPartials(linalg::GenericOp op, int64_t ratio, int64_t minReduction,
                     int64_t maxOutputs) {
  // Windows (an input read at `d0 + d1`) are not reductions splitReduction
  // can reshape: every operand must be indexed by plain loops.
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 1 || op.hasIndexSemantics() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return 0;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges))
    return 0;
  int64_t outputs = 1, reduction = 0;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [range, iterator] : llvm::zip(ranges, iterators)) {
    if (iterator == utils::IteratorType::reduction)
      reduction = range;
    else
      outputs *= range;
  }
  if (reduction < minReduction || outputs > maxOutputs)
    return 0;
  SmallVector<Operation *, 4> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1 || !mayReorder(combiners.front()))
    return 0;
  int64_t partials = 1;
  while (partials * 2 <= ratio && reduction % (partials * 2) == 0)
    partials *= 2;
  return partials >= 2 ? partials : 0;
}

struct CPUSplitReductionsPass
    : numlir::impl::CPUSplitReductionsBase<CPUSplitReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (ratio < 2 || minReduction < 1 || maxOutputs < 1) {
      getOperation()->emitError()
          << "cpu-split-reductions needs ratio >= 2, min-reduction >= 1 and "
             "max-outputs >= 1, got ratio="
          << static_cast<int64_t>(ratio)
          << " min-reduction=" << static_cast<int64_t>(minReduction)
          << " max-outputs=" << static_cast<int64_t>(maxOutputs);
      return signalPassFailure();
    }
    SmallVector<std::pair<linalg::GenericOp, int64_t>> plans;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (int64_t partials = planPartials(op, ratio, minReduction, maxOutputs))
        plans.emplace_back(op, partials);
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, partials] : plans) {
      // The partial index is the outer part of the loop, so that each
      // partial reads one contiguous block, and the partials of one output
      // are contiguous (the last dimension of the intermediate tensor).
      int64_t outputRank =
          cast<ShapedType>(op.getDpsInits()[0].getType()).getRank();
      auto control = [partials = partials, outputRank](linalg::LinalgOp) {
        linalg::SplitReductionOptions options;
        options.ratio = partials;
        options.index = static_cast<unsigned>(outputRank);
        options.innerParallel = false;
        return options;
      };
      rewriter.setInsertionPoint(op);
      if (failed(linalg::splitReduction(rewriter, op, control))) {
        op.emitOpError("could not be split into ") << partials << " partials";
        return signalPassFailure();
      }
    }
  }
};

} // namespace
