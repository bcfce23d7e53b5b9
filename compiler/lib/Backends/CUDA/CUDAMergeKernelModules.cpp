//===- CUDAMergeKernelModules.cpp - every kernel in one gpu.module --------===//
//
// Upstream's outlining gives each launch a gpu.module of its own; the cuda
// executable carries one GPU module (one PTX text, loaded once), so the
// kernels move into the first module before it is compiled.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace numlir {
#define GEN_PASS_DEF_CUDAMERGEKERNELMODULES
#include "numlir/Backends/CUDA/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

struct CUDAMergeKernelModulesPass
    : numlir::impl::CUDAMergeKernelModulesBase<CUDAMergeKernelModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto kernelModules = llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
    if (kernelModules.size() < 2)
      return;
    gpu::GPUModuleOp target = kernelModules.front();
    SymbolTable targetSymbols(target);
    for (gpu::GPUModuleOp source : llvm::drop_begin(kernelModules)) {
      for (Operation &op : llvm::make_early_inc_range(source.getBody()->getOperations())) {
        if (auto symbol = dyn_cast<SymbolOpInterface>(op);
            symbol && targetSymbols.lookup(symbol.getName())) {
          op.emitOpError("cannot move into ")
              << target.getName() << ": the name is taken there";
          return signalPassFailure();
        }
        op.moveBefore(target.getBody(), target.getBody()->end());
        if (auto symbol = dyn_cast<SymbolOpInterface>(op))
          targetSymbols.insert(&op);
      }
    }
    auto targetName = FlatSymbolRefAttr::get(target.getNameAttr());
    module.walk([&](gpu::LaunchFuncOp launch) {
      launch.setKernelAttr(SymbolRefAttr::get(
          targetName.getAttr(), {FlatSymbolRefAttr::get(launch.getKernelName())}));
    });
    for (gpu::GPUModuleOp source : llvm::drop_begin(kernelModules))
      source.erase();
  }
};

} // namespace
