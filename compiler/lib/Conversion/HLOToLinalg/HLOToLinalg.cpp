//===- HLOToLinalg.cpp - the convert-hlo-to-linalg pass -------------------===//
//
// Runs every op family's patterns in one partial conversion with the hlo
// dialect illegal, so an op without a lowering fails at that op; only
// hlo.optimization_barrier stays (with signless types) for the stages after.
// Function signatures, calls and returns are converted too: unsigned tensors
// become signless, which is all arith and linalg accept (the runtime's ABI is
// byte-level, so the boundary loses nothing).
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

#include "numlir/Conversion/Passes.h"
#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace numlir {
#define GEN_PASS_DEF_CONVERTHLOTOLINALG
#include "numlir/Conversion/Passes.h.inc"
} // namespace numlir

using namespace mlir;
using namespace numlir::hlo_to_linalg;

namespace {
struct ConvertHLOToLinalgPass
    : numlir::impl::ConvertHLOToLinalgBase<ConvertHLOToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    SignlessTypeConverter converter;

    ConversionTarget target(*ctx);
    target.addIllegalDialect<numlir::hlo::HLODialect>();
    target.addLegalDialect<arith::ArithDialect,
                           bufferization::BufferizationDialect,
                           complex::ComplexDialect, linalg::LinalgDialect,
                           math::MathDialect, memref::MemRefDialect,
                           scf::SCFDialect,
                           tensor::TensorDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::CallOp, func::ReturnOp>(
        [&](Operation *op) { return converter.isLegal(op); });

    RewritePatternSet patterns(ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateElementwisePatterns(converter, patterns);
    populateCompareSelectConvertPatterns(converter, patterns);
    populateConstantPatterns(converter, patterns);
    populateShapeOpPatterns(converter, patterns);
    populateReductionPatterns(converter, patterns);
    populateDotGeneralPatterns(converter, patterns);
    populateSlicingPatterns(converter, patterns);
    populateWindowPatterns(converter, patterns);
    populateControlFlowPatterns(converter, patterns);
    populateSortPatterns(converter, patterns);
    populateOptimizationBarrierPatterns(converter, patterns, target);
    populateHostCallbackPatterns(converter, patterns);
    populateCustomCallPatterns(converter, patterns);
    populateCollectivePatterns(converter, patterns);

    // Folding is hlo-optimize's job; lowering every op as written keeps
    // this pass independent of the hlo folders.
    ConversionConfig config;
    config.foldingMode = DialectConversionFoldingMode::Never;
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
