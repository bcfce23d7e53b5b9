//===- OptimizationBarrier.cpp - hlo.optimization_barrier stays, signless -===//
//
// The barrier is not lowered: it must stand between a recomputation and the
// value it repeats through fusion, canonicalize and cse on linalg, until
// hlo-erase-optimization-barriers removes it before bufferization. The
// conversion only gives it signless types like every other value.
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

using namespace mlir;
namespace hlo = numlir::hlo;

namespace {
struct OptimizationBarrierTypes
    : OpConversionPattern<hlo::OptimizationBarrierOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::OptimizationBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), types)))
      return rewriter.notifyMatchFailure(op, "unconvertible result type");
    rewriter.replaceOpWithNewOp<hlo::OptimizationBarrierOp>(
        op, types, adaptor.getOperands());
    return success();
  }
};
} // namespace

void numlir::hlo_to_linalg::populateOptimizationBarrierPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  target.addDynamicallyLegalOp<hlo::OptimizationBarrierOp>(
      [&converter](Operation *op) { return converter.isLegal(op); });
  patterns.add<OptimizationBarrierTypes>(converter, patterns.getContext());
}
