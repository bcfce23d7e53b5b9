//===- CPUFuseRowLoops.cpp - run row-local linalg ops tile by tile --------===//
//
// Softmax on buffers is four linalg ops (row max, exp, row sum, divide),
// each a pass over the whole array: three DRAM reads and two writes of
// data that is 32 MB at 4096x1024. Every one of those ops computes row i
// of its outputs from row i of its inputs only, so running all of them on
// a few rows before moving on to the next rows computes the same values in
// the same order per element, and each row comes from DRAM once and leaves
// once. This pass finds runs of such row-local ops on buffers and turns each
// run into one loop over row tiles (an scf.parallel over the threads' chunks
// around an scf.for over tiles), and gives each temporary that lives only
// inside the run a tile-sized buffer per thread instead of a whole one.
//
// It runs on buffers, before cpu-parallelize-loops (which leaves ops inside
// an scf.parallel to the thread running them), so each member keeps its own
// loop nest and LLVM vectorizes it as before, on a slice.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "numlir/Bufferization/BufferQueries.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Threading.h"

#include <algorithm>

namespace numlir {
#define GEN_PASS_DEF_CPUFUSEROWLOOPS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// A buffer as the memory it lives in: the value no view was taken of (a
/// function argument or an allocation), reached through views that keep row
/// i of the view at row i of that memory.
struct RowBase {
  Value base;
  bool rowPreserving = true;
};

/// Whether `shape`'s dims other than `first` within a reassociation group are
/// all 1, so that the group's first dim alone carries the rows.
bool onlyOnesAfterFirst(ArrayRef<int64_t> shape, ArrayRef<int64_t> group) {
  return llvm::all_of(group.drop_front(), [&](int64_t d) { return shape[d] == 1; });
}

RowBase rowBaseOf(Value value) {
  RowBase result{value, true};
  while (Operation *def = result.base.getDefiningOp()) {
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(def)) {
      SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
      // A reshape from or to rank 0 has no groups, and no rows to keep.
      result.rowPreserving &= !groups.empty() &&
                              onlyOnesAfterFirst(expand.getResultType().getShape(), groups[0]);
      result.base = expand.getSrc();
    } else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def)) {
      SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
      result.rowPreserving &= !groups.empty() &&
                              onlyOnesAfterFirst(collapse.getSrcType().getShape(), groups[0]);
      result.base = collapse.getSrc();
    } else if (auto castOp = dyn_cast<memref::CastOp>(def)) {
      result.rowPreserving &= castOp.getSource().getType() == castOp.getType();
      result.base = castOp.getSource();
    } else if (isa<ViewLikeOpInterface>(def)) {
      // A subview or reinterpretation: its rows are not the memory's rows.
      result.rowPreserving = false;
      result.base = cast<ViewLikeOpInterface>(def).getViewSource();
    } else {
      break;
    }
  }
  auto type = dyn_cast<MemRefType>(result.base.getType());
  result.rowPreserving &= type && type.getRank() > 0 && type.hasStaticShape() &&
                          type.getLayout().isIdentity();
  return result;
}

/// How one member reads and writes its buffers, by rows.
struct RowAccess {
  unsigned rowLoop = 0;
  /// Operands indexed by rows (row i of the op is row i of the operand).
  SmallVector<OpOperand *> rowOperands;
  /// Inputs read whole by every row (a bias, a scalar).
  SmallVector<OpOperand *> wholeInputs;
};

bool usesDim(AffineExpr expr, unsigned dim) { return expr.isFunctionOfDim(dim); }

/// How `op` accesses its operands by rows of `rows` each, or nothing when it
/// is not row-local: its outermost output dimension must be a parallel loop
/// of `rows` iterations that indexes dimension 0 of every operand it reaches
/// and no other dimension, through views that keep the memory's rows.
/// Contractions and windows keep their own kernels; ops with dynamic shapes,
/// bodies that write memory, or an input that is also an output read at
/// other elements are left alone too.
std::optional<RowAccess> rowAccessOf(linalg::LinalgOp op, int64_t &rows) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() == 0 ||
      linalg::isaContractionOpInterface(op) || op.hasIndexSemantics() ||
      isa<linalg::ConvolutionOpInterface>(op.getOperation()))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty() || ShapedType::isDynamicShape(ranges))
    return std::nullopt;
  for (AffineMap map : op.getIndexingMapsArray())
    for (AffineExpr e : map.getResults())
      if (!isa<AffineDimExpr>(e) &&
          !(isa<AffineConstantExpr>(e) && cast<AffineConstantExpr>(e).getValue() == 0))
        return std::nullopt;
  if (!numlir::piecesAreIndependent(op))
    return std::nullopt;

  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outMap.getNumResults() == 0 || !isa<AffineDimExpr>(outMap.getResult(0)))
    return std::nullopt;
  RowAccess access;
  access.rowLoop = cast<AffineDimExpr>(outMap.getResult(0)).getPosition();
  if (op.getIteratorTypesArray()[access.rowLoop] != utils::IteratorType::parallel)
    return std::nullopt;
  if (rows == 0)
    rows = ranges[access.rowLoop];
  if (ranges[access.rowLoop] != rows)
    return std::nullopt;

  llvm::DenseMap<Value, bool> byRows; // how each distinct buffer is read
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue; // a scalar input (linalg.fill's value)
    AffineMap map = op.getMatchingIndexingMap(&operand);
    bool first = map.getNumResults() > 0 && map.getResult(0) == outMap.getResult(0);
    bool elsewhere = llvm::any_of(map.getResults().drop_front(first ? 1 : 0),
                                  [&](AffineExpr e) { return usesDim(e, access.rowLoop); });
    if (elsewhere)
      return std::nullopt;
    bool isInit = op.isDpsInit(&operand);
    if (first) {
      if (!rowBaseOf(operand.get()).rowPreserving)
        return std::nullopt;
      access.rowOperands.push_back(&operand);
    } else if (isInit) {
      return std::nullopt;
    } else {
      access.wholeInputs.push_back(&operand);
    }
    auto [it, inserted] = byRows.try_emplace(operand.get(), first);
    if (!inserted && it->second != first)
      return std::nullopt;
  }
  return access;
}

/// Bytes of one row of a buffer whose dim 0 holds `rows` rows.
int64_t rowBytes(MemRefType type) {
  int64_t elements = 1;
  for (int64_t d : type.getShape().drop_front())
    elements *= d;
  int64_t bytes = numlir::hlo::elementBytes(type.getElementType()).value_or(1);
  return std::max<int64_t>(1, elements * bytes);
}

int64_t bufferBytes(MemRefType type) { return rowBytes(type) * type.getDimSize(0); }

/// A run of row-local ops in one block and the ops between them that move
/// out of the way: pure ops and allocations before the loop, deallocations
/// after it.
struct RowGroup {
  int64_t rows = 0;
  SmallVector<std::pair<linalg::LinalgOp, RowAccess>> members;
  SmallVector<Operation *> before, after;
  /// Memory written by members, and memory some member reads whole: a
  /// member may not read whole what another writes by rows, nor write what
  /// another reads whole, since tiles would then see each other's rows.
  llvm::SmallSetVector<Value, 8> written, readWhole;
  llvm::SmallSetVector<Value, 8> rowBases;

  bool tryAdd(linalg::LinalgOp op) {
    int64_t r = rows;
    std::optional<RowAccess> access = rowAccessOf(op, r);
    if (!access)
      return false;
    llvm::SmallSetVector<Value, 4> writes;
    for (OpOperand &init : op.getDpsInitsMutable())
      writes.insert(rowBaseOf(init.get()).base);
    for (OpOperand *whole : access->wholeInputs) {
      Value base = rowBaseOf(whole->get()).base;
      if (written.contains(base) || writes.contains(base))
        return false;
    }
    for (OpOperand &init : op.getDpsInitsMutable())
      if (readWhole.contains(rowBaseOf(init.get()).base))
        return false;
    rows = r;
    for (OpOperand *whole : access->wholeInputs)
      readWhole.insert(rowBaseOf(whole->get()).base);
    for (OpOperand &init : op.getDpsInitsMutable())
      written.insert(rowBaseOf(init.get()).base);
    for (OpOperand *operand : access->rowOperands)
      rowBases.insert(rowBaseOf(operand->get()).base);
    members.emplace_back(op, std::move(*access));
    return true;
  }

  int64_t footprint() const {
    int64_t bytes = 0;
    for (Value base : rowBases)
      bytes += bufferBytes(cast<MemRefType>(base.getType()));
    return bytes;
  }
};

/// An op that may stay where it is relative to the members' new loop
/// (hoisted before it): it reads and writes no memory.
bool movesBefore(Operation *op) {
  if (isa<memref::AllocOp>(op))
    return true;
  return isMemoryEffectFree(op) && op->getNumRegions() == 0;
}

/// Whether every use of the allocation `base` is a view, a member reaching
/// it by rows, or its deallocation: its contents never leave the group, so
/// each thread can compute its tiles in a tile-sized buffer instead.
bool staysInGroup(Value base, const llvm::DenseSet<Operation *> &members,
                  const llvm::DenseSet<OpOperand *> &rowOperands) {
  auto alloc = base.getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getType().hasStaticShape() || !alloc.getDynamicSizes().empty())
    return false;
  SmallVector<Value> worklist{base};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(user)) {
        worklist.push_back(user->getResult(0));
      } else if (isa<memref::DeallocOp>(user)) {
        continue;
      } else if (!members.contains(user) || !rowOperands.contains(&use)) {
        return false;
      }
    }
  }
  return true;
}

/// `view` (a chain of reshapes of `base`) rebuilt on `tileBase`, whose dim 0
/// holds `tileRows` rows instead of the base's.
Value rebuildView(OpBuilder &b, Value view, Value base, Value tileBase, int64_t tileRows,
                  IRMapping &rebuilt) {
  if (view == base)
    return tileBase;
  if (Value done = rebuilt.lookupOrNull(view))
    return done;
  Operation *def = view.getDefiningOp();
  Value source = rebuildView(b, def->getOperand(0), base, tileBase, tileRows, rebuilt);
  Value result;
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(def)) {
    SmallVector<int64_t> shape(expand.getResultType().getShape());
    shape[0] = tileRows;
    auto type = MemRefType::get(shape, expand.getResultType().getElementType());
    result = memref::ExpandShapeOp::create(b, def->getLoc(), type, source,
                                           expand.getReassociationIndices());
  } else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def)) {
    result = memref::CollapseShapeOp::create(b, def->getLoc(), source,
                                             collapse.getReassociationIndices());
  } else {
    result = source; // a cast between equal types
  }
  rebuilt.map(view, result);
  return result;
}

/// The largest tile of at most `limit` rows that divides `rows`, if one of
/// at least half the limit exists, else `limit` itself (a ragged last tile).
int64_t tileRowsFor(int64_t rows, int64_t limit) {
  limit = std::clamp<int64_t>(limit, 1, rows);
  for (int64_t t = limit; t * 2 >= limit; --t)
    if (rows % t == 0)
      return t;
  return limit;
}

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// `value` sliced to rows [start, start + size) of its dim 0.
Value rowSlice(OpBuilder &b, Location loc, Value value, OpFoldResult start, OpFoldResult size) {
  auto type = cast<MemRefType>(value.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t d : type.getShape())
    sizes.push_back(b.getIndexAttr(d));
  offsets[0] = start;
  sizes[0] = size;
  return memref::SubViewOp::create(b, loc, value, offsets, sizes, strides);
}

struct CPUFuseRowLoopsPass : numlir::impl::CPUFuseRowLoopsBase<CPUFuseRowLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (threads < 0 || tileBytes < 1) {
      getOperation()->emitError()
          << "cpu-fuse-row-loops needs threads >= 0 and tile-bytes >= 1, got threads="
          << static_cast<int64_t>(threads) << " tile-bytes=" << static_cast<int64_t>(tileBytes);
      return signalPassFailure();
    }
    if (minBytes < 0)
      return; // fusion turned off
    SmallVector<Block *> blocks;
    // Inner blocks come first (post-order), so fusing a block only erases
    // blocks already visited.
    getOperation()->walk([&](Block *block) {
      Operation *parent = block->getParentOp();
      if (!isa<linalg::LinalgOp, scf::ParallelOp>(parent) &&
          !parent->getParentOfType<scf::ParallelOp>())
        blocks.push_back(block);
    });
    int64_t chunks = threads > 0 ? static_cast<int64_t>(threads)
                                 : std::max(1u, llvm::hardware_concurrency().compute_thread_count());
    // Fewer rows than threads would leave threads idle that the unfused ops,
    // split along another loop by cpu-parallelize-loops, would have used.
    for (Block *block : blocks)
      for (RowGroup &group : groupsIn(*block))
        if (group.members.size() >= 2 && group.footprint() >= minBytes &&
            group.rows >= chunks)
          fuse(group, chunks);
  }

  /// The runs of row-local ops in `block`, each with the pure ops,
  /// allocations and deallocations found between its members.
  static SmallVector<RowGroup, 0> groupsIn(Block &block) {
    SmallVector<RowGroup, 0> groups;
    RowGroup group;
    SmallVector<Operation *> between; // since the group's last member
    auto close = [&] {
      if (!group.members.empty())
        groups.push_back(std::move(group));
      group = RowGroup();
      between.clear();
    };
    for (Operation &op : block) {
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(&op)) {
        if (group.members.empty() || !group.tryAdd(linalgOp)) {
          close();
          group.tryAdd(linalgOp);
          continue;
        }
        for (Operation *passenger : between)
          (isa<memref::DeallocOp>(passenger) ? group.after : group.before).push_back(passenger);
        between.clear();
        continue;
      }
      if (group.members.empty())
        continue;
      if (movesBefore(&op) || isa<memref::DeallocOp>(&op))
        between.push_back(&op);
      else
        close();
    }
    close();
    return groups;
  }

  void fuse(RowGroup &group, int64_t chunks) {
    linalg::LinalgOp first = group.members.front().first;
    linalg::LinalgOp last = group.members.back().first;
    Location loc = first.getLoc();
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);

    // Pure ops and allocations between the members go before the loop,
    // deallocations after it.
    for (Operation *op : group.before)
      op->moveBefore(first);
    for (Operation *op : llvm::reverse(group.after))
      op->moveAfter(last);

    llvm::DenseSet<Operation *> memberOps;
    llvm::DenseSet<OpOperand *> rowOperands;
    for (auto &[op, access] : group.members) {
      memberOps.insert(op);
      rowOperands.insert(access.rowOperands.begin(), access.rowOperands.end());
    }
    SmallVector<Value> tiled; // allocations replaced by a tile per thread
    int64_t perRow = 0;
    for (Value base : group.rowBases) {
      perRow += rowBytes(cast<MemRefType>(base.getType()));
      if (staysInGroup(base, memberOps, rowOperands))
        tiled.push_back(base);
    }

    int64_t chunkRows = (group.rows + chunks - 1) / chunks;
    int64_t tileRows = tileRowsFor(chunkRows, tileBytes / perRow);
    bool ragged = group.rows % chunkRows != 0 || chunkRows % tileRows != 0;

    b.setInsertionPoint(first);
    Value zero = indexConstant(b, loc, 0);
    Value total = indexConstant(b, loc, group.rows);
    Value chunkStep = indexConstant(b, loc, chunkRows);
    Value tileStep = indexConstant(b, loc, tileRows);

    auto buildTiles = [&](OpBuilder &b, Value chunkStart) {
      // One tile-sized buffer per temporary, per thread.
      llvm::DenseMap<Value, Value> tileBuffers;
      for (Value base : tiled) {
        auto type = cast<MemRefType>(base.getType());
        SmallVector<int64_t> shape(type.getShape());
        shape[0] = tileRows;
        auto alloc = base.getDefiningOp<memref::AllocOp>();
        tileBuffers[base] = memref::AllocOp::create(
            b, loc, MemRefType::get(shape, type.getElementType()), ValueRange{},
            alloc.getAlignmentAttr());
      }
      Value chunkEnd = chunkStart;
      if (chunks > 1) {
        AffineMap endMap = AffineMap::get(1, 0, {b.getAffineDimExpr(0) + chunkRows,
                                                 b.getAffineConstantExpr(group.rows)},
                                          ctx);
        chunkEnd = ragged ? affine::AffineMinOp::create(b, loc, endMap, chunkStart).getResult()
                          : arith::AddIOp::create(b, loc, chunkStart, chunkStep).getResult();
      } else {
        chunkEnd = total;
      }
      auto loop = scf::ForOp::create(b, loc, chunkStart, chunkEnd, tileStep);
      OpBuilder body = OpBuilder::atBlockBegin(loop.getBody());
      Value row = loop.getInductionVar();
      OpFoldResult size = body.getIndexAttr(tileRows);
      if (ragged) {
        AffineMap sizeMap = AffineMap::get(2, 0, {b.getAffineConstantExpr(tileRows),
                                                  b.getAffineDimExpr(1) - b.getAffineDimExpr(0)},
                                           ctx);
        size = affine::AffineMinOp::create(body, loc, sizeMap, ValueRange{row, chunkEnd})
                   .getResult();
      }
      IRMapping rebuilt;
      for (auto &[op, access] : group.members) {
        IRMapping operands;
        for (OpOperand *operand : access.rowOperands) {
          if (operands.contains(operand->get()))
            continue;
          RowBase where = rowBaseOf(operand->get());
          auto tile = tileBuffers.find(where.base);
          Value sliced =
              tile == tileBuffers.end()
                  ? rowSlice(body, loc, operand->get(), row, size)
                  : rowSlice(body, loc,
                             rebuildView(body, operand->get(), where.base, tile->second,
                                         tileRows, rebuilt),
                             body.getIndexAttr(0), size);
          operands.map(operand->get(), sliced);
        }
        body.clone(*op, operands);
      }
      for (auto &[base, buffer] : tileBuffers)
        memref::DeallocOp::create(b, loc, buffer);
    };

    if (chunks > 1) {
      auto parallel = scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{total},
                                              ValueRange{chunkStep});
      OpBuilder body = OpBuilder::atBlockBegin(parallel.getBody());
      buildTiles(body, parallel.getInductionVars().front());
    } else {
      buildTiles(b, zero);
    }

    for (auto &[op, access] : group.members)
      op->erase();
    // The whole-sized temporaries are now unused but for views and their
    // deallocation.
    for (Value base : tiled) {
      llvm::SetVector<Operation *> dead;
      SmallVector<Value> worklist{base};
      while (!worklist.empty()) {
        Value value = worklist.pop_back_val();
        for (Operation *user : value.getUsers())
          if (dead.insert(user) && user->getNumResults() == 1)
            worklist.push_back(user->getResult(0));
      }
      for (Operation *op : llvm::reverse(dead))
        op->erase();
      base.getDefiningOp()->erase();
    }
  }
};

} // namespace
