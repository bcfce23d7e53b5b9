//===- CPUFuseElementwiseOps.cpp - fusion that recomputes nothing ---------===//
//
// linalg-fuse-elementwise-ops, except that an elementwise producer is not
// fused into a consumer with reduction loops unless the consumer reads each
// produced element once (its operand map is a permutation): fusing
// tanh(x) into the contraction tanh(x)^T @ y recomputes each tanh once per
// column of y and hides the contraction from CPU vectorization.
//
// linalg.reduce ops (what hlo.reduce lowers to) are generalized first:
// elementwise fusion only fuses into linalg.generic, and without it
// `sum(x * x)` writes and rereads a temporary as large as x.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace numlir {
#define GEN_PASS_DEF_CPUFUSEELEMENTWISEOPS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// Whether fusing the producer of `operand` into its consumer computes each
/// produced element as often as before.
bool fusesWithoutRecomputation(OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
  if (!consumer || consumer.getNumReductionLoops() == 0)
    return true;
  return consumer.getMatchingIndexingMap(operand).isPermutation();
}

/// Whether the single-use constant of `operand` may be folded through its
/// consumer: the folder enumerates every element of the result, so a
/// transpose of a splat with 2^33 elements would abort, not fold.
bool foldsIntoSmallConstant(OpOperand *operand) {
  constexpr int64_t kMaxFoldedElements = 1 << 16;
  Operation *producer = operand->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  return llvm::all_of(operand->getOwner()->getResultTypes(), [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.hasStaticShape() &&
           shaped.getNumElements() <= kMaxFoldedElements;
  });
}

struct CPUFuseElementwiseOpsPass
    : numlir::impl::CPUFuseElementwiseOpsBase<CPUFuseElementwiseOpsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    linalg::ControlFusionFn singleUse = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    // The pattern set of linalg-fuse-elementwise-ops, with the fusion of
    // elementwise ops under `fusesWithoutRecomputation`.
    IRRewriter rewriter(ctx);
    getOperation()->walk([&](linalg::ReduceOp reduce) {
      rewriter.setInsertionPoint(reduce);
      (void)linalg::generalizeNamedOp(rewriter, reduce);
    });
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 fusesWithoutRecomputation);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, singleUse);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        patterns);
    linalg::populateConstantFoldLinalgOperations(patterns,
                                                 foldsIntoSmallConstant);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns),
                                GreedyRewriteConfig().setUseTopDownTraversal());
  }
};

} // namespace
