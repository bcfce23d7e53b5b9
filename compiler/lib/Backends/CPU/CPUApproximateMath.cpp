//===- CPUApproximateMath.cpp - vectorizable f32 transcendentals ----------===//

#include "numlir/Backends/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

namespace numlir {
#define GEN_PASS_DEF_CPUAPPROXIMATEMATH
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {
struct CPUApproximateMathPass
    : numlir::impl::CPUApproximateMathBase<CPUApproximateMathPass> {
  void runOnOperation() override {
    // The predicate sees full operation names.
    static const llvm::StringSet<> approximated = {
        "math.exp",  "math.expm1", "math.log", "math.log1p",
        "math.log2", "math.tanh",  "math.erf", "math.erfc"};
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns,
        [](StringRef name) { return approximated.contains(name); });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
