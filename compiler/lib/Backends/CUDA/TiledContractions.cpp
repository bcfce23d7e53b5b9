//===- TiledContractions.cpp - matmuls and convolutions in tiles ----------===//
//
// A contraction matches when its body is `out + f(a, b)` and each side can
// be recomputed at any loop index from what the kernel does not write: then
// a thread can copy a side's element into a tile for its neighbours, and
// the rest of the body only combines the product with `out`. The fills and
// consumers run at the thread's own output element, so the kernel stays
// one launch.
//
//===----------------------------------------------------------------------===//

#include "TiledContractions.h"

#include "LaunchWriter.h"
#include "RowAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace numlir::cuda::launches {
namespace {

/// The ops of `op`'s body that `value` is computed from, in order.
SetVector<Operation *> sliceOf(linalg::GenericOp op, Value value) {
  Block &body = op.getRegion().front();
  SetVector<Operation *> slice;
  SmallVector<Value> work{value};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != &body || !slice.insert(def))
      continue;
    work.append(def->operand_begin(), def->operand_end());
  }
  SetVector<Operation *> ordered;
  for (Operation &inner : body)
    if (slice.contains(&inner))
      ordered.insert(&inner);
  return ordered;
}

/// The loops a side of the product reads: its inputs' maps' dims and its
/// linalg.index ops; nothing if it cannot be copied to a tile (an op with
/// regions or side effects other than a load of a buffer the kernel does
/// not write).
std::optional<llvm::SmallBitVector>
sideDims(linalg::GenericOp op, Value side,
         const llvm::DenseSet<Value> &kernelWrites) {
  Block &body = op.getRegion().front();
  llvm::SmallBitVector dims(op.getNumLoops());
  auto addArgument = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &body)
      return true;
    if (arg.getArgNumber() >= op.getNumDpsInputs())
      return false; // the output is not a side of the product
    AffineMap map =
        op.getMatchingIndexingMap(op.getDpsInputOperand(arg.getArgNumber()));
    for (int64_t d = 0; d < int64_t(map.getNumDims()); ++d)
      if (map.isFunctionOfDim(d))
        dims.set(d);
    return true;
  };
  if (!addArgument(side))
    return std::nullopt;
  for (Operation *inner : sliceOf(op, side)) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      dims.set(index.getDim());
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(inner)) {
      if (kernelWrites.contains(rootBuffer(load.getMemRef())))
        return std::nullopt;
    } else if (inner->getNumRegions() != 0 || !isMemoryEffectFree(inner)) {
      return std::nullopt;
    }
    for (Value operand : inner->getOperands())
      if (!addArgument(operand))
        return std::nullopt;
  }
  return dims;
}

/// A side's value to keep in a tile: an input's element where the side is
/// that element converted (so that f16 tiles stay f16), else the side.
Value tileValue(linalg::GenericOp op, Value side) {
  Value value = side;
  while (Operation *def = value.getDefiningOp()) {
    if (def->getBlock() != &op.getRegion().front() ||
        def->getNumOperands() != 1 || def->getNumResults() != 1 ||
        !isa<arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp, arith::ExtUIOp,
             arith::TruncIOp, arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp,
             arith::FPToUIOp>(def))
      return side;
    value = def->getOperand(0);
  }
  auto arg = dyn_cast<BlockArgument>(value);
  return arg && arg.getArgNumber() < op.getNumDpsInputs() ? value : side;
}

/// `op` as a contraction `out + f(a, b)` on integers or floats where `a`
/// does not depend on the loops `b` reads beside the batch and the
/// reductions, and the output is every parallel loop, or nothing.
std::optional<TiledContraction>
matchContraction(linalg::GenericOp op,
                 const llvm::DenseSet<Value> &kernelWrites) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0 ||
      op.getNumParallelLoops() == 0)
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    // complex numbers keep the block reduction per element
    if (!type || !type.getElementType().isIntOrFloat())
      return std::nullopt;
  }
  Block &body = op.getRegion().front();
  Operation *add = body.getTerminator()->getOperand(0).getDefiningOp();
  BlockArgument out = body.getArguments().back();
  if (!add || add->getBlock() != &body ||
      !isa<arith::AddFOp, arith::AddIOp>(add) || !out.hasOneUse() ||
      out.getUses().begin()->getOwner() != add ||
      add->getOperand(0) == add->getOperand(1))
    return std::nullopt;
  Value product = add->getOperand(add->getOperand(0) == out ? 1 : 0);
  Operation *multiply = product.getDefiningOp();
  if (!multiply || multiply->getBlock() != &body ||
      multiply->getNumOperands() != 2 || multiply->getNumRegions() != 0 ||
      !isMemoryEffectFree(multiply))
    return std::nullopt;
  TiledContraction match;
  match.contraction = op;
  std::optional<llvm::SmallBitVector> dims[2];
  for (int side = 0; side < 2; ++side) {
    dims[side] = sideDims(op, multiply->getOperand(side), kernelWrites);
    if (!dims[side])
      return std::nullopt;
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (int64_t d = 0; d < int64_t(op.getNumLoops()); ++d) {
    bool inA = dims[0]->test(d), inB = dims[1]->test(d);
    if (iterators[d] == utils::IteratorType::reduction)
      match.depthDims.push_back(d);
    else if (inA && inB)
      match.batchDims.push_back(d);
    else if (inA)
      match.rowDims.push_back(d);
    else if (inB)
      match.colDims.push_back(d);
    else
      return std::nullopt; // an output broadcast along a loop
  }
  // A matrix-vector product keeps its block reduction per element.
  if (match.rowDims.empty() || match.colDims.empty())
    return std::nullopt;
  // The output is written once per parallel loop index, in place.
  OpOperand &init = op.getDpsInitsMutable()[0];
  AffineMap outMap = op.getMatchingIndexingMap(&init);
  if (outMap.getNumResults() != op.getNumParallelLoops() ||
      !outMap.isProjectedPermutation() ||
      viewsKeepLeadingDims(init.get(), outMap.getNumResults()) !=
          int64_t(outMap.getNumResults()))
    return std::nullopt;
  match.lhs = tileValue(op, multiply->getOperand(0));
  match.rhs = tileValue(op, multiply->getOperand(1));
  // Threads next to each other take the output's last dimension: their
  // B loads and output stores are contiguous.
  int64_t last = outMap.getDimPosition(outMap.getNumResults() - 1);
  if (llvm::is_contained(match.rowDims, last)) {
    std::swap(match.lhs, match.rhs);
    std::swap(match.rowDims, match.colDims);
  }
  // The rest of the body combines the sides with the output: it must not
  // read an input or a loop index on its own.
  SetVector<Operation *> sides = sliceOf(op, match.lhs);
  sides.insert_range(sliceOf(op, match.rhs));
  for (Operation &inner : body.without_terminator()) {
    if (sides.contains(&inner))
      continue;
    for (Value operand : inner.getOperands()) {
      if (operand == match.lhs || operand == match.rhs || operand == out)
        continue;
      auto arg = dyn_cast<BlockArgument>(operand);
      Operation *def = operand.getDefiningOp();
      if ((arg && arg.getOwner() == &body) || (def && sides.contains(def)))
        return std::nullopt; // a side's input or intermediate value
    }
    if (isa<linalg::IndexOp>(inner) || inner.getNumRegions() != 0 ||
        !isMemoryEffectFree(&inner))
      return std::nullopt;
    match.combine.push_back(&inner);
  }
  return match;
}

/// Whether `op` runs over exactly `extents`, all parallel, and touches
/// what the kernel writes only at its own element.
bool isOwnElementOp(linalg::GenericOp op, ArrayRef<int64_t> extents,
                    const llvm::DenseSet<Value> &kernelWrites) {
  if (op.getNumReductionLoops() != 0 ||
      ArrayRef<int64_t>(op.getStaticLoopRanges()) != extents)
    return false;
  int64_t loops = int64_t(extents.size());
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    if (!kernelWrites.contains(rootBuffer(operand.get())))
      continue;
    if (!op.getMatchingIndexingMap(&operand).isIdentity() ||
        rowAlignedDims(op, operand, loops) != loops)
      return false;
  }
  return true;
}

/// The value of `side` (a value of `op`'s body) at loop indices `ivs`:
/// the inputs it reads loaded there, the ops it needs cloned.
FailureOr<Value> sideAt(LaunchWriter &writer, OpBuilder &b,
                        linalg::GenericOp op, Value side, ArrayRef<Value> ivs) {
  Block &body = op.getRegion().front();
  IRMapping local;
  auto bring = [&](Value v) -> LogicalResult {
    if (local.contains(v))
      return success();
    if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == &body) {
      FailureOr<Value> element =
          writer.load(op, *op.getDpsInputOperand(arg.getArgNumber()), ivs);
      if (failed(element))
        return failure();
      local.map(v, *element);
      return success();
    }
    if (!op.getRegion().isAncestor(v.getParentRegion())) {
      FailureOr<Value> outside = writer.materialize(v);
      if (failed(outside))
        return failure();
      local.map(v, *outside);
    }
    return success();
  };
  if (failed(bring(side)))
    return failure();
  for (Operation *inner : sliceOf(op, side)) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      local.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    for (Value operand : inner->getOperands())
      if (failed(bring(operand)))
        return failure();
    b.clone(*inner, local);
  }
  return local.lookupOrDefault(side);
}

} // namespace

std::optional<TiledContraction>
TiledContractionWriter::matchOps(ArrayRef<linalg::GenericOp> ops) const {
  if (options.tileSize == 0)
    return std::nullopt;
  auto isContraction = [](linalg::GenericOp op) {
    return op.getNumReductionLoops() != 0;
  };
  auto found = llvm::find_if(ops, isContraction);
  if (found == ops.end())
    return std::nullopt;
  std::optional<TiledContraction> match =
      matchContraction(*found, kernelWrites);
  if (!match)
    return std::nullopt;
  Value output = match->contraction.getDpsInitsMutable()[0].get();
  ArrayRef<int64_t> extents = cast<MemRefType>(output.getType()).getShape();
  for (linalg::GenericOp op : llvm::make_range(ops.begin(), found)) {
    // a fill: no buffer read, the contraction's output written in place
    bool readsBuffers = llvm::any_of(op.getDpsInputs(), [](Value v) {
      return isa<MemRefType>(v.getType());
    });
    if (readsBuffers || op.getNumDpsInits() != 1 ||
        op.getDpsInitsMutable()[0].get() != output ||
        !isOwnElementOp(op, extents, kernelWrites))
      return std::nullopt;
    match->fills.push_back(op);
  }
  for (linalg::GenericOp op : llvm::make_range(std::next(found), ops.end())) {
    if (!isOwnElementOp(op, extents, kernelWrites))
      return std::nullopt;
    match->epilogue.push_back(op);
  }
  return match;
}

LogicalResult
TiledContractionWriter::writeLaunch(OpBuilder &outer,
                                    const TiledContraction &match) const {
  linalg::GenericOp op = match.contraction;
  Location loc = op.getLoc();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  auto extentsOf = [&](ArrayRef<int64_t> dims) {
    SmallVector<int64_t> result;
    for (int64_t d : dims)
      result.push_back(extents[d]);
    return result;
  };
  int64_t rows = product(extentsOf(match.rowDims));
  int64_t cols = product(extentsOf(match.colDims));
  int64_t depth = product(extentsOf(match.depthDims));
  int64_t tile = options.tileSize;
  SmallVector<int64_t> tiles = extentsOf(match.batchDims);
  tiles.push_back(llvm::divideCeil(rows, tile));
  tiles.push_back(llvm::divideCeil(cols, tile));
  int64_t grid = product(tiles);
  if (grid > std::numeric_limits<int32_t>::max())
    return op.emitOpError("has too many tiles for one grid");
  MLIRContext *context = op.getContext();
  auto workgroup =
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
  auto tileType = [&](Value side) {
    return MemRefType::get({tile, tile}, side.getType(),
                           MemRefLayoutAttrInterface(), workgroup);
  };
  OpBuilder::InsertionGuard guard(outer);
  gpu::LaunchOp launch =
      createLaunch(outer, loc, grid, tile * tile,
                   {tileType(match.lhs), tileType(match.rhs)});
  Value lhsTile = launch.getWorkgroupAttributions()[0];
  Value rhsTile = launch.getWorkgroupAttributions()[1];
  OpBuilder &b = outer;
  LaunchWriter writer(b, loc, kernelWrites);
  auto index = [&](int64_t v) { return writer.index(v); };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto below = [&](Value x, int64_t bound) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 index(bound));
  };
  auto both = [&](Value x, Value y) -> Value {
    return arith::AndIOp::create(b, loc, x, y);
  };

  // Which tile, and which element of it, this thread owns.
  int64_t batch = int64_t(match.batchDims.size());
  SmallVector<Value> tileIvs =
      writer.delinearize(launch.getBlockIds().x, tiles);
  Value thread = launch.getThreadIds().x;
  Value ty = arith::DivUIOp::create(b, loc, thread, index(tile));
  Value tx = arith::RemUIOp::create(b, loc, thread, index(tile));
  Value m = add(arith::MulIOp::create(b, loc, tileIvs[batch], index(tile)), ty);
  Value n =
      add(arith::MulIOp::create(b, loc, tileIvs[batch + 1], index(tile)), tx);
  Value inside = both(below(m, rows), below(n, cols));
  // The loop indices at linear row `row`, column `col` and depth `k`.
  auto ivsAt = [&](Value row, Value col, Value k) {
    SmallVector<Value> ivs(extents.size(), index(0));
    auto place = [&](ArrayRef<int64_t> dims, Value linear) {
      for (auto [d, v] :
           llvm::zip_equal(dims, writer.delinearize(linear, extentsOf(dims))))
        ivs[d] = v;
    };
    for (auto [d, v] :
         llvm::zip_equal(match.batchDims, ArrayRef(tileIvs).take_front(batch)))
      ivs[d] = v;
    place(match.rowDims, row);
    place(match.colDims, col);
    place(match.depthDims, k);
    return ivs;
  };
  SmallVector<Value> own = ivsAt(m, n, index(0));
  OpOperand &init = op.getDpsInitsMutable()[0];
  // The thread's output element, as the fills and consumers index it.
  SmallVector<Value> element;
  AffineMap outMap = op.getMatchingIndexingMap(&init);
  for (unsigned i = 0; i < outMap.getNumResults(); ++i)
    element.push_back(own[outMap.getDimPosition(i)]);

  // The accumulator starts from the output's initial value.
  Type accType = getElementTypeOrSelf(init.get().getType());
  auto initial = scf::IfOp::create(b, loc, TypeRange{accType}, inside,
                                   /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&initial.getThenRegion().front());
    for (linalg::GenericOp fill : match.fills)
      if (failed(writer.elementwise(fill, element)))
        return failure();
    FailureOr<Value> value = writer.load(op, init, own);
    if (failed(value))
      return failure();
    scf::YieldOp::create(b, loc, *value);
    b.setInsertionPointToStart(&initial.getElseRegion().front());
    Value unused = arith::ConstantOp::create(
        b, loc, cast<TypedAttr>(b.getZeroAttr(accType)));
    scf::YieldOp::create(b, loc, unused);
  }

  auto steps = scf::ForOp::create(b, loc, index(0), index(depth), index(tile),
                                  ValueRange{initial.getResult(0)});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(steps.getBody());
    Value k0 = steps.getInductionVar();
    Value acc = steps.getRegionIterArg(0);
    // Copy A[m, k0 + tx] and B[k0 + ty, n] into the tiles at [ty, tx].
    auto copyToTile = [&](Value side, Value inRange, Value row, Value col,
                          Value k, Value target) -> LogicalResult {
      auto guarded = scf::IfOp::create(b, loc, inRange, false);
      OpBuilder::InsertionGuard copy(b);
      b.setInsertionPointToStart(&guarded.getThenRegion().front());
      FailureOr<Value> value = sideAt(writer, b, op, side, ivsAt(row, col, k));
      if (failed(value))
        return failure();
      memref::StoreOp::create(b, loc, *value, target, ValueRange{ty, tx});
      return success();
    };
    Value lhsK = add(k0, tx), rhsK = add(k0, ty);
    if (failed(copyToTile(match.lhs, both(below(m, rows), below(lhsK, depth)),
                          m, index(0), lhsK, lhsTile)) ||
        failed(copyToTile(match.rhs, both(below(rhsK, depth), below(n, cols)),
                          index(0), n, rhsK, rhsTile)))
      return failure();
    gpu::BarrierOp::create(b, loc);
    // The tile's valid k: the last one may be short.
    Value valid = arith::MinSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, index(depth), k0), index(tile));
    auto accumulate = scf::IfOp::create(b, loc, TypeRange{accType}, inside,
                                        /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard within(b);
      b.setInsertionPointToStart(&accumulate.getThenRegion().front());
      auto ks = scf::ForOp::create(b, loc, index(0), valid, index(1),
                                   ValueRange{acc});
      b.setInsertionPointToStart(ks.getBody());
      Value kk = ks.getInductionVar();
      Block &body = op.getRegion().front();
      IRMapping local;
      local.map(match.lhs,
                memref::LoadOp::create(b, loc, lhsTile, ValueRange{ty, kk}));
      local.map(match.rhs,
                memref::LoadOp::create(b, loc, rhsTile, ValueRange{kk, tx}));
      local.map(body.getArguments().back(), ks.getRegionIterArg(0));
      for (Operation *inner : match.combine) {
        for (Value operand : inner->getOperands())
          if (!local.contains(operand) &&
              !op.getRegion().isAncestor(operand.getParentRegion())) {
            FailureOr<Value> outside = writer.materialize(operand);
            if (failed(outside))
              return failure();
            local.map(operand, *outside);
          }
        b.clone(*inner, local);
      }
      scf::YieldOp::create(
          b, loc, local.lookupOrDefault(body.getTerminator()->getOperand(0)));
      b.setInsertionPointAfter(ks);
      scf::YieldOp::create(b, loc, ks.getResult(0));
      b.setInsertionPointToStart(&accumulate.getElseRegion().front());
      scf::YieldOp::create(b, loc, acc);
    }
    // Nobody refills the tiles before every thread has read them.
    gpu::BarrierOp::create(b, loc);
    scf::YieldOp::create(b, loc, accumulate.getResult(0));
  }

  auto store = scf::IfOp::create(b, loc, inside, false);
  b.setInsertionPointToStart(&store.getThenRegion().front());
  if (failed(writer.store(op, init, steps.getResult(0), own)))
    return failure();
  for (linalg::GenericOp consumer : match.epilogue)
    if (failed(writer.elementwise(consumer, element)))
      return failure();
  return success();
}

} // namespace numlir::cuda::launches
