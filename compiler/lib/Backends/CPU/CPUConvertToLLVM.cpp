//===- CPUConvertToLLVM.cpp - the final lowering as one conversion --------===//
//
// The CPU pipeline ended in seven conversion passes to the LLVM dialect, each
// a full walk of the module with a conversion set up of its own. Their
// patterns compose: one conversion with all of them, under the union of
// their targets, does the same work in one walk.
//
// Upstream's function conversion drops a memref argument's attributes (its
// descriptor becomes several arguments, most of them integers), so
// `llvm.noalias`, which cpu-share-kernels puts on a kernel's buffers, would
// never reach LLVM; this pass moves it to the descriptor's aligned pointer,
// the one every access goes through.
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
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
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

/// Per function, the arguments after the conversion that are the aligned
/// pointers of memref arguments marked `llvm.noalias`. A ranked memref
/// becomes its unpacked descriptor (allocated pointer, aligned pointer,
/// offset, sizes, strides); any other argument becomes one.
llvm::StringMap<SmallVector<unsigned>> noAliasPointers(ModuleOp module) {
  llvm::StringMap<SmallVector<unsigned>> pointers;
  StringRef noAlias = LLVM::LLVMDialect::getNoAliasAttrName();
  for (auto func : module.getOps<func::FuncOp>()) {
    SmallVector<unsigned> positions;
    unsigned position = 0;
    for (auto [index, type] : llvm::enumerate(func.getArgumentTypes())) {
      auto memref = dyn_cast<MemRefType>(type);
      if (memref && func.getArgAttr(index, noAlias))
        positions.push_back(position + 1);
      position += memref ? MemRefDescriptor::getNumUnpackedValues(memref) : 1;
    }
    if (!positions.empty())
      pointers[func.getSymName()] = std::move(positions);
  }
  return pointers;
}

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
    llvm::StringMap<SmallVector<unsigned>> noAlias = noAliasPointers(module);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      auto found = noAlias.find(func.getSymName());
      if (found == noAlias.end())
        continue;
      for (unsigned position : found->second)
        func.setArgAttr(position, LLVM::LLVMDialect::getNoAliasAttrName(),
                        UnitAttr::get(ctx));
    }
  }
};

} // namespace
