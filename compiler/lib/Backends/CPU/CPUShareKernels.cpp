//===- CPUShareKernels.cpp - one function per distinct loop nest ----------===//
//
// A training step repeats its work: the discriminator of a GAN runs on real
// and on generated images, and a deep network's layers are one layer many
// times over. Each copy used to become its own loop nest, so MLIR's
// lowering, LLVM's optimizer and its code generator did the same work once
// per copy, and the entry function grew with every copy. This pass moves
// each linalg op into a function of its buffers, one function per distinct
// op, and calls it from every place it occurred. Ops that occur once move
// too: in a function of their own their buffers are `noalias`, so LLVM
// vectorizes without runtime alias checks and the loop copies those checks
// guard, and the passes nested on functions spread over the compile threads
// instead of waiting on one long entry function.
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

#include "llvm/ADT/SetVector.h"

namespace numlir {
#define GEN_PASS_DEF_CPUSHAREKERNELS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// The values `op`'s body uses from outside it, constants aside, in the
/// order the body first uses them: a gather reads a buffer it indexes
/// itself, a padded copy compares indices with a size computed outside.
/// These become arguments of the kernel after the op's operands.
SmallVector<Value> capturedValues(Operation *op) {
  llvm::SetVector<Value> captured;
  op->walk([&](Operation *nested) {
    if (nested == op)
      return;
    for (Value operand : nested->getOperands()) {
      Operation *def = operand.getDefiningOp();
      bool inside = def ? op->isAncestor(def)
                        : op->isAncestor(cast<BlockArgument>(operand).getOwner()->getParentOp());
      if (!inside && !isa_and_nonnull<arith::ConstantOp>(def))
        captured.insert(operand);
    }
  });
  return captured.takeVector();
}

/// Whether `op` can move into a function of its operands and the values it
/// captures: a linalg op on buffers with static shapes whose body only
/// loads from the buffers it captures (a buffer it stored to would be
/// written behind the distinctness check below).
///
/// No bf16 value may be an argument: LLVM passes a `bfloat` argument as a
/// float it rounds with `__truncsfbf2`, which GCC 12's libgcc lacks, and
/// cpu-store-bf16-as-i16 rewrites values inside functions, not signatures.
/// Such an op (a bf16 fill) stays in its function.
bool isSharable(linalg::LinalgOp op, ArrayRef<Value> captured) {
  if (!op.hasPureBufferSemantics() || ShapedType::isDynamicShape(op.getStaticLoopRanges()))
    return false;
  for (Value value : llvm::concat<Value>(op->getOperands(), captured))
    if (!isa<MemRefType>(value.getType()) && getElementTypeOrSelf(value.getType()).isBF16())
      return false;
  for (Value value : captured)
    if (isa<MemRefType>(value.getType()))
      for (OpOperand &use : value.getUses())
        if (op->isAncestor(use.getOwner()) && !isa<memref::LoadOp>(use.getOwner()))
          return false;
  return true;
}

/// Whether the buffers `op` writes are distinct from every other buffer it
/// reaches, through its operands or the buffers its body loads from. In the
/// kernel each buffer is an argument marked `llvm.noalias` (so that LLVM
/// vectorizes its loops without runtime checks), and the contraction kernel
/// keeps an accumulator in registers only when no input can be the output;
/// a call must not break either.
bool operandsAreDistinctBuffers(linalg::LinalgOp op, ArrayRef<Value> captured) {
  SmallVector<Value> roots;
  for (Value value : llvm::concat<Value>(op->getOperands(), captured)) {
    if (!isa<MemRefType>(value.getType()))
      continue;
    Value root = numlir::rootAllocation(value);
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

/// A linalg op that becomes a call: the op, and the values its kernel takes
/// (its operands, then the values it captures).
struct Occurrence {
  linalg::LinalgOp op;
  SmallVector<Value> arguments;
};

/// Whether `a` and `b` compute the same thing on their own arguments: the
/// same op, attributes and body, arguments of the same types position by
/// position, and the same constants used from outside. Arguments are
/// matched by position, never by value: one op may pass a buffer twice
/// (`x @ x`) where the other passes two, and the kernel takes one argument
/// per position.
bool sameKernel(const Occurrence &a, const Occurrence &b) {
  if (a.arguments.size() != b.arguments.size() ||
      a.op->getNumOperands() != b.op->getNumOperands())
    return false;
  for (auto [x, y] : llvm::zip(a.arguments, b.arguments))
    if (x.getType() != y.getType())
      return false;
  auto isArgumentPair = [&](Value x, Value y) {
    for (auto [ax, by] : llvm::zip(a.arguments, b.arguments))
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
    return success(isArgumentPair(x, y));
  };
  auto mark = [&](Value x, Value y) { matched[x] = y; };
  return OperationEquivalence::isEquivalentTo(a.op, b.op, check, mark,
                                              OperationEquivalence::IgnoreLocations);
}

struct CPUShareKernelsPass : numlir::impl::CPUShareKernelsBase<CPUShareKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // Candidates per function body, in order; classes of identical ones.
    SmallVector<SmallVector<Occurrence>> classes;
    llvm::DenseMap<llvm::hash_code, SmallVector<unsigned>> byHash;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      for (Operation &op : func.getBody().front()) {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
        if (!linalgOp)
          continue;
        SmallVector<Value> captured = capturedValues(linalgOp);
        if (!isSharable(linalgOp, captured) || !operandsAreDistinctBuffers(linalgOp, captured))
          continue;
        Occurrence occurrence{linalgOp, llvm::to_vector(op.getOperands())};
        llvm::append_range(occurrence.arguments, captured);
        llvm::hash_code hash = OperationEquivalence::computeHash(
            &op, [](Value v) { return hash_value(v.getType()); },
            OperationEquivalence::ignoreHashValue, OperationEquivalence::IgnoreLocations);
        SmallVector<unsigned> &candidates = byHash[hash];
        auto same = llvm::find_if(candidates, [&](unsigned c) {
          return sameKernel(classes[c].front(), occurrence);
        });
        if (same != candidates.end()) {
          classes[*same].push_back(std::move(occurrence));
        } else {
          candidates.push_back(classes.size());
          classes.push_back({std::move(occurrence)});
        }
      }
    }

    OpBuilder builder(module.getContext());
    for (SmallVector<Occurrence> &members : classes) {
      func::FuncOp kernel = outline(builder, module, members.front());
      symbols.insert(kernel);
      for (Occurrence &member : members) {
        builder.setInsertionPoint(member.op);
        func::CallOp::create(builder, member.op.getLoc(), kernel, member.arguments);
        member.op->erase();
      }
    }
  }

  /// A private function of `occurrence`'s arguments holding a copy of its
  /// op (and of the constants its body uses), inserted at the end of
  /// `module`.
  func::FuncOp outline(OpBuilder &builder, ModuleOp module, const Occurrence &occurrence) {
    linalg::LinalgOp op = occurrence.op;
    MLIRContext *ctx = module.getContext();
    builder.setInsertionPointToEnd(module.getBody());
    auto type = FunctionType::get(ctx, ValueRange(occurrence.arguments).getTypes(), {});
    auto kernel = func::FuncOp::create(builder, op.getLoc(), "numlir_kernel", type);
    kernel.setPrivate();
    // Internal like @main, and never inlined back: the point is one copy.
    kernel->setAttr("llvm.linkage", LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
    kernel->setAttr("passthrough", ArrayAttr::get(ctx, {StringAttr::get(ctx, "noinline")}));
    // No written buffer is reachable through another argument
    // (operandsAreDistinctBuffers); arguments that are only read may be one
    // buffer, which noalias allows.
    for (auto [index, type] : llvm::enumerate(type.getInputs()))
      if (isa<MemRefType>(type))
        kernel.setArgAttr(index, LLVM::LLVMDialect::getNoAliasAttrName(), UnitAttr::get(ctx));
    Block *body = kernel.addEntryBlock();
    builder.setInsertionPointToStart(body);
    IRMapping mapping;
    unsigned numOperands = op->getNumOperands();
    for (auto [value, argument] :
         llvm::zip(ArrayRef(occurrence.arguments).drop_front(numOperands),
                   body->getArguments().drop_front(numOperands)))
      mapping.map(value, argument);
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
    builder.clone(*op, mapping)->setOperands(body->getArguments().take_front(numOperands));
    func::ReturnOp::create(builder, op.getLoc());
    return kernel;
  }
};

} // namespace
