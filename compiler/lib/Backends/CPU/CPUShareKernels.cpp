//===- CPUShareKernels.cpp - one function per distinct loop nest ----------===//
//
// A training step repeats its work: the discriminator of a GAN runs on real
// and on generated images, and a deep network's layers are one layer many
// times over. Each copy used to become its own loop nest, so MLIR's
// lowering, LLVM's optimizer and its code generator did the same work once
// per copy, and the entry function grew with every copy. This pass moves
// each linalg op that occurs more than once, identical up to its buffers,
// into one private function, and calls it from every place it occurred.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "numlir/Bufferization/BufferQueries.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/MapVector.h"

namespace numlir {
#define GEN_PASS_DEF_CPUSHAREKERNELS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// Whether `op` can move into a function of its operands: a linalg op on
/// buffers with static shapes whose body uses no value from outside it but
/// constants.
bool isSharable(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || ShapedType::isDynamicShape(op.getStaticLoopRanges()))
    return false;
  bool captures = false;
  op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands()) {
      Operation *def = operand.getDefiningOp();
      bool inside = def ? op->isAncestor(def)
                        : op->isAncestor(cast<BlockArgument>(operand).getOwner()->getParentOp());
      if (nested != op.getOperation() && !inside && !isa_and_nonnull<arith::ConstantOp>(def))
        captures = true;
    }
  });
  return !captures;
}

/// Whether the buffers `op` writes are distinct from every other buffer it
/// reaches. In the shared function each operand is an argument marked
/// `llvm.noalias` (so that LLVM vectorizes its loops without runtime
/// checks), and the contraction kernel keeps an accumulator in registers
/// only when no input can be the output; a call must not break either.
bool operandsAreDistinctBuffers(linalg::LinalgOp op) {
  SmallVector<Value> roots;
  for (Value operand : op->getOperands()) {
    if (!isa<MemRefType>(operand.getType()))
      continue;
    Value root = numlir::rootAllocation(operand);
    if (!root)
      return false;
    roots.push_back(root);
  }
  for (OpOperand &init : op.getDpsInitsMutable()) {
    Value root = numlir::rootAllocation(init.get());
    if (llvm::count(roots, root) != 1)
      return false;
  }
  return true;
}

/// Whether `a` and `b` compute the same thing on their own operands: the
/// same op, attributes and body, operands of the same types position by
/// position, and the same constants used from outside. Operands are matched
/// by position, never by value: one op may pass a buffer twice (`x @ x`)
/// where the other passes two, and the kernel takes one argument per
/// position.
bool sameKernel(Operation *a, Operation *b) {
  if (a->getNumOperands() != b->getNumOperands())
    return false;
  for (auto [x, y] : llvm::zip(a->getOperands(), b->getOperands()))
    if (x.getType() != y.getType())
      return false;
  auto isOperandPair = [&](Value x, Value y) {
    for (auto [ax, by] : llvm::zip(a->getOperands(), b->getOperands()))
      if (ax == x && by == y)
        return true;
    return false;
  };
  // Values defined inside the two ops, paired as the comparison walks them.
  llvm::DenseMap<Value, Value> matched;
  auto check = [&](Value x, Value y) -> LogicalResult {
    auto cx = x.getDefiningOp<arith::ConstantOp>(), cy = y.getDefiningOp<arith::ConstantOp>();
    if (cx || cy) // the kernel gets its own copy of a constant: equal values only
      return success(cx && cy && cx.getValue() == cy.getValue());
    auto it = matched.find(x);
    if (it != matched.end())
      return success(it->second == y);
    return success(isOperandPair(x, y));
  };
  auto mark = [&](Value x, Value y) { matched[x] = y; };
  return OperationEquivalence::isEquivalentTo(a, b, check, mark,
                                              OperationEquivalence::IgnoreLocations);
}

struct CPUShareKernelsPass : numlir::impl::CPUShareKernelsBase<CPUShareKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // Candidates per function body, in order; classes of identical ones.
    SmallVector<SmallVector<linalg::LinalgOp>> classes;
    llvm::DenseMap<llvm::hash_code, SmallVector<unsigned>> byHash;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      for (Operation &op : func.getBody().front()) {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
        if (!linalgOp || !isSharable(linalgOp) || !operandsAreDistinctBuffers(linalgOp))
          continue;
        llvm::hash_code hash = OperationEquivalence::computeHash(
            &op, [](Value v) { return hash_value(v.getType()); },
            OperationEquivalence::ignoreHashValue, OperationEquivalence::IgnoreLocations);
        SmallVector<unsigned> &candidates = byHash[hash];
        auto same = llvm::find_if(candidates, [&](unsigned c) {
          return sameKernel(classes[c].front(), &op);
        });
        if (same != candidates.end()) {
          classes[*same].push_back(linalgOp);
        } else {
          candidates.push_back(classes.size());
          classes.push_back({linalgOp});
        }
      }
    }

    OpBuilder builder(module.getContext());
    for (SmallVector<linalg::LinalgOp> &members : classes) {
      if (members.size() < 2)
        continue;
      linalg::LinalgOp first = members.front();
      func::FuncOp kernel = outline(builder, module, first);
      symbols.insert(kernel);
      for (linalg::LinalgOp member : members) {
        builder.setInsertionPoint(member);
        func::CallOp::create(builder, member.getLoc(), kernel, member->getOperands());
        member->erase();
      }
    }
  }

  /// A private function of `op`'s operands holding a copy of `op` (and of
  /// the constants its body uses), inserted at the end of `module`.
  func::FuncOp outline(OpBuilder &builder, ModuleOp module, linalg::LinalgOp op) {
    MLIRContext *ctx = module.getContext();
    builder.setInsertionPointToEnd(module.getBody());
    auto type = FunctionType::get(ctx, op->getOperandTypes(), {});
    auto kernel = func::FuncOp::create(builder, op.getLoc(), "numlir_kernel", type);
    kernel.setPrivate();
    // Internal like @main, and never inlined back: the point is one copy.
    kernel->setAttr("llvm.linkage", LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
    kernel->setAttr("passthrough", ArrayAttr::get(ctx, {StringAttr::get(ctx, "noinline")}));
    // No written buffer is reachable through another argument
    // (operandsAreDistinctBuffers); arguments that are only read may be one
    // buffer, which noalias allows.
    for (auto [index, type] : llvm::enumerate(op->getOperandTypes()))
      if (isa<MemRefType>(type))
        kernel.setArgAttr(index, LLVM::LLVMDialect::getNoAliasAttrName(), UnitAttr::get(ctx));
    Block *body = kernel.addEntryBlock();
    builder.setInsertionPointToStart(body);
    IRMapping mapping;
    op->walk([&](Operation *nested) {
      if (nested == op.getOperation())
        return;
      for (Value operand : nested->getOperands())
        if (auto constant = operand.getDefiningOp<arith::ConstantOp>())
          if (!op->isAncestor(constant) && !mapping.contains(operand))
            mapping.map(operand, builder.clone(*constant)->getResult(0));
    });
    // Argument i stands for operand i, even where `op` passes one buffer at
    // several positions.
    builder.clone(*op, mapping)->setOperands(body->getArguments());
    func::ReturnOp::create(builder, op.getLoc());
    return kernel;
  }
};

} // namespace
