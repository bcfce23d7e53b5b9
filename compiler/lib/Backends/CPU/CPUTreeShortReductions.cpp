//===- CPUTreeShortReductions.cpp - pairwise order for short reductions ---===//
//
// A short float sum or product (at most kMaxLeaves elements per output)
// becomes an all-parallel linalg.generic that reads each reduction position
// as an operand of its own and combines them as a balanced tree. See the
// pass description in Passes.td for why the order matters.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "ReassociableCombiner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace numlir {
#define GEN_PASS_DEF_CPUTREESHORTREDUCTIONS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// Longer reductions stay loops: LLVM vectorizes them into partial sums, and
/// the generic would grow one operand per element.
constexpr int64_t kMaxLeaves = 16;

/// The reassociable float add or multiply that folds one value into the
/// accumulator `acc` and is the body's only use of it, or null.
Operation *getTreeCombiner(linalg::GenericOp op, BlockArgument acc) {
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  Operation *combiner = yield.getValues()[0].getDefiningOp();
  if (!combiner || !numlir::cpu::isReassociableFloatCombiner(combiner) ||
      !combiner->hasOneUse() || !acc.hasOneUse())
    return nullptr;
  if (combiner->getOperand(0) != acc && combiner->getOperand(1) != acc)
    return nullptr;
  return combiner;
}

/// Every combination of reduction positions, the last dimension fastest.
SmallVector<SmallVector<int64_t>> enumeratePositions(ArrayRef<int64_t> extents) {
  SmallVector<SmallVector<int64_t>> positions = {{}};
  for (int64_t extent : extents) {
    SmallVector<SmallVector<int64_t>> longer;
    for (const SmallVector<int64_t> &prefix : positions)
      for (int64_t i = 0; i < extent; ++i) {
        longer.push_back(prefix);
        longer.back().push_back(i);
      }
    positions = std::move(longer);
  }
  return positions;
}

/// Combines adjacent pairs level by level: ((v0 v1) (v2 v3)) v4.
Value combineAsTree(OpBuilder &b, Operation *combiner, ArrayRef<Value> leaves) {
  SmallVector<Value> values(leaves);
  while (values.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < values.size(); i += 2) {
      Operation *pair = b.clone(*combiner);
      pair->setOperands({values[i], values[i + 1]});
      next.push_back(pair->getResult(0));
    }
    if (values.size() % 2)
      next.push_back(values.back());
    values = std::move(next);
  }
  return values.front();
}

struct TreeShortReduction : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() == 0)
      return rewriter.notifyMatchFailure(op, "not a single-result reduction");
    // Window maps such as (d0 + d2) would leave (d0 + 1), from which linalg
    // infers the loop's extent from the input, not the output.
    if (!llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isProjectedPermutation(); }))
      return rewriter.notifyMatchFailure(op, "an indexing map is not a projection");
    OpOperand *init = op.getDpsInitOperand(0);
    BlockArgument acc = op.getMatchingBlockArgument(init);
    Operation *combiner = getTreeCombiner(op, acc);
    if (!combiner)
      return rewriter.notifyMatchFailure(op, "no reassociable sum or product");

    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<unsigned> reductionDims;
    op.getReductionDims(reductionDims);
    SmallVector<int64_t> extents;
    int64_t leaves = 1;
    for (unsigned dim : reductionDims) {
      if (ShapedType::isDynamic(ranges[dim]))
        return rewriter.notifyMatchFailure(op, "dynamic reduction extent");
      extents.push_back(ranges[dim]);
      leaves *= ranges[dim];
    }
    if (leaves < 2 || leaves > kMaxLeaves)
      return rewriter.notifyMatchFailure(op, "reduction too short or too long");

    // New loop dimensions: the parallel ones, in their order.
    MLIRContext *ctx = op.getContext();
    unsigned numLoops = op.getNumLoops();
    SmallVector<int64_t> newDimOf(numLoops, -1);
    unsigned numParallel = 0;
    for (unsigned dim = 0; dim < numLoops; ++dim)
      if (!llvm::is_contained(reductionDims, dim))
        newDimOf[dim] = numParallel++;
    auto substitute = [&](AffineMap map, ArrayRef<int64_t> position) {
      SmallVector<AffineExpr> replacements;
      for (unsigned dim = 0; dim < numLoops; ++dim) {
        auto *it = llvm::find(reductionDims, dim);
        replacements.push_back(
            it == reductionDims.end()
                ? getAffineDimExpr(newDimOf[dim], ctx)
                : getAffineConstantExpr(position[it - reductionDims.begin()], ctx));
      }
      return map.replaceDimsAndSymbols(replacements, {}, numParallel, 0);
    };

    // Each input the reduction indexes is read once per position; the others
    // once. argOf[p][i] is the new operand number of input i at position p.
    SmallVector<SmallVector<int64_t>> positions = enumeratePositions(extents);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    SmallVector<SmallVector<unsigned>> argOf(positions.size());
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      bool indexedByReduction = llvm::any_of(reductionDims, [&](unsigned dim) {
        return map.isFunctionOfDim(dim);
      });
      for (auto [p, position] : llvm::enumerate(positions)) {
        if (p == 0 || indexedByReduction) {
          inputs.push_back(input->get());
          maps.push_back(substitute(map, position));
        }
        argOf[p].push_back(inputs.size() - 1);
      }
    }
    maps.push_back(substitute(op.getMatchingIndexingMap(init), positions[0]));
    SmallVector<utils::IteratorType> iterators(numParallel,
                                               utils::IteratorType::parallel);

    Value combined = combiner->getOperand(0) == acc ? combiner->getOperand(1)
                                                    : combiner->getOperand(0);
    auto body = [&](OpBuilder &b, Location loc, ValueRange args) {
      SmallVector<Value> leafValues;
      for (auto [p, position] : llvm::enumerate(positions)) {
        IRMapping mapping;
        for (auto [i, input] : llvm::enumerate(op.getDpsInputOperands()))
          mapping.map(op.getMatchingBlockArgument(input), args[argOf[p][i]]);
        for (Operation &nested : op.getBody()->without_terminator()) {
          if (&nested == combiner)
            continue;
          auto index = dyn_cast<linalg::IndexOp>(nested);
          if (!index) {
            b.clone(nested, mapping);
            continue;
          }
          uint64_t dim = index.getDim();
          auto *it = llvm::find(reductionDims, dim);
          Value replacement =
              it == reductionDims.end()
                  ? Value(linalg::IndexOp::create(b, loc, newDimOf[dim]))
                  : Value(arith::ConstantIndexOp::create(
                        b, loc, position[it - reductionDims.begin()]));
          mapping.map(index.getResult(), replacement);
        }
        leafValues.push_back(mapping.lookupOrDefault(combined));
      }
      Value tree = combineAsTree(b, combiner, leafValues);
      Operation *last = b.clone(*combiner);
      last->setOperands({tree, args.back()});
      linalg::YieldOp::create(b, loc, last->getResult(0));
    };
    auto tree = linalg::GenericOp::create(rewriter, op.getLoc(),
                                          op.getResultTypes(), inputs,
                                          ValueRange{init->get()}, maps,
                                          iterators, body);
    rewriter.replaceOp(op, tree.getResults());
    return success();
  }
};

struct CPUTreeShortReductionsPass
    : numlir::impl::CPUTreeShortReductionsBase<CPUTreeShortReductionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<TreeShortReduction>(&getContext());
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace
