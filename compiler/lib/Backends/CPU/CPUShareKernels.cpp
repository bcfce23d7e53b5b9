//===- CPUShareKernels.cpp - one function per distinct loop nest ----------===//
//
// A training step repeats its work: the discriminator of a GAN runs on real
// and on generated images, and a deep network's layers are one layer many
// times over. Each copy used to become its own loop nest, so MLIR's
// lowering, LLVM's optimizer and its code generator did the same work once
// per copy, and the entry function grew with every copy. This pass moves
// each loop nest (a linalg op, a row-fused parallel loop) into a function
// of its buffers, one function per distinct loop nest, and calls it from
// every place it occurred. Loop nests that occur once move too: in a
// function of their own their buffers are `noalias`, so LLVM vectorizes
// without runtime alias checks and the loop copies those checks guard, and
// the passes nested on functions spread over the compile threads instead of
// waiting on one long entry function.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "numlir/Bufferization/BufferQueries.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/SetVector.h"

namespace numlir {
#define GEN_PASS_DEF_CPUSHAREKERNELS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// Whether `value` is defined inside `op` (by an op or as a block argument
/// of one of its regions).
bool isDefinedInside(Value value, Operation *op) {
  Operation *def = value.getDefiningOp();
  return def ? op->isAncestor(def)
             : op->isAncestor(cast<BlockArgument>(value).getOwner()->getParentOp());
}

/// The values `op`'s regions use from outside it, constants aside, in the
/// order they are first used: a gather reads a buffer it indexes itself, a
/// padded copy compares indices with a size computed outside, a row-fused
/// loop reads and writes the buffers of the ops it holds. These become
/// arguments of the kernel after the op's operands.
SmallVector<Value> capturedValues(Operation *op) {
  llvm::SetVector<Value> captured;
  op->walk([&](Operation *nested) {
    if (nested == op)
      return;
    for (Value operand : nested->getOperands())
      if (!isDefinedInside(operand, op) && !operand.getDefiningOp<arith::ConstantOp>())
        captured.insert(operand);
  });
  return captured.takeVector();
}

/// Whether `op` is a loop nest that can move into a function: a linalg op on
/// buffers with static loops, or a parallel loop without results (a
/// row-fused run of ops, cpu-fuse-row-loops).
bool isLoopNest(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return linalgOp.hasPureBufferSemantics() &&
           !ShapedType::isDynamicShape(linalgOp.getStaticLoopRanges());
  auto loop = dyn_cast<scf::ParallelOp>(op);
  return loop && loop->getNumResults() == 0;
}

/// The buffers from outside `op` that it or anything inside it may write or
/// free, as their root allocations; nullopt where a write's buffer cannot be
/// told (an op of unknown effects, a write to no value, a buffer whose
/// origin rootAllocation cannot see). Buffers allocated inside are its own.
std::optional<SmallVector<Value>> writtenRoots(Operation *op) {
  SmallVector<Value> written;
  WalkResult walk = op->walk([&](Operation *nested) {
    auto interface = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!interface)
      return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ? WalkResult::advance()
                                                                   : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> effects;
    interface.getEffects(effects);
    for (MemoryEffects::EffectInstance &effect : effects) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
        continue;
      Value target = effect.getValue();
      Value root = target ? numlir::rootAllocation(target) : Value();
      if (!root)
        return WalkResult::interrupt();
      if (!isDefinedInside(root, op))
        written.push_back(root);
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return std::nullopt;
  return written;
}

/// Whether every buffer `op` writes is reached through exactly one of its
/// `arguments`. In the kernel each buffer is an argument marked
/// `llvm.noalias` (so that LLVM vectorizes its loops without runtime
/// checks), and the contraction kernel keeps an accumulator in registers
/// only when no input can be the output; a call must not break either.
/// Buffers that are only read may be one (`x * x`): noalias says nothing
/// about memory that is only read.
bool writesDistinctBuffers(Operation *op, ArrayRef<Value> arguments) {
  SmallVector<Value> roots;
  for (Value value : arguments) {
    if (!isa<MemRefType>(value.getType()))
      continue;
    Value root = numlir::rootAllocation(value);
    if (!root)
      return false;
    roots.push_back(root);
  }
  std::optional<SmallVector<Value>> written = writtenRoots(op);
  return written && llvm::all_of(*written, [&](Value root) {
           return llvm::count(roots, root) == 1;
         });
}

/// A loop nest that becomes a call: the op, and the values its kernel takes
/// (its operands that are not constants, then the values it captures).
struct Occurrence {
  Operation *op;
  SmallVector<Value> arguments;
};

/// The occurrence `op` makes, or nullopt where it must stay. No bf16 value
/// may be an argument: LLVM passes a `bfloat` argument as a float it rounds
/// with `__truncsfbf2`, which GCC 12's libgcc lacks (cpu-store-bf16-as-i16
/// rewrites values inside functions, not signatures).
std::optional<Occurrence> occurrenceOf(Operation *op) {
  if (!isLoopNest(op))
    return std::nullopt;
  Occurrence occurrence{op, {}};
  for (Value operand : op->getOperands())
    if (!operand.getDefiningOp<arith::ConstantOp>())
      occurrence.arguments.push_back(operand);
  llvm::append_range(occurrence.arguments, capturedValues(op));
  for (Value value : occurrence.arguments)
    if (!isa<MemRefType>(value.getType()) && getElementTypeOrSelf(value.getType()).isBF16())
      return std::nullopt;
  if (!writesDistinctBuffers(op, occurrence.arguments))
    return std::nullopt;
  return occurrence;
}

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
        std::optional<Occurrence> occurrence = occurrenceOf(&op);
        if (!occurrence)
          continue;
        llvm::hash_code hash = OperationEquivalence::computeHash(
            &op, [](Value v) { return hash_value(v.getType()); },
            OperationEquivalence::ignoreHashValue, OperationEquivalence::IgnoreLocations);
        SmallVector<unsigned> &candidates = byHash[hash];
        auto same = llvm::find_if(candidates, [&](unsigned c) {
          return sameKernel(classes[c].front(), *occurrence);
        });
        if (same != candidates.end()) {
          classes[*same].push_back(std::move(*occurrence));
        } else {
          candidates.push_back(classes.size());
          classes.push_back({std::move(*occurrence)});
        }
      }
    }

    OpBuilder builder(module.getContext());
    for (SmallVector<Occurrence> &members : classes) {
      func::FuncOp kernel = outline(builder, module, members.front());
      symbols.insert(kernel);
      for (Occurrence &member : members) {
        builder.setInsertionPoint(member.op);
        func::CallOp::create(builder, member.op->getLoc(), kernel, member.arguments);
        member.op->erase();
      }
    }
  }

  /// A private function of `occurrence`'s arguments holding a copy of its
  /// op (and of the constants it uses), inserted at the end of `module`.
  func::FuncOp outline(OpBuilder &builder, ModuleOp module, const Occurrence &occurrence) {
    Operation *op = occurrence.op;
    MLIRContext *ctx = module.getContext();
    builder.setInsertionPointToEnd(module.getBody());
    auto type = FunctionType::get(ctx, ValueRange(occurrence.arguments).getTypes(), {});
    auto kernel = func::FuncOp::create(builder, op->getLoc(), "numlir_kernel", type);
    kernel.setPrivate();
    // Internal like @main, and never inlined back: the point is one copy.
    kernel->setAttr("llvm.linkage", LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
    kernel->setAttr("passthrough", ArrayAttr::get(ctx, {StringAttr::get(ctx, "noinline")}));
    // No written buffer is reachable through another argument
    // (writesDistinctBuffers); arguments that are only read may be one
    // buffer, which noalias allows.
    for (auto [index, type] : llvm::enumerate(type.getInputs()))
      if (isa<MemRefType>(type))
        kernel.setArgAttr(index, LLVM::LLVMDialect::getNoAliasAttrName(), UnitAttr::get(ctx));
    Block *body = kernel.addEntryBlock();
    builder.setInsertionPointToStart(body);
    // Constants, the op's own and those its regions use, are copied in.
    IRMapping mapping;
    auto copyConstant = [&](Value value) {
      if (auto constant = value.getDefiningOp<arith::ConstantOp>())
        if (!op->isAncestor(constant) && !mapping.contains(value))
          mapping.map(value, builder.clone(*constant)->getResult(0));
    };
    op->walk([&](Operation *nested) { llvm::for_each(nested->getOperands(), copyConstant); });
    // Operands take the leading arguments position by position, even where
    // `op` passes one buffer at several positions; captured values the rest.
    SmallVector<Value> operands;
    auto arguments = body->getArguments().begin();
    for (Value operand : op->getOperands())
      operands.push_back(mapping.contains(operand) ? mapping.lookup(operand) : *arguments++);
    for (Value captured : ArrayRef(occurrence.arguments).drop_front(arguments - body->args_begin()))
      mapping.map(captured, *arguments++);
    builder.clone(*op, mapping)->setOperands(operands);
    func::ReturnOp::create(builder, op->getLoc());
    return kernel;
  }
};

} // namespace
