//===- HLOEraseOptimizationBarriers.cpp - barriers become their operands --===//

#include "numlir/Transforms/Passes.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

namespace numlir {
#define GEN_PASS_DEF_HLOERASEOPTIMIZATIONBARRIERS
#include "numlir/Transforms/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {
struct HLOEraseOptimizationBarriersPass
    : numlir::impl::HLOEraseOptimizationBarriersBase<
          HLOEraseOptimizationBarriersPass> {
  void runOnOperation() override {
    // A post-order walk may erase the op it is visiting.
    getOperation()->walk([](numlir::hlo::OptimizationBarrierOp op) {
      op->replaceAllUsesWith(op.getOperands());
      op->erase();
    });
  }
};
} // namespace
