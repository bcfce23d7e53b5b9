//===- CPUCopyRepeatedResults.cpp - one tensor per function result --------===//
//
// A value returned twice would have to become two caller-provided output
// buffers from one allocation, which buffer-results-to-out-params cannot do;
// the repeats are returned as copies instead.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace numlir {
#define GEN_PASS_DEF_CPUCOPYREPEATEDRESULTS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {
struct CPUCopyRepeatedResultsPass
    : numlir::impl::CPUCopyRepeatedResultsBase<CPUCopyRepeatedResultsPass> {
  void runOnOperation() override {
    getOperation()->walk([](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 8> seen;
      OpBuilder builder(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<RankedTensorType>(value.getType());
        if (!type || seen.insert(value).second)
          continue;
        operand.set(bufferization::AllocTensorOp::create(
            builder, ret.getLoc(), type, /*dynamicSizes=*/ValueRange{},
            /*copy=*/value));
      }
    });
  }
};
} // namespace
