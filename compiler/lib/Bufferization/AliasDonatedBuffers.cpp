//===- AliasDonatedBuffers.cpp - donated inputs hold their outputs --------===//
//
// `jit(f, donate_argnums=...)` hands the callee an input buffer it may
// reuse; the runtime then passes that same buffer as the output it was
// paired with (`numlir.aliasing_output = j` on the argument, as JAX's
// `tf.aliasing_output`). Every pass before this one took the function's
// buffers to be distinct, so the code may write the output while the input
// is still to be read. This pass makes it right under the aliasing, after
// those passes: the output is written only at the end of the function, by
// one copy after the input's last use, and whatever wrote it before writes a
// temporary instead (which then lives in the arena, assign-buffers). One
// writer may write it directly: a collective the runtime runs in place
// (all_reduce, collective_permute) that reads the input at its last use, so
// a donated `pmap(psum)` makes no copy at all.
//
//===----------------------------------------------------------------------===//

#include "numlir/Bufferization/Passes.h"

#include "numlir/Conversion/CollectiveCalls.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace numlir {
#define GEN_PASS_DEF_ALIASDONATEDBUFFERS
#include "numlir/Bufferization/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

constexpr StringLiteral kAliasingOutput = "numlir.aliasing_output";

/// Pushes the memref results of `op` onto `views`.
void pushMemRefResults(Operation *op, SmallVectorImpl<Value> &views) {
  for (Value result : op->getResults())
    if (isa<BaseMemRefType>(result.getType()))
      views.push_back(result);
}

/// The top-level op of `block` at or after which nothing uses `buffer` or a
/// buffer made from it (uses in nested regions count at their top-level op);
/// the block's first op if nothing uses it. Every memref an op makes from
/// the buffer counts as a view of it: subviews and casts, and also
/// transposes and reshapes, whichever interfaces they implement. A use in a
/// nested region may hand the buffer out of it (`scf.if` yielding it from a
/// branch), so the results of every op around the use count as views too.
Operation *lastUse(Value buffer, Block &block) {
  Operation *last = &block.front();
  SmallVector<Value> views = {buffer};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!views.empty()) {
    Value value = views.pop_back_val();
    for (Operation *user : value.getUsers()) {
      Operation *top = block.findAncestorOpInBlock(*user);
      if (top && last->isBeforeInBlock(top))
        last = top;
      if (!seen.insert(user).second)
        continue;
      pushMemRefResults(user, views);
      for (Operation *around = user->getParentOp();
           top && around && around != top->getParentOp();
           around = around->getParentOp())
        if (seen.insert(around).second)
          pushMemRefResults(around, views);
    }
  }
  return last;
}

/// Whether `value` may be `buffer` or made from it: any op whose memref
/// operands may be is taken to make a view of them, and an op with regions
/// may also hand out any memref its regions' terminators yield.
bool madeFrom(Value value, Value buffer) {
  SmallVector<Value> pending = {value};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!pending.empty()) {
    Value current = pending.pop_back_val();
    if (current == buffer)
      return true;
    Operation *op = current.getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    for (Value operand : op->getOperands())
      if (isa<BaseMemRefType>(operand.getType()))
        pending.push_back(operand);
    for (Region &region : op->getRegions())
      for (Block &inner : region)
        if (!inner.empty() && inner.back().hasTrait<OpTrait::IsTerminator>())
          for (Value yielded : inner.back().getOperands())
            if (isa<BaseMemRefType>(yielded.getType()))
              pending.push_back(yielded);
  }
  return false;
}

/// Whether `user` is a collective call that reads exactly `arg` and writes
/// exactly `out`, of a kind whose runtime kernel is right with both the same
/// buffer: all_reduce and collective_permute, whose results are computed
/// only after every participant's operand has been read (runtime.md,
/// "Collectives"; the runtime's tests run both in place).
bool isInPlaceCollective(Operation *user, BlockArgument arg,
                         BlockArgument out) {
  namespace calls = numlir::collective_calls;
  auto call = dyn_cast<func::CallOp>(user);
  if (!call || call.getNumOperands() != 2 || call.getOperand(0) != arg ||
      call.getOperand(1) != out)
    return false;
  auto callee =
      SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  auto code = callee ? callee->getAttrOfType<IntegerAttr>(calls::kOpAttr)
                     : IntegerAttr();
  return code &&
         (code.getInt() ==
              static_cast<int64_t>(calls::CollectiveOpCode::AllReduce) ||
          code.getInt() ==
              static_cast<int64_t>(calls::CollectiveOpCode::CollectivePermute));
}

struct AliasDonatedBuffersPass
    : numlir::impl::AliasDonatedBuffersBase<AliasDonatedBuffersPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(aliasArguments(func)))
        return signalPassFailure();
  }

  /// The out-params of `func` (buffer-results-to-out-params' `bufferize.result`
  /// arguments), in result order.
  static SmallVector<BlockArgument> outputs(func::FuncOp func) {
    SmallVector<BlockArgument> outs;
    for (BlockArgument arg : func.getArguments())
      if (func.getArgAttr(arg.getArgNumber(), "bufferize.result"))
        outs.push_back(arg);
    return outs;
  }

  LogicalResult aliasArguments(func::FuncOp func) {
    Block &block = func.getBody().front();
    SmallVector<BlockArgument> outs = outputs(func);
    llvm::SmallBitVector taken(outs.size());
    for (BlockArgument arg : func.getArguments()) {
      Attribute attr = func.getArgAttr(arg.getArgNumber(), kAliasingOutput);
      if (!attr)
        continue;
      auto output = dyn_cast<IntegerAttr>(attr);
      if (!output)
        return func.emitError() << kAliasingOutput << " of argument #"
                                << arg.getArgNumber()
                                << " must be an integer output number";
      int64_t j = output.getInt();
      if (j < 0 || j >= static_cast<int64_t>(outs.size()))
        return func.emitError() << "argument #" << arg.getArgNumber()
                                << " is donated to output #" << j
                                << ", but the function has " << outs.size()
                                << " output buffers";
      if (taken.test(j))
        return func.emitError() << "two arguments are donated to output #" << j;
      taken.set(j);
      BlockArgument out = outs[j];
      auto type = dyn_cast<MemRefType>(out.getType());
      if (!type || arg.getType() != type || !type.hasStaticShape())
        return func.emitError()
               << "argument #" << arg.getArgNumber() << " of type "
               << arg.getType() << " is donated to output #" << j
               << " of type " << out.getType()
               << "; a donated buffer holds an output of its own static type";
      writeAtTheEnd(arg, out, type, block);
    }
    return success();
  }

  /// Makes `out`, the same buffer as `arg` at run time, written only after
  /// `arg`'s last use: as it is when its one writer is a copy after that use
  /// (a result that was the argument, say), or an in-place collective at that
  /// use; otherwise every writer of `out`
  /// writes a temporary, copied into `out` just before the return.
  void writeAtTheEnd(BlockArgument arg, BlockArgument out, MemRefType type,
                     Block &block) {
    if (out.hasOneUse()) {
      Operation *writer = *out.getUsers().begin();
      if (writer->getBlock() == &block &&
          isInPlaceCollective(writer, arg, out) &&
          lastUse(arg, block) == writer)
        return;
      auto copy = dyn_cast<memref::CopyOp>(writer);
      // The copy's source must not be a view of the argument in another
      // layout (a transpose copied onto itself); the argument itself is fine.
      if (copy && copy.getTarget() == out && copy->getBlock() == &block &&
          (copy.getSource() == arg || !madeFrom(copy.getSource(), arg))) {
        Operation *last = lastUse(arg, block);
        if (last == copy || last->isBeforeInBlock(copy))
          return;
      }
    }
    OpBuilder b = OpBuilder::atBlockBegin(&block);
    Location loc = out.getLoc();
    Value temporary = memref::AllocOp::create(b, loc, type);
    out.replaceAllUsesWith(temporary);
    b.setInsertionPoint(block.getTerminator());
    memref::CopyOp::create(b, loc, temporary, out);
    memref::DeallocOp::create(b, loc, temporary);
  }
};

} // namespace
