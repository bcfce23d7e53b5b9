//===- AssignBuffers.cpp - temporaries at offsets in one arena ------------===//
//
// Bufferization gives every temporary its own allocation and frees them all
// at the end of the function, so a training step holds every activation and
// gradient at once, in buffers scattered over the heap. XLA instead assigns
// each temporary an offset in one block, from liveness: buffers that are
// never live together share bytes, a call makes one allocation, and the
// bytes a step reuses are still in cache. This pass does that for the static
// buffers of each function's top-level block.
//
//===----------------------------------------------------------------------===//

#include "numlir/Bufferization/Passes.h"

#include "numlir/Bufferization/AllocationSites.h"
#include "numlir/Bufferization/ArenaSlots.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

namespace numlir {
#define GEN_PASS_DEF_ASSIGNBUFFERS
#include "numlir/Bufferization/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// Offsets and the arena itself are aligned as bufferization aligns its
/// allocations (a cache line, and the widest vector).
constexpr int64_t kAlignment = 64;

/// One buffer placed in the arena: live from the top-level op at `start`
/// to the one at `end`, both included.
struct Member {
  memref::AllocOp alloc;
  memref::DeallocOp dealloc;
  int64_t bytes, start, end, offset = 0;
};

/// Bytes of a static buffer of `type`, or nothing when the arena cannot
/// hold it as a `memref.view` (dynamic sizes, a layout, elements that are
/// not whole bytes).
std::optional<int64_t> viewableBytes(MemRefType type) {
  Type element = type.getElementType();
  if (!type.getLayout().isIdentity() || type.getMemorySpace() ||
      (element.isIntOrFloat() && element.getIntOrFloatBitWidth() % 8 != 0))
    return std::nullopt;
  return numlir::staticAllocationBytes(type);
}

/// Whether `user` only reads or writes the buffer while it runs, keeping no
/// reference to it past its own end: element accesses, linalg ops, copies
/// and calls of the module's own functions (the kernels cpu-share-kernels
/// made, whose arguments are buffers they compute on).
bool usesWithoutCapture(Operation *user, ModuleOp module) {
  if (isa<linalg::LinalgOp, memref::CopyOp, memref::LoadOp, memref::StoreOp,
          memref::DimOp, memref::AtomicRMWOp, memref::GenericAtomicRMWOp,
          memref::PrefetchOp, vector::TransferReadOp, vector::TransferWriteOp,
          vector::LoadOp, vector::StoreOp, vector::MaskedLoadOp,
          vector::MaskedStoreOp, vector::GatherOp, vector::ScatterOp>(user))
    return true;
  if (auto call = dyn_cast<func::CallOp>(user)) {
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
    return callee && !callee.isExternal() && callee.getNumResults() == 0;
  }
  return false;
}

/// `alloc` as a member, with its live range over the top-level ops of
/// `block` (numbered by `position`), or nothing when its uses do not show
/// its whole lifetime or its one `memref.dealloc` is not in `block`.
std::optional<Member> liveRange(memref::AllocOp alloc, Block &block,
                                const llvm::DenseMap<Operation *, int64_t> &position,
                                ModuleOp module) {
  Member member{alloc, nullptr, 0, position.lookup(alloc), position.lookup(alloc)};
  SmallVector<Value> views = {alloc.getResult()};
  while (!views.empty()) {
    Value buffer = views.pop_back_val();
    for (OpOperand &use : buffer.getUses()) {
      Operation *user = use.getOwner();
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
        if (buffer != alloc.getResult() || dealloc->getBlock() != &block ||
            member.dealloc)
          return std::nullopt;
        member.dealloc = dealloc;
        continue;
      }
      auto view = dyn_cast<ViewLikeOpInterface>(user);
      if (view && view.getViewSource() == buffer) {
        for (Value result : user->getResults())
          if (isa<BaseMemRefType>(result.getType()))
            views.push_back(result);
      } else if (!usesWithoutCapture(user, module)) {
        return std::nullopt;
      }
      Operation *top = block.findAncestorOpInBlock(*user);
      if (!top)
        return std::nullopt;
      member.end = std::max(member.end, position.lookup(top));
    }
  }
  if (!member.dealloc)
    return std::nullopt;
  return member;
}

/// Offsets for `members`, largest first, each at the lowest aligned offset
/// that no member live at the same time occupies; returns the arena's size.
int64_t assignOffsets(MutableArrayRef<Member> members) {
  SmallVector<Member *> order;
  for (Member &member : members)
    order.push_back(&member);
  llvm::stable_sort(order, [](const Member *a, const Member *b) {
    return a->bytes > b->bytes;
  });
  SmallVector<Member *> placed;
  int64_t size = 0;
  for (Member *member : order) {
    SmallVector<Member *> overlapping;
    for (Member *other : placed)
      if (other->start <= member->end && member->start <= other->end)
        overlapping.push_back(other);
    llvm::sort(overlapping, [](const Member *a, const Member *b) {
      return a->offset < b->offset;
    });
    int64_t offset = 0;
    for (Member *other : overlapping) {
      if (offset + member->bytes <= other->offset)
        break;
      offset = std::max(offset, static_cast<int64_t>(llvm::alignTo(
                                    other->offset + other->bytes, kAlignment)));
    }
    member->offset = offset;
    placed.push_back(member);
    size = std::max(size, offset + member->bytes);
  }
  return static_cast<int64_t>(llvm::alignTo(size, kAlignment));
}

struct AssignBuffersPass
    : numlir::impl::AssignBuffersBase<AssignBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (maxBufferBytes < 0) {
      module.emitError() << "assign-buffers needs max-buffer-bytes >= 0, got "
                         << static_cast<int64_t>(maxBufferBytes);
      return signalPassFailure();
    }
    SmallVector<std::string> sites;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        assignBlock(func.getBody().front(), module, sites);
    numlir::appendAllocationSites(module, sites);
  }

  /// Moves the members of `block` into one arena, and records the arena's
  /// allocation sites (its size, with the first lines of its buffers).
  void assignBlock(Block &block, ModuleOp module, SmallVectorImpl<std::string> &sites) {
    llvm::DenseMap<Operation *, int64_t> position;
    SmallVector<Operation *> ops;
    for (auto [index, op] : llvm::enumerate(block)) {
      position[&op] = index;
      ops.push_back(&op);
    }
    SmallVector<Member> members;
    for (auto alloc : block.getOps<memref::AllocOp>()) {
      std::optional<int64_t> bytes = viewableBytes(alloc.getType());
      if (!bytes || *bytes == 0 || *bytes > maxBufferBytes ||
          alloc.getAlignment().value_or(kAlignment) > kAlignment)
        continue;
      if (std::optional<Member> member = liveRange(alloc, block, position, module)) {
        member->bytes = *bytes;
        members.push_back(*member);
      }
    }
    if (members.size() < 2)
      return;
    int64_t size = assignOffsets(members);

    MLIRContext *ctx = module.getContext();
    SmallVector<Location> locations;
    for (Member &member : members)
      locations.push_back(member.alloc.getLoc());
    Location loc = FusedLoc::get(ctx, locations);
    OpBuilder b = OpBuilder::atBlockBegin(&block);
    auto arenaType = MemRefType::get({size}, b.getI8Type());
    Value arena =
        memref::AllocOp::create(b, loc, arenaType, b.getI64IntegerAttr(kAlignment));
    Value bytes = memref::CastOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, b.getI8Type()), arena);
    b.setInsertionPoint(block.getTerminator());
    memref::DeallocOp::create(b, loc, arena);
    // Each member is a slot of the arena from its allocation to just after
    // its last use, which tells LLVM what separate allocations did
    // (ArenaSlots.h).
    for (Member &member : members) {
      Location at = member.alloc.getLoc();
      b.setInsertionPoint(member.alloc);
      Value slot = numlir::createArenaSlot(b, at, module, bytes, member.offset,
                                                member.bytes);
      Value start = arith::ConstantIndexOp::create(b, at, 0);
      Value view = memref::ViewOp::create(b, at, member.alloc.getType(), slot, start,
                                          ValueRange{});
      if (member.end == member.start)
        b.setInsertionPointAfter(view.getDefiningOp());
      else
        b.setInsertionPointAfter(ops[member.end]);
      numlir::createArenaSlotEnd(b, at, module, slot);
      member.dealloc->erase();
      member.alloc.getResult().replaceAllUsesWith(view);
      member.alloc->erase();
    }

    // A failed arena allocation names the lines of its first buffers.
    SmallVector<std::string, 3> lines;
    for (Location location : locations) {
      std::string where = numlir::userLocation(location, module);
      if (!where.empty() && !llvm::is_contained(lines, where))
        lines.push_back(where);
      if (lines.size() == 3)
        break;
    }
    std::string type = "arena[" + std::to_string(members.size()) + "-buffers]";
    for (const std::string &where : lines)
      sites.push_back(std::to_string(size) + " " + type + " " + where);
  }
};

} // namespace
