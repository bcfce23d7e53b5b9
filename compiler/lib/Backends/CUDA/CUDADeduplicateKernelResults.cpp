//===- CUDADeduplicateKernelResults.cpp - each kernel result once ---------===//
//
// A bufferized kernel function may return one buffer several times (two
// zero-sized results of a multi-output fusion, bufferized in place into one
// allocation). Upstream's buffer-results-to-out-params then gives
// each occurrence an out-parameter and replaces the one allocation by the
// first of them, leaving the others to an erased buffer. Returning each
// value once, and giving every call's duplicate results the first one's
// value, keeps bufferization's input to what it handles.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CUDA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace numlir {
#define GEN_PASS_DEF_CUDADEDUPLICATEKERNELRESULTS
#include "numlir/Backends/CUDA/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

struct CUDADeduplicateKernelResultsPass
    : numlir::impl::CUDADeduplicateKernelResultsBase<
          CUDADeduplicateKernelResultsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (func.isPrivate() && !func.isExternal())
        deduplicate(func, module);
  }

  void deduplicate(func::FuncOp func, ModuleOp module) {
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    // first[i]: the position, among the kept results, that result i takes.
    SmallVector<Value> kept;
    SmallVector<int64_t> first;
    for (Value value : ret.getOperands()) {
      auto *found = llvm::find(kept, value);
      first.push_back(found - kept.begin());
      if (found == kept.end())
        kept.push_back(value);
    }
    if (kept.size() == ret.getNumOperands())
      return;
    OpBuilder builder(ret);
    func::ReturnOp::create(builder, ret.getLoc(), kept);
    ret.erase();
    func.setType(builder.getFunctionType(func.getArgumentTypes(),
                                         TypeRange(ValueRange(kept))));
    std::optional<SymbolTable::UseRange> uses = func.getSymbolUses(module);
    for (const SymbolTable::SymbolUse &use : uses ? *uses : SymbolTable::UseRange({})) {
      auto call = dyn_cast<func::CallOp>(use.getUser());
      if (!call)
        continue;
      builder.setInsertionPoint(call);
      auto replacement = func::CallOp::create(builder, call.getLoc(), func,
                                              call.getOperands());
      for (auto [result, position] : llvm::zip_equal(call.getResults(), first))
        result.replaceAllUsesWith(replacement.getResult(position));
      call.erase();
    }
  }
};

} // namespace
