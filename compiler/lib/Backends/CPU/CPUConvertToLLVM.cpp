//===- CPUConvertToLLVM.cpp - the final lowering as one conversion --------===//
//
// The CPU pipeline ended in seven conversion passes to the LLVM dialect, each
// a full walk of the module with a conversion set up of its own. Their
// patterns compose: one conversion with all of them, under the union of
// their targets, does the same work in one walk.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "numlir/Bufferization/ArenaSlots.h"

#include "mlir/Analysis/DataLayoutAnalysis.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ComplexToLLVM/ComplexToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace numlir {
#define GEN_PASS_DEF_CPUCONVERTTOLLVM
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

struct CPUConvertToLLVMPass
    : numlir::impl::CPUConvertToLLVMBase<CPUConvertToLLVMPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    const auto &dataLayout = getAnalysis<DataLayoutAnalysis>();
    LowerToLLVMOptions options(ctx, dataLayout.getAtOrAbove(module));
    // Heap buffers through the runtime's allocator table
    // (cpu-emit-c-entry-point defines the generic functions).
    options.allocLowering = LowerToLLVMOptions::AllocLowering::AlignedAlloc;
    options.useGenericFunctions = true;
    LLVMTypeConverter converter(ctx, options, &dataLayout);

    // The arena's slot calls (assign-buffers) become calls of opaque
    // functions, not of the declarations they name.
    if (failed(numlir::defineArenaSlotFunctions(module)))
      return signalPassFailure();
    SymbolTableCollection symbolTables;
    RewritePatternSet patterns(ctx);
    numlir::populateArenaSlotLoweringPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns, &symbolTables);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    // What convert-complex-to-standard leaves: complex constants, and
    // building and taking apart complex values.
    populateComplexToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns, &symbolTables);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    cf::populateAssertToLLVMConversionPattern(converter, patterns,
                                              /*abortOnFailure=*/true, &symbolTables);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    populateOpenMPToLLVMConversionPatterns(converter, patterns);

    // What is left of these dialects after the conversion could not be
    // lowered: an error here, not a module that fails to translate later.
    LLVMConversionTarget target(*ctx);
    target.addIllegalDialect<arith::ArithDialect, complex::ComplexDialect,
                             cf::ControlFlowDialect, func::FuncDialect, index::IndexDialect,
                             memref::MemRefDialect, ub::UBDialect>();
    configureOpenMPToLLVMConversionLegality(target, converter);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
