//===- CUDAOutlineFusions.cpp - one function per GPU kernel ---------------===//
//
// The CUDA backend compiles one kernel per hlo.fusion. Making each fusion a
// function first lets the target-independent lowering and bufferization run
// on it unchanged (they do not know hlo.fusion), and leaves the kernel's
// buffers as the function's arguments, which is what a launch passes.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CUDA/Passes.h"
#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace numlir {
#define GEN_PASS_DEF_CUDAOUTLINEFUSIONS
#include "numlir/Backends/CUDA/Passes.h.inc"
} // namespace numlir

using namespace mlir;
using namespace numlir::hlo;

namespace {

/// Ops that need the host between kernels, or a runtime service: the CUDA
/// backend has no launch program step for them yet.
std::optional<llvm::StringRef> unsupportedReason(Operation *op) {
  if (isa<HostCallbackOp>(op))
    return llvm::StringRef("host callbacks are not supported on the cuda "
                           "backend yet");
  if (isa<CustomCallOp>(op))
    return llvm::StringRef("hlo.custom_call calls a host library (LAPACK, "
                           "the runtime's FFT), which the cuda backend does "
                           "not have; lower the primitive to its portable "
                           "composite instead");
  if (isa<AllReduceOp, AllGatherOp, AllToAllOp, ReduceScatterOp,
          CollectivePermuteOp, ReplicaIdOp>(op))
    return llvm::StringRef("collectives are not supported on the cuda backend "
                           "yet");
  if (isa<func::CallOp>(op))
    return llvm::StringRef("calls between functions are not supported on the "
                           "cuda backend yet");
  return std::nullopt;
}

/// Whether `op` stays in the entry function: constants are the launch
/// program's constant buffers, not kernels.
bool staysOnHost(Operation *op) {
  return isa<ConstantOp, func::ReturnOp>(op);
}

struct CUDAOutlineFusionsPass
    : numlir::impl::CUDAOutlineFusionsBase<CUDAOutlineFusionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        entries.push_back(func);
    for (func::FuncOp entry : entries)
      if (failed(outlineKernels(entry, symbols)))
        return signalPassFailure();
  }

  LogicalResult outlineKernels(func::FuncOp entry, SymbolTable &symbols) {
    if (!entry.getBody().hasOneBlock())
      return entry.emitError("the cuda backend needs an entry function of one "
                             "block");
    SmallVector<Operation *> kernels;
    for (Operation &op : entry.getBody().front()) {
      if (staysOnHost(&op))
        continue;
      if (std::optional<llvm::StringRef> reason = unsupportedReason(&op))
        return op.emitOpError() << "cannot run on the cuda backend: "
                                << *reason;
      kernels.push_back(&op);
    }
    int64_t index = 0;
    Operation *previous = entry;
    for (Operation *op : kernels)
      previous = outlineKernel(
          op, previous,
          (entry.getName() + "_kernel_" + llvm::Twine(index++)).str(),
          symbols);
    return success();
  }

  /// Moves `op` (an hlo.fusion's body, or the op itself) into a new private
  /// function after `previous` and calls it in its place.
  func::FuncOp outlineKernel(Operation *op, Operation *previous,
                             const std::string &name, SymbolTable &symbols) {
    auto fusion = dyn_cast<FusionOp>(op);
    // A control-flow op's regions read values from above: they are the
    // function's arguments too.
    SmallVector<Value> operands(op->getOperands());
    if (!fusion) {
      SetVector<Value> captured;
      getUsedValuesDefinedAbove(op->getRegions(), captured);
      for (Value value : captured)
        if (!llvm::is_contained(operands, value))
          operands.push_back(value);
    }
    OpBuilder builder(op->getContext());
    builder.setInsertionPointAfter(previous);
    auto type = builder.getFunctionType(TypeRange(operands),
                                        op->getResultTypes());
    auto kernel = func::FuncOp::create(builder, op->getLoc(), name, type);
    kernel.setPrivate();
    symbols.insert(kernel);
    Block *body = kernel.addEntryBlock();
    builder.setInsertionPointToStart(body);
    IRMapping mapping;
    SmallVector<Value> results;
    if (fusion) {
      Block &fused = fusion.getBody().front();
      mapping.map(fused.getArguments(), body->getArguments());
      for (Operation &inner : fused.without_terminator())
        builder.clone(inner, mapping);
      for (Value returned : fused.getTerminator()->getOperands())
        results.push_back(mapping.lookupOrDefault(returned));
    } else {
      mapping.map(operands, body->getArguments());
      Operation *clone = builder.clone(*op, mapping);
      llvm::append_range(results, clone->getResults());
    }
    func::ReturnOp::create(builder, op->getLoc(), results);

    builder.setInsertionPoint(op);
    auto call = func::CallOp::create(builder, op->getLoc(), kernel, operands);
    op->replaceAllUsesWith(call.getResults());
    op->erase();
    return kernel;
  }
};

} // namespace
