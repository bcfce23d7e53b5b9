//===- ControlFlowToSCF.cpp - hlo.while/if/case to scf on tensors ---------===//
//
// hlo.while becomes scf.while, hlo.if scf.if and hlo.case a chain of
// scf.if comparing the index with each branch number (an out-of-range index
// runs the last branch, as in XLA). The hlo regions
// are moved into the scf op with their argument types converted; each
// hlo.return then becomes the terminator its new parent needs, reading the
// scalar predicate of a while's `cond` out of its tensor<i1>.
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace hlo = numlir::hlo;

namespace {

/// The scalar held by a rank-0 tensor.
Value extractScalar(OpBuilder &b, Location loc, Value tensor) {
  return tensor::ExtractOp::create(b, loc, tensor, ValueRange{});
}

struct WhileLowering : OpConversionPattern<hlo::WhileOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::WhileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), types)))
      return rewriter.notifyMatchFailure(op, "unconvertible carried types");
    auto loop = scf::WhileOp::create(rewriter, op.getLoc(), types,
                                     adaptor.getOperands());
    rewriter.inlineRegionBefore(op.getCond(), loop.getBefore(),
                                loop.getBefore().end());
    rewriter.inlineRegionBefore(op.getBody(), loop.getAfter(),
                                loop.getAfter().end());
    if (failed(rewriter.convertRegionTypes(&loop.getBefore(),
                                           *getTypeConverter())) ||
        failed(rewriter.convertRegionTypes(&loop.getAfter(),
                                           *getTypeConverter())))
      return failure();
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

struct IfLowering : OpConversionPattern<hlo::IfOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::IfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), types)))
      return rewriter.notifyMatchFailure(op, "unconvertible result types");
    Location loc = op.getLoc();
    Value pred = extractScalar(rewriter, loc, adaptor.getPred());
    auto ifOp = scf::IfOp::create(rewriter, loc, types, pred,
                                  /*addThenBlock=*/false,
                                  /*addElseBlock=*/false);
    rewriter.inlineRegionBefore(op.getThenBranch(), ifOp.getThenRegion(),
                                ifOp.getThenRegion().end());
    rewriter.inlineRegionBefore(op.getElseBranch(), ifOp.getElseRegion(),
                                ifOp.getElseRegion().end());
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

struct CaseLowering : OpConversionPattern<hlo::CaseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::CaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), types)))
      return rewriter.notifyMatchFailure(op, "unconvertible result types");
    if (op.getBranches().size() == 1) { // always runs: its ops replace the case
      Block &body = op.getBranches().front().front();
      Operation *terminator = body.getTerminator();
      SmallVector<Value> results(terminator->getOperands());
      rewriter.inlineBlockBefore(&body, op);
      rewriter.eraseOp(terminator);
      rewriter.replaceOp(op, results);
      return success();
    }
    Value index = extractScalar(rewriter, op.getLoc(), adaptor.getIndex());
    scf::IfOp chain = buildChain(rewriter, op, types, index, 0);
    rewriter.replaceOp(op, chain.getResults());
    return success();
  }

  /// `if (index == i) {branch i} else {the chain for i + 1}`, the last
  /// branch being the final else. (Not scf.index_switch: one-shot
  /// bufferization of MLIR 22 lets a later op overwrite the buffer an
  /// index_switch result aliases; test_control_flow.py has the regression test.)
  scf::IfOp buildChain(ConversionPatternRewriter &rewriter, hlo::CaseOp op,
                       TypeRange types, Value index, unsigned i) const {
    Location loc = op.getLoc();
    MutableArrayRef<Region> branches = op.getBranches();
    Value constant =
        arith::ConstantIntOp::create(rewriter, loc, index.getType(), i);
    Value isThis = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::eq, index,
                                         constant);
    auto ifOp = scf::IfOp::create(rewriter, loc, types, isThis,
                                  /*addThenBlock=*/false,
                                  /*addElseBlock=*/false);
    rewriter.inlineRegionBefore(branches[i], ifOp.getThenRegion(),
                                ifOp.getThenRegion().end());
    if (i + 2 == branches.size()) {
      rewriter.inlineRegionBefore(branches.back(), ifOp.getElseRegion(),
                                  ifOp.getElseRegion().end());
      return ifOp;
    }
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.createBlock(&ifOp.getElseRegion());
    scf::IfOp rest = buildChain(rewriter, op, types, index, i + 1);
    scf::YieldOp::create(rewriter, loc, rest.getResults());
    return ifOp;
  }
};

/// Runs after the parent's lowering moved the region into an scf op.
struct ReturnLowering : OpConversionPattern<hlo::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *parent = op->getParentOp();
    auto loop = dyn_cast<scf::WhileOp>(parent);
    if (loop && op->getParentRegion() == &loop.getBefore()) {
      Value pred =
          extractScalar(rewriter, op.getLoc(), adaptor.getResults().front());
      rewriter.replaceOpWithNewOp<scf::ConditionOp>(
          op, pred, op->getBlock()->getArguments());
      return success();
    }
    if (!isa<scf::WhileOp, scf::IfOp>(parent))
      return rewriter.notifyMatchFailure(op, "parent is not lowered yet");
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, adaptor.getResults());
    return success();
  }
};

} // namespace

void numlir::hlo_to_linalg::populateControlFlowPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<WhileLowering, IfLowering, CaseLowering, ReturnLowering>(
      converter, patterns.getContext());
}
