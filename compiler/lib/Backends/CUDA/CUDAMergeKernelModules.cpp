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
    // Outlining names each module uniquely but may give the kernels inside
    // the same name (main_kernel in @main_kernel and in @main_kernel_0): a
    // moved kernel whose name is taken gets its module's.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> renamed;
    for (gpu::GPUModuleOp source : llvm::drop_begin(kernelModules)) {
      for (Operation &op :
           llvm::make_early_inc_range(source.getBody()->getOperations())) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        StringAttr oldName = symbol ? symbol.getNameAttr() : StringAttr();
        if (symbol && targetSymbols.lookup(oldName)) {
          if (targetSymbols.lookup(source.getNameAttr())) {
            op.emitOpError("cannot move into ")
                << target.getName() << ": the names "
                << oldName << " and " << source.getName() << " are taken there";
            return signalPassFailure();
          }
          symbol.setName(source.getNameAttr());
        }
        op.moveBefore(target.getBody(), target.getBody()->end());
        if (symbol) {
          targetSymbols.insert(&op);
          renamed[{source.getNameAttr(), oldName}] = symbol.getNameAttr();
        }
      }
    }
    auto targetName = target.getNameAttr();
    module.walk([&](gpu::LaunchFuncOp launch) {
      StringAttr kernel = launch.getKernelName();
      auto moved = renamed.find({launch.getKernelModuleName(), kernel});
      if (moved != renamed.end())
        kernel = moved->second;
      launch.setKernelAttr(
          SymbolRefAttr::get(targetName, {FlatSymbolRefAttr::get(kernel)}));
    });
    for (gpu::GPUModuleOp source : llvm::drop_begin(kernelModules))
      source.erase();
  }
};

} // namespace
