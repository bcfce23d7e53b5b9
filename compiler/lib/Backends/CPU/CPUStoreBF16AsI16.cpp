//===- CPUStoreBF16AsI16.cpp - bf16 values travel as i16 in LLVM IR -------===//
//
// On x86 without AVX-512 BF16, LLVM keeps a bfloat value in an f32
// register and rounds it back (a call to __truncsfbf2, which GCC 12's libgcc
// lacks) wherever it must exist as 16 bits: a store, a bitcast, a value that
// crosses blocks. After arith-expand all bf16 arithmetic is integer
// arithmetic, so this pass carries every bf16 value that is loaded, stored,
// selected or passed between blocks as i16, and the bitcasts that remain
// fold away.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

namespace numlir {
#define GEN_PASS_DEF_CPUSTOREBF16ASI16
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

Value bitcast(OpBuilder &builder, Location loc, Type type, Value value) {
  return LLVM::BitcastOp::create(builder, loc, type, value);
}

/// Gives `value` (a result or block argument now typed i16) a bf16 view for
/// its remaining users.
void viewAsBF16(OpBuilder &builder, Value value, Type bf16) {
  Value view = bitcast(builder, value.getLoc(), bf16, value);
  value.replaceAllUsesExcept(view, view.getDefiningOp());
}

struct CPUStoreBF16AsI16Pass
    : numlir::impl::CPUStoreBF16AsI16Base<CPUStoreBF16AsI16Pass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Type bf16 = BFloat16Type::get(ctx), i16 = IntegerType::get(ctx, 16);
    OpBuilder builder(ctx);

    getOperation()->walk([&](Operation *op) {
      Location loc = op->getLoc();
      if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        if (load.getType() != bf16)
          return;
        load.getResult().setType(i16);
        builder.setInsertionPointAfter(load);
        viewAsBF16(builder, load.getResult(), bf16);
      } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
        if (store.getValue().getType() != bf16)
          return;
        builder.setInsertionPoint(store);
        store.getValueMutable().assign(
            bitcast(builder, loc, i16, store.getValue()));
      } else if (auto select = dyn_cast<LLVM::SelectOp>(op)) {
        if (select.getType() != bf16)
          return;
        builder.setInsertionPoint(select);
        select.getTrueValueMutable().assign(
            bitcast(builder, loc, i16, select.getTrueValue()));
        select.getFalseValueMutable().assign(
            bitcast(builder, loc, i16, select.getFalseValue()));
        select.getResult().setType(i16);
        builder.setInsertionPointAfter(select);
        viewAsBF16(builder, select.getResult(), bf16);
      } else if (auto branch = dyn_cast<BranchOpInterface>(op)) {
        builder.setInsertionPoint(op);
        for (unsigned s = 0, e = op->getNumSuccessors(); s < e; ++s) {
          MutableOperandRange forwarded =
              branch.getSuccessorOperands(s).getMutableForwardedOperands();
          for (OpOperand &operand : forwarded)
            if (operand.get().getType() == bf16)
              operand.set(bitcast(builder, loc, i16, operand.get()));
        }
      }
    });

    // Block arguments of non-entry blocks, whose incoming values the
    // branches above now pass as i16.
    getOperation()->walk([&](Block *block) {
      if (block->isEntryBlock())
        return;
      builder.setInsertionPointToStart(block);
      for (BlockArgument argument : block->getArguments())
        if (argument.getType() == bf16) {
          argument.setType(i16);
          viewAsBF16(builder, argument, bf16);
        }
    });
  }
};

} // namespace
