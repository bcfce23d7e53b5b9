//===- CPURoundBeforeDiscontinuities.cpp - keep 16-bit rounding observable ===//
//
// math-extend-to-supported-types and arith-emulate-unsupported-floats compute
// bf16/f16 operations in f32 between an extf and a truncf, both marked
// `contract`, which lets arith fold `extf(truncf(x))` to `x`: the value skips
// its rounding. Carried into a continuous function that changes the result by
// an ulp; carried into a comparison, a floor or a conversion to an integer it
// changes the answer itself (a tie in argmax under jit went to the last
// index; floor(exp(log(x))) gave 89 for 90). Every round trip that such an
// operation depends on loses `contract` here, so it sees the value the
// program computed; chains that end in a store keep their excess precision.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace numlir {
#define GEN_PASS_DEF_CPUROUNDBEFOREDISCONTINUITIES
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// Operations whose result jumps where the operand crosses a point, so that
/// one ulp of excess precision can change it by more than an ulp.
bool isDiscontinuous(Operation *op) {
  return isa<arith::CmpFOp, arith::FPToSIOp, arith::FPToUIOp, arith::RemFOp,
             arith::BitcastOp, math::FloorOp, math::CeilOp, math::RoundOp,
             math::RoundEvenOp, math::TruncOp, math::IsInfOp, math::IsNaNOp,
             math::IsFiniteOp, math::IsNormalOp>(op);
}

/// The `extf` of a `truncf` back to the wider type: the pair the arith folder
/// removes when both carry `contract`.
bool isRoundTrip(arith::ExtFOp ext) {
  auto trunc = ext.getIn().getDefiningOp<arith::TruncFOp>();
  return trunc && trunc.getIn().getType() == ext.getType();
}

/// Clears `contract` from every round trip that `root` depends on through
/// arith and math operations, so that each value on the way is rounded as
/// the program rounds it.
void keepRoundingUpstreamOf(Value root, llvm::SmallPtrSetImpl<Value> &seen) {
  SmallVector<Value> worklist{root};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    Operation *def = value.getDefiningOp();
    if (!def || !isa<arith::ArithDialect, math::MathDialect>(def->getDialect()))
      continue;
    if (auto ext = dyn_cast<arith::ExtFOp>(def); ext && isRoundTrip(ext))
      ext->removeAttr(ext.getFastmathAttrName());
    llvm::append_range(worklist, def->getOperands());
  }
}

struct CPURoundBeforeDiscontinuitiesPass
    : numlir::impl::CPURoundBeforeDiscontinuitiesBase<
          CPURoundBeforeDiscontinuitiesPass> {
  void runOnOperation() override {
    llvm::SmallPtrSet<Value, 32> seen;
    getOperation()->walk([&](Operation *op) {
      if (isDiscontinuous(op))
        for (Value operand : op->getOperands())
          keepRoundingUpstreamOf(operand, seen);
    });
  }
};

} // namespace
