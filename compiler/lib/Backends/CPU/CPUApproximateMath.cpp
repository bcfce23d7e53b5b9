//===- CPUApproximateMath.cpp - vectorizable f32 transcendentals ----------===//

#include "numlir/Backends/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"
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
    keepTheSignOfErf();
    keepNaNsOutOfExp<math::ExpOp>();
    keepNaNsOutOfExp<math::ExpM1Op>();
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns,
        [](StringRef name) { return approximated.contains(name); });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }

  /// The f32 polynomials for exp and expm1 convert their range-reduced
  /// argument to an integer exponent; for a NaN that conversion is poison in
  /// LLVM, which then may drop the store of the result altogether (a jitted
  /// exp of a value it proves NaN returned uninitialised memory). The
  /// expansion sees 0 in place of a NaN, and the NaN is selected back into
  /// the result.
  template <typename ExpLikeOp> void keepNaNsOutOfExp() {
    getOperation()->walk([](ExpLikeOp op) {
      if (!getElementTypeOrSelf(op.getType()).isF32())
        return;
      Location loc = op.getLoc();
      OpBuilder b(op);
      Value x = op.getOperand();
      Value isNaN =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(x.getType()));
      Value safe = arith::SelectOp::create(b, loc, isNaN, zero, x);
      op->setOperand(0, safe);
      b.setInsertionPointAfter(op);
      Value result =
          arith::SelectOp::create(b, loc, isNaN, x, op.getResult());
      op.getResult().replaceAllUsesExcept(result, result.getDefiningOp());
    });
  }

  /// The f32 polynomial for erf returns +0 at -0 (and may flush tiny negative
  /// arguments to +0); erf is odd and has its argument's sign (C99: erf(-0)
  /// is -0), so the approximated value takes the sign of the argument. f64
  /// keeps the library's erf, which is right already.
  void keepTheSignOfErf() {
    getOperation()->walk([](math::ErfOp erf) {
      if (!getElementTypeOrSelf(erf.getType()).isF32())
        return;
      OpBuilder b(erf);
      b.setInsertionPointAfter(erf);
      auto signed_ = math::CopySignOp::create(b, erf.getLoc(), erf.getResult(),
                                              erf.getOperand());
      erf.getResult().replaceAllUsesExcept(signed_, signed_);
    });
  }
};
} // namespace
