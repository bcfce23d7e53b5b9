//===- SplitUnaliasedDeallocs.cpp - a dealloc per unaliased buffer --------===//
//
// The simplification of a bufferization.dealloc compares its operands
// pairwise; a buffer that cannot be any other operand needs no comparison.
//
//===----------------------------------------------------------------------===//

#include "numlir/Bufferization/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace numlir {
#define GEN_PASS_DEF_SPLITUNALIASEDDEALLOCS
#include "numlir/Bufferization/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// Whether the allocation `alloc` can reach no value but its own views, and
/// `dealloc` names it once, at `position`, and none of its views: no
/// other operand or retained value of `dealloc` can then be the same
/// allocation. A use may only read or write through it (an op without memref
/// results that is no terminator) or view it.
bool isUnaliased(memref::AllocOp alloc, bufferization::DeallocOp dealloc,
                 unsigned position) {
  SmallVector<Value> worklist = {alloc.getResult()};
  while (!worklist.empty()) {
    Value buffer = worklist.pop_back_val();
    for (OpOperand &use : buffer.getUses()) {
      Operation *user = use.getOwner();
      if (user == dealloc) {
        if (buffer != alloc.getResult() ||
            use.getOperandNumber() != dealloc.getMemrefs().getBeginOperandIndex() + position)
          return false;
        continue;
      }
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == buffer) {
        llvm::append_range(worklist, user->getResults());
        continue;
      }
      bool forwards = user->hasTrait<OpTrait::IsTerminator>() ||
                      llvm::any_of(user->getResultTypes(), llvm::IsaPred<BaseMemRefType>) ||
                      isa<memref::ExtractAlignedPointerAsIndexOp>(user);
      if (forwards)
        return false;
    }
  }
  return true;
}

struct SplitUnaliasedDeallocsPass
    : numlir::impl::SplitUnaliasedDeallocsBase<SplitUnaliasedDeallocsPass> {
  void runOnOperation() override {
    SmallVector<bufferization::DeallocOp> deallocs;
    getOperation()->walk([&](bufferization::DeallocOp op) { deallocs.push_back(op); });
    OpBuilder builder(&getContext());
    for (bufferization::DeallocOp dealloc : deallocs) {
      SmallVector<Value> keptMemrefs, keptConditions;
      builder.setInsertionPoint(dealloc);
      for (auto [position, memref, condition] :
           llvm::enumerate(dealloc.getMemrefs(), dealloc.getConditions())) {
        auto alloc = memref.getDefiningOp<memref::AllocOp>();
        if (alloc && isUnaliased(alloc, dealloc, position)) {
          bufferization::DeallocOp::create(builder, dealloc.getLoc(), ValueRange{memref},
                                           ValueRange{condition}, ValueRange{});
          continue;
        }
        keptMemrefs.push_back(memref);
        keptConditions.push_back(condition);
      }
      if (keptMemrefs.size() == dealloc.getMemrefs().size())
        continue;
      // The retained values' ownership comes from the operands that may be
      // them, all of which stay.
      dealloc.getMemrefsMutable().assign(keptMemrefs);
      dealloc.getConditionsMutable().assign(keptConditions);
    }
  }
};

} // namespace
