//===- HLOWidenAccumulation.cpp - 16-bit float sums accumulate in f32 -----===//
//
// A sum of n bfloat16 values rounded after every addition loses about
// log2(n) bits more than one rounding of the exact sum: adding 1.01 three
// hundred times gives 312 in bf16 steps, 302 with an f32 accumulator. XLA
// accumulates 16-bit float reductions, contractions and convolutions in f32,
// and numlir gives the same answers, so this pass rewrites each such op to
// run on f32 operands, with one conversion back to the 16-bit type at the
// end. Max and min are exact in any precision and stay as they are.
//
//===----------------------------------------------------------------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"
#include "numlir/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"

namespace numlir {
#define GEN_PASS_DEF_HLOWIDENACCUMULATION
#include "numlir/Transforms/Passes.h.inc"
} // namespace numlir

using namespace mlir;
using namespace numlir::hlo;

static bool isSixteenBitFloat(Type type) {
  return type.isBF16() || type.isF16();
}

static bool isAccumulatingKind(ReduceKind kind) {
  return kind == ReduceKind::Sum || kind == ReduceKind::Prod;
}

/// Whether `op` accumulates many products or sums in its result type.
static bool accumulates(Operation *op) {
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return isAccumulatingKind(reduce.getKind());
  if (auto scan = dyn_cast<CumulativeOp>(op))
    return isAccumulatingKind(scan.getKind());
  if (auto window = dyn_cast<ReduceWindowOp>(op))
    return isAccumulatingKind(window.getKind());
  return isa<DotGeneralOp, ConvolutionOp>(op);
}

static RankedTensorType withElementType(Type type, Type elementType) {
  return cast<RankedTensorType>(type).clone(elementType);
}

/// Rewrites `op` (one tensor result of a 16-bit float type) to compute in
/// f32 between conversions.
static void widen(Operation *op) {
  OpBuilder builder(op);
  Type f32 = builder.getF32Type();
  IRMapping mapping;
  for (Value operand : op->getOperands()) {
    Type elementType = getElementTypeOrSelf(operand.getType());
    if (!isSixteenBitFloat(elementType))
      continue;
    Value wide = ConvertOp::create(
        builder, op->getLoc(), withElementType(operand.getType(), f32),
        operand);
    mapping.map(operand, wide);
  }
  Operation *wideOp = builder.clone(*op, mapping);
  Value result = op->getResult(0);
  Type narrowType = result.getType();
  wideOp->getResult(0).setType(withElementType(narrowType, f32));
  Value narrow = ConvertOp::create(builder, op->getLoc(), narrowType,
                                   wideOp->getResult(0));
  result.replaceAllUsesWith(narrow);
  op->erase();
}

namespace {
struct HLOWidenAccumulationPass
    : numlir::impl::HLOWidenAccumulationBase<HLOWidenAccumulationPass> {
  void runOnOperation() override {
    SmallVector<Operation *> toWiden;
    getOperation()->walk([&](Operation *op) {
      if (op->getNumResults() == 1 && accumulates(op) &&
          isSixteenBitFloat(getElementTypeOrSelf(op->getResult(0).getType())))
        toWiden.push_back(op);
    });
    for (Operation *op : toWiden)
      widen(op);
  }
};
} // namespace
