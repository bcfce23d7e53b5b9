//===- RowLaunches.cpp - a block per row, or a thread per element ---------===//
//
// A reduction is split across a block's threads only where gpu.all_reduce
// can combine the partials: a combiner it names (sums, products, min, max,
// bitwise ops) on 32 or 64 bits. Any other reduction (argmax's two outputs,
// complex numbers, 8- and 16-bit types) runs its loops in order for each
// output, a thread per output: slower, but it asks nothing of the combiner.
//
//===----------------------------------------------------------------------===//

#include "RowLaunches.h"

#include "LaunchWriter.h"
#include "RowAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace numlir::cuda::launches {
namespace {

/// A reduction whose body is `yield combine(x, out)`: what gpu.all_reduce
/// calls the combiner, and its identity.
struct KnownCombiner {
  gpu::AllReduceOperation kind;
  TypedAttr identity;
};

std::optional<KnownCombiner> knownCombiner(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumResults() != 0)
    return std::nullopt;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *combine = yield.getOperand(0).getDefiningOp();
  BlockArgument out = body.getArguments().back();
  if (!combine || combine->getBlock() != &body ||
      combine->getNumOperands() != 2 || !out.hasOneUse() ||
      out.getUses().begin()->getOwner() != combine)
    return std::nullopt;
  Type type = out.getType();
  if (!type.isIntOrFloat())
    return std::nullopt; // complex numbers take the sequential path
  unsigned width = type.getIntOrFloatBitWidth();
  // gpu.all_reduce exchanges 32-bit lanes; narrower types and complex
  // numbers take the sequential path.
  if (width != 32 && width != 64)
    return std::nullopt;
  Builder b(op.getContext());
  using K = gpu::AllReduceOperation;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    auto value = [&](const APFloat &v) { return b.getFloatAttr(type, v); };
    // -0 is the identity of a float sum: a sum of -0s stays -0.
    if (isa<arith::AddFOp>(combine))
      return KnownCombiner{K::ADD, value(APFloat::getZero(sem, true))};
    if (isa<arith::MulFOp>(combine))
      return KnownCombiner{K::MUL, value(APFloat::getOne(sem))};
    if (isa<arith::MaximumFOp>(combine))
      return KnownCombiner{K::MAXIMUMF, value(APFloat::getInf(sem, true))};
    if (isa<arith::MinimumFOp>(combine))
      return KnownCombiner{K::MINIMUMF, value(APFloat::getInf(sem, false))};
    if (isa<arith::MaxNumFOp>(combine))
      return KnownCombiner{K::MAXNUMF, value(APFloat::getInf(sem, true))};
    if (isa<arith::MinNumFOp>(combine))
      return KnownCombiner{K::MINNUMF, value(APFloat::getInf(sem, false))};
    return std::nullopt;
  }
  if (!type.isSignlessInteger())
    return std::nullopt;
  auto value = [&](const APInt &v) { return b.getIntegerAttr(type, v); };
  if (isa<arith::AddIOp>(combine))
    return KnownCombiner{K::ADD, value(APInt::getZero(width))};
  if (isa<arith::MulIOp>(combine))
    return KnownCombiner{K::MUL, value(APInt(width, 1))};
  if (isa<arith::MaxSIOp>(combine))
    return KnownCombiner{K::MAXSI, value(APInt::getSignedMinValue(width))};
  if (isa<arith::MinSIOp>(combine))
    return KnownCombiner{K::MINSI, value(APInt::getSignedMaxValue(width))};
  if (isa<arith::MaxUIOp>(combine))
    return KnownCombiner{K::MAXUI, value(APInt::getZero(width))};
  if (isa<arith::MinUIOp>(combine))
    return KnownCombiner{K::MINUI, value(APInt::getAllOnes(width))};
  if (isa<arith::AndIOp>(combine))
    return KnownCombiner{K::AND, value(APInt::getAllOnes(width))};
  if (isa<arith::OrIOp>(combine))
    return KnownCombiner{K::OR, value(APInt::getZero(width))};
  if (isa<arith::XOrIOp>(combine))
    return KnownCombiner{K::XOR, value(APInt::getZero(width))};
  return std::nullopt;
}

/// `op`'s work in the row at `rowIvs`, shared by the block's `block`
/// threads.
LogicalResult writeRowOp(OpBuilder &b, LaunchWriter &writer,
                         linalg::GenericOp op, ArrayRef<Value> rowIvs,
                         Value thread, int64_t block) {
  Location loc = op.getLoc();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t rows = int64_t(rowIvs.size());
  // The inner loops, by position; a parallel loop of one iteration (a
  // reshape's unit dimension) stays at index 0.
  SmallVector<int64_t> parallel, reduction;
  for (int64_t d = rows; d < int64_t(extents.size()); ++d) {
    if (iterators[d] == utils::IteratorType::reduction)
      reduction.push_back(d);
    else if (extents[d] != 1)
      parallel.push_back(d);
  }
  auto extentsOf = [&](ArrayRef<int64_t> dims) {
    SmallVector<int64_t> result;
    for (int64_t d : dims)
      result.push_back(extents[d]);
    return result;
  };
  // The loop indices with `inner` set at the positions `dims`.
  SmallVector<Value> ivs(extents.size(), writer.index(0));
  llvm::copy(rowIvs, ivs.begin());
  auto place = [&](ArrayRef<int64_t> dims, ArrayRef<Value> inner) {
    for (auto [d, v] : llvm::zip_equal(dims, inner))
      ivs[d] = v;
  };
  auto stridedLoop = [&](int64_t count, ValueRange init) {
    return scf::ForOp::create(b, loc, thread, writer.index(count),
                              writer.index(block), init);
  };

  std::optional<KnownCombiner> combiner;
  if (parallel.empty() && !reduction.empty())
    combiner = knownCombiner(op);

  if (reduction.empty()) {
    // Each thread takes every block-th element of the row.
    OpBuilder::InsertionGuard guard(b);
    auto loop = stridedLoop(product(extentsOf(parallel)), {});
    b.setInsertionPointToStart(loop.getBody());
    place(parallel,
          writer.delinearize(loop.getInductionVar(), extentsOf(parallel)));
    return writer.elementwise(op, ivs);
  }

  if (combiner) {
    // A partial per thread, then the block's reduction of the partials.
    Value identity =
        arith::ConstantOp::create(b, loc, combiner->identity).getResult();
    auto loop = stridedLoop(product(extentsOf(reduction)), {identity});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      place(reduction,
            writer.delinearize(loop.getInductionVar(), extentsOf(reduction)));
      FailureOr<SmallVector<Value>> partial =
          writer.body(op, ivs, {loop.getRegionIterArg(0)});
      if (failed(partial))
        return failure();
      scf::YieldOp::create(b, loc, *partial);
    }
    Value total = gpu::AllReduceOp::create(
        b, loc, identity.getType(), loop.getResult(0),
        gpu::AllReduceOperationAttr::get(b.getContext(), combiner->kind),
        /*uniform=*/true);
    // Thread 0 folds in the output's initial value (a fill, or what an
    // earlier op left there), with the op's own combiner.
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        thread, writer.index(0));
    auto onFirst = scf::IfOp::create(b, loc, first, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&onFirst.getThenRegion().front());
    for (int64_t d : reduction)
      ivs[d] = writer.index(0);
    OpOperand &init = op.getDpsInitsMutable()[0];
    FailureOr<Value> initial = writer.load(op, init, ivs);
    if (failed(initial))
      return failure();
    Block &body = op.getRegion().front();
    Operation *combine = body.getTerminator()->getOperand(0).getDefiningOp();
    IRMapping folded;
    BlockArgument out = body.getArguments().back();
    for (Value operand : combine->getOperands())
      folded.map(operand, operand == out ? *initial : total);
    Value result = b.clone(*combine, folded)->getResult(0);
    return writer.store(op, init, result, ivs);
  }

  // Each thread takes every block-th output of the row and runs the
  // reduction loops for it in order.
  OpBuilder::InsertionGuard guard(b);
  auto loop = stridedLoop(product(extentsOf(parallel)), {});
  b.setInsertionPointToStart(loop.getBody());
  place(parallel,
        writer.delinearize(loop.getInductionVar(), extentsOf(parallel)));
  SmallVector<Value> current;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    FailureOr<Value> element = writer.load(op, init, ivs);
    if (failed(element))
      return failure();
    current.push_back(*element);
  }
  SmallVector<scf::ForOp> nest;
  for (int64_t d : reduction) {
    auto inner =
        scf::ForOp::create(b, loc, writer.index(0), writer.index(extents[d]),
                           writer.index(1), current);
    if (!nest.empty())
      scf::YieldOp::create(b, loc, inner.getResults());
    b.setInsertionPointToStart(inner.getBody());
    ivs[d] = inner.getInductionVar();
    current.assign(inner.getRegionIterArgs().begin(),
                   inner.getRegionIterArgs().end());
    nest.push_back(inner);
  }
  FailureOr<SmallVector<Value>> yielded = writer.body(op, ivs, current);
  if (failed(yielded))
    return failure();
  scf::YieldOp::create(b, loc, *yielded);
  b.setInsertionPointAfter(nest.front());
  for (auto [init, value] :
       llvm::zip_equal(op.getDpsInitsMutable(), nest.front().getResults()))
    if (failed(writer.store(op, init, value, ivs)))
      return failure();
  return success();
}

} // namespace

LogicalResult RowLaunchWriter::writeFlatLaunch(OpBuilder &outer,
                                               linalg::GenericOp op) const {
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  int64_t total = product(extents);
  int64_t block = std::min<int64_t>(options.blockSize, (total + 31) / 32 * 32);
  int64_t grid = (total + block - 1) / block;
  if (grid > std::numeric_limits<int32_t>::max())
    return op.emitOpError("has too many elements for one grid");
  OpBuilder::InsertionGuard guard(outer);
  Location loc = op.getLoc();
  gpu::LaunchOp launch = createLaunch(outer, loc, grid, block);
  OpBuilder &b = outer;
  LaunchWriter writer(b, loc, kernelWrites);
  Value linear = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                            writer.index(block)),
      launch.getThreadIds().x);
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       linear, writer.index(total));
  auto guarded = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&guarded.getThenRegion().front());
  return writer.elementwise(op, writer.delinearize(linear, extents));
}

LogicalResult RowLaunchWriter::writeRowLaunch(OpBuilder &outer,
                                              ArrayRef<linalg::GenericOp> ops,
                                              int64_t rows) const {
  linalg::GenericOp first = ops.front();
  SmallVector<int64_t> rowExtents = first.getStaticLoopRanges();
  rowExtents.resize(rows);
  int64_t grid = product(rowExtents);
  if (grid > std::numeric_limits<int32_t>::max())
    return first.emitOpError("has too many rows for one grid");
  int64_t widest = 1;
  for (linalg::GenericOp op : ops)
    widest = std::max(
        widest,
        product(ArrayRef<int64_t>(op.getStaticLoopRanges()).drop_front(rows)));
  int64_t block = std::min<int64_t>(options.blockSize, (widest + 31) / 32 * 32);
  OpBuilder::InsertionGuard guard(outer);
  Location loc = first.getLoc();
  gpu::LaunchOp launch = createLaunch(outer, loc, grid, block);
  OpBuilder &b = outer;
  LaunchWriter writer(b, loc, kernelWrites);
  SmallVector<Value> rowIvs =
      writer.delinearize(launch.getBlockIds().x, rowExtents);
  Value thread = launch.getThreadIds().x;
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (i > 0)
      gpu::BarrierOp::create(b, loc);
    if (failed(writeRowOp(b, writer, op, rowIvs, thread, block)))
      return failure();
  }
  return success();
}

} // namespace numlir::cuda::launches
