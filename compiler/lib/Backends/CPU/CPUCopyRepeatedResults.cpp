//===- CPUCopyRepeatedResults.cpp - one tensor per function result --------===//
//
// A value returned twice would have to become two caller-provided output
// buffers from one allocation, which buffer-results-to-out-params cannot do;
// the repeats are returned as copies instead. hlo-opt also takes IR that is
// already on buffers: a repeated buffer of static shape becomes a copy in a
// fresh allocation, any other repeated buffer an error (upstream's pass
// crashed on them).
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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
    WalkResult walk = getOperation()->walk([](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 8> seen;
      OpBuilder builder(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        if (!isa<ShapedType>(value.getType()) || seen.insert(value).second)
          continue;
        if (auto type = dyn_cast<RankedTensorType>(value.getType())) {
          operand.set(bufferization::AllocTensorOp::create(
              builder, ret.getLoc(), type, /*dynamicSizes=*/ValueRange{},
              /*copy=*/value));
          continue;
        }
        auto type = dyn_cast<MemRefType>(value.getType());
        if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity()) {
          ret.emitOpError("returns one buffer twice (result ")
              << operand.getOperandNumber()
              << "), and only a static buffer with the identity layout can be "
                 "copied into a result of its own";
          return WalkResult::interrupt();
        }
        auto copy = memref::AllocOp::create(builder, ret.getLoc(), type);
        memref::CopyOp::create(builder, ret.getLoc(), value, copy);
        operand.set(copy);
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
