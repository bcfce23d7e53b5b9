//===- CPUExpandArith.cpp - arith-expand that keeps float min and max -----===//
//
// Upstream arith-expand also rewrites arith.maximumf/minimumf (and the
// maxnumf/minnumf pair) into compare-and-select chains with explicit NaN
// checks. LLVM's loop vectorizer does not recognize those chains as
// reductions, so `max(x, axis=1)` stayed a scalar loop. Kept as ops,
// convert-arith-to-llvm turns them into llvm.maximum/minimum/maxnum/minnum,
// which have the same NaN and signed-zero semantics and which LLVM vectorizes
// (vector.reduce.fmaximum and friends).
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace numlir {
#define GEN_PASS_DEF_CPUEXPANDARITH
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {
struct CPUExpandArithPass
    : numlir::impl::CPUExpandArithBase<CPUExpandArithPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateExpandBFloat16Patterns(patterns);
    arith::populateExpandScalingExtTruncPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
