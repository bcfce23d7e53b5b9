//===- CPUExpandFloatConversions.cpp - f64 <-> 16-bit floats in arith ----===//
//
// LLVM lowers `fptrunc double to bfloat/half` to the libcalls __truncdfbf2
// and __truncdfhf2 of the C compiler's runtime library, which GCC 12's
// libgcc lacks for bfloat16, so such an executable does not load. This pass
// restates those conversions through f32, which LLVM lowers inline.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace numlir {
#define GEN_PASS_DEF_CPUEXPANDFLOATCONVERSIONS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

bool isSixteenBitFloat(Type type) { return type.isBF16() || type.isF16(); }

/// `type` (a scalar or a vector) with element type `element`.
Type withElement(Type type, Type element) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(element);
  return element;
}

/// f64 -> bf16/f16 as f64 -> f32 rounded to odd, then f32 -> bf16/f16
/// rounded to nearest even. Rounding to odd first keeps the second rounding
/// correct, since f32 carries at least two more bits than twice the target
/// precision (24 >= 2 * 11 + 2 for f16, over the whole exponent range of
/// either target), so the result equals one rounding of the f64 value.
struct TruncF64ToSixteenBitFloat : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type inType = op.getIn().getType();
    if (!getElementTypeOrSelf(inType).isF64() ||
        !isSixteenBitFloat(getElementTypeOrSelf(op.getType())))
      return rewriter.notifyMatchFailure(op, "not an f64 -> 16-bit float");
    if (op.getRoundingmodeAttr())
      return rewriter.notifyMatchFailure(op, "explicit rounding mode");
    Location loc = op.getLoc();
    Value x = op.getIn();
    Type f32Type = withElement(inType, rewriter.getF32Type());
    Type i32Type = withElement(inType, rewriter.getI32Type());
    auto i32Constant = [&](int32_t value) -> Value {
      TypedAttr attr = rewriter.getI32IntegerAttr(value);
      if (auto shaped = dyn_cast<ShapedType>(i32Type))
        attr = SplatElementsAttr::get(shaped, attr);
      return arith::ConstantOp::create(rewriter, loc, attr);
    };

    // Round to nearest, then step one f32 toward zero where that
    // overshot |x|, and make the last bit odd where the rounding was
    // inexact: truncation with a sticky bit. NaNs compare unordered and
    // keep the nearest rounding (a NaN).
    Value nearest = arith::TruncFOp::create(rewriter, loc, f32Type, x);
    Value back = arith::ExtFOp::create(rewriter, loc, inType, nearest);
    Value inexact = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::ONE, back, x);
    Value overshot = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OGT,
        math::AbsFOp::create(rewriter, loc, back),
        math::AbsFOp::create(rewriter, loc, x));
    Value bits = arith::BitcastOp::create(rewriter, loc, i32Type, nearest);
    Value towardZero = arith::SelectOp::create(
        rewriter, loc, overshot,
        arith::SubIOp::create(rewriter, loc, bits, i32Constant(1)), bits);
    Value odd = arith::OrIOp::create(rewriter, loc, towardZero, i32Constant(1));
    Value rounded = arith::BitcastOp::create(
        rewriter, loc, f32Type,
        arith::SelectOp::create(rewriter, loc, inexact, odd, bits));
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), rounded,
                                                 /*roundingmode=*/nullptr,
                                                 op.getFastmathAttr());
    return success();
  }
};

/// bf16/f16 -> f64 through f32; both steps are exact.
struct ExtSixteenBitFloatToF64 : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Type inType = op.getIn().getType();
    if (!isSixteenBitFloat(getElementTypeOrSelf(inType)) ||
        !getElementTypeOrSelf(op.getType()).isF64())
      return rewriter.notifyMatchFailure(op, "not a 16-bit float -> f64");
    Value f32 = arith::ExtFOp::create(
        rewriter, op.getLoc(), withElement(inType, rewriter.getF32Type()),
        op.getIn());
    rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), f32);
    return success();
  }
};

struct CPUExpandFloatConversionsPass
    : numlir::impl::CPUExpandFloatConversionsBase<
          CPUExpandFloatConversionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<TruncF64ToSixteenBitFloat, ExtSixteenBitFloatToF64>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
