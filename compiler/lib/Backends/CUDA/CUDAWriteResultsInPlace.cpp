//===- CUDAWriteResultsInPlace.cpp - kernels write the outputs directly ---===//
//
// Bufferization gives each kernel function's result a fresh buffer at its
// call, and the entry function then copies that buffer into its own
// out-parameter: on a GPU, one more pass over every output. Once the
// kernels are inlined, a temporary whose last use is that copy, into an
// out-parameter nothing else touches, can be the out-parameter itself.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CUDA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace numlir {
#define GEN_PASS_DEF_CUDAWRITERESULTSINPLACE
#include "numlir/Backends/CUDA/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// Whether every use of `value` is in `block`, before `copy`.
bool usedOnlyBefore(Value value, Operation *copy) {
  return llvm::all_of(value.getUses(), [&](OpOperand &use) {
    Operation *user = copy->getBlock()->findAncestorOpInBlock(*use.getOwner());
    return user == copy || (user && user->isBeforeInBlock(copy));
  });
}

struct CUDAWriteResultsInPlacePass
    : numlir::impl::CUDAWriteResultsInPlaceBase<CUDAWriteResultsInPlacePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<memref::CopyOp> copies;
    for (auto copy : func.getBody().front().getOps<memref::CopyOp>())
      copies.push_back(copy);
    for (memref::CopyOp copy : copies) {
      auto output = dyn_cast<BlockArgument>(copy.getTarget());
      auto alloc = copy.getSource().getDefiningOp<memref::AllocOp>();
      if (!output || output.getOwner() != &func.getBody().front() || !alloc ||
          alloc->getBlock() != copy->getBlock() ||
          alloc.getType() != output.getType() || !output.hasOneUse() ||
          !usedOnlyBefore(alloc, copy))
        continue;
      alloc.replaceAllUsesWith(output);
      copy.erase();
      alloc.erase();
    }
  }
};

} // namespace
