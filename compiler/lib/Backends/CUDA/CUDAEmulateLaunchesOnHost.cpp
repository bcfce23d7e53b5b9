//===- CUDAEmulateLaunchesOnHost.cpp - run gpu.launch bodies as CPU loops -===//
//
// No GPU is within reach of numlir's tests, so the kernels the CUDA backend
// writes are checked by running them on the host: the same launch bodies,
// with their blocks and threads as loops. That tests the backend's own
// work (the grid mapping, indexing, row and reduction logic, barriers)
// against the CPU backend; what it cannot test, LLVM's NVPTX code
// generation and the driver's launches, docs/cuda-backend.md names.
//
// A block runs its body as segments, cut at the top-level barriers and
// block reductions: every thread runs a segment before any thread starts
// the next, which is what a barrier guarantees. A value a thread computes
// in one segment and uses in a later one lives in a per-thread slot. Values
// that no thread id reaches (constants, views, block indices) are computed
// once per block. A block reduction combines the threads' values in thread
// order; the GPU's tree order may round differently.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace numlir {
#define GEN_PASS_DEF_CUDAEMULATELAUNCHESONHOST
#include "numlir/Backends/CUDA/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

bool isSplit(Operation *op) { return isa<gpu::BarrierOp, gpu::AllReduceOp>(op); }

std::optional<int64_t> constantIndex(Value value) {
  if (auto constant = value.getDefiningOp<arith::ConstantIndexOp>())
    return constant.value();
  return std::nullopt;
}

/// `lhs` combined with `rhs` by a gpu.all_reduce operation.
Value combine(OpBuilder &b, Location loc, gpu::AllReduceOperation kind,
              Value lhs, Value rhs) {
  using K = gpu::AllReduceOperation;
  bool isFloat = isa<FloatType>(lhs.getType());
  switch (kind) {
  case K::ADD:
    return isFloat ? Value(arith::AddFOp::create(b, loc, lhs, rhs))
                   : Value(arith::AddIOp::create(b, loc, lhs, rhs));
  case K::MUL:
    return isFloat ? Value(arith::MulFOp::create(b, loc, lhs, rhs))
                   : Value(arith::MulIOp::create(b, loc, lhs, rhs));
  case K::MAXIMUMF:
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  case K::MINIMUMF:
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  case K::MAXNUMF:
    return arith::MaxNumFOp::create(b, loc, lhs, rhs);
  case K::MINNUMF:
    return arith::MinNumFOp::create(b, loc, lhs, rhs);
  case K::MAXSI:
    return arith::MaxSIOp::create(b, loc, lhs, rhs);
  case K::MINSI:
    return arith::MinSIOp::create(b, loc, lhs, rhs);
  case K::MAXUI:
    return arith::MaxUIOp::create(b, loc, lhs, rhs);
  case K::MINUI:
    return arith::MinUIOp::create(b, loc, lhs, rhs);
  case K::AND:
    return arith::AndIOp::create(b, loc, lhs, rhs);
  case K::OR:
    return arith::OrIOp::create(b, loc, lhs, rhs);
  case K::XOR:
    return arith::XOrIOp::create(b, loc, lhs, rhs);
  }
  llvm_unreachable("every gpu.all_reduce operation is handled");
}

/// A loop that holds a barrier or a block reduction: all threads run it
/// together, so the block runs it, with its body cut into segments.
bool isBlockLoop(Operation *op) {
  if (!isa<scf::ForOp>(op))
    return false;
  return op->walk([](Operation *inner) {
             return isSplit(inner) ? WalkResult::interrupt()
                                   : WalkResult::advance();
           })
      .wasInterrupted();
}

class LaunchEmulator {
public:
  LaunchEmulator(gpu::LaunchOp launch) : launch(launch) {}

  LogicalResult run() {
    if (failed(check()))
      return failure();
    Block &body = launch.getBody().front();
    int64_t segment = 0;
    numberSegments(body, segment);
    if (failed(markVarying(body)))
      return failure();

    OpBuilder b(launch);
    Location loc = launch.getLoc();
    slotsBuilder = std::make_unique<OpBuilder>(launch);
    auto blocks = scf::ForOp::create(b, loc, index(b, 0), index(b, gridSize),
                                     index(b, 1));
    slotsBuilder->setInsertionPoint(blocks);
    b.setInsertionPointToStart(blocks.getBody());
    IRMapping uniform;
    uniform.map(launch.getBlockIds().x, blocks.getInductionVar());
    for (Value v : {launch.getBlockIds().y, launch.getBlockIds().z,
                    launch.getThreadIds().y, launch.getThreadIds().z})
      uniform.map(v, index(b, 0));
    uniform.map(launch.getGridSize().x, index(b, gridSize));
    uniform.map(launch.getBlockSize().x, index(b, blockSize));
    for (Value v : {launch.getGridSize().y, launch.getGridSize().z,
                    launch.getBlockSize().y, launch.getBlockSize().z})
      uniform.map(v, index(b, 1));
    // Shared memory: one buffer, reused by the blocks in turn.
    for (BlockArgument shared : launch.getWorkgroupAttributions()) {
      auto type = cast<MemRefType>(shared.getType());
      auto hostType = MemRefType::get(type.getShape(), type.getElementType());
      uniform.map(shared,
                  memref::AllocaOp::create(*slotsBuilder, loc, hostType));
    }
    if (failed(emitBlock(body, b, uniform)))
      return failure();
    launch.erase();
    return success();
  }

private:
  Value index(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, launch.getLoc(), v);
  }

  LogicalResult check() {
    auto grid = constantIndex(launch.getGridSizeX());
    auto block = constantIndex(launch.getBlockSizeX());
    for (Value v : {launch.getGridSizeY(), launch.getGridSizeZ(),
                    launch.getBlockSizeY(), launch.getBlockSizeZ()})
      if (constantIndex(v) != 1)
        return launch.emitOpError("cannot emulate: the host emulation runs "
                                  "1-D grids and blocks");
    if (!grid || !block)
      return launch.emitOpError("cannot emulate: grid and block sizes must be "
                                "constants");
    gridSize = *grid;
    blockSize = *block;
    if (launch.getAsyncToken() || !launch.getPrivateAttributions().empty() ||
        launch.getDynamicSharedMemorySize())
      return launch.emitOpError("cannot emulate: async launches, private "
                                "memory attributions and dynamic shared "
                                "memory are not emulated");
    // A barrier is emulated where every thread reaches it together: at the
    // top level, or in loops at the top level (the block runs them).
    WalkResult nested = launch.getBody().walk([&](Operation *op) {
      if (isSplit(op)) {
        for (Operation *parent = op->getParentOp();
             parent != launch.getOperation(); parent = parent->getParentOp())
          if (!isa<scf::ForOp>(parent)) {
            op->emitOpError("cannot emulate: barriers and reductions of "
                            "threads are emulated only at the top level of "
                            "a launch or in loops there");
            return WalkResult::interrupt();
          }
        return WalkResult::advance();
      }
      if (isa<gpu::ShuffleOp, gpu::SubgroupReduceOp>(op)) {
        op->emitOpError("cannot emulate: shuffles and subgroup reductions");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (auto reduce = launch.getBody().walk([](gpu::AllReduceOp op) {
          return op.getOp() ? WalkResult::advance() : WalkResult::interrupt();
        });
        reduce.wasInterrupted())
      return launch.emitOpError("cannot emulate: gpu.all_reduce with a region");
    return failure(nested.wasInterrupted());
  }

  /// Numbers the ops of `body` (the launch's, or a block loop's) by
  /// segment: a split ends one; a block loop, its body and its yield each
  /// take their own.
  void numberSegments(Block &body, int64_t &segment) {
    segmented.insert(&body);
    for (Operation &op : body) {
      if (isBlockLoop(&op)) {
        segmentOf[&op] = ++segment;
        ++segment;
        numberSegments(*cast<scf::ForOp>(op).getBody(), segment);
        ++segment;
        continue;
      }
      if (op.hasTrait<OpTrait::IsTerminator>() && !isa<gpu::TerminatorOp>(op))
        ++segment; // a block loop's yield stores every thread's values
      segmentOf[&op] = segment;
      if (isSplit(&op))
        ++segment;
    }
  }

  /// Ops whose results differ between threads, or that touch memory: they
  /// run once per thread. The rest run once per block. A block loop's
  /// carried values and results are per thread; its bounds must not be.
  LogicalResult markVarying(Block &body) {
    varying.insert(launch.getThreadIds().x);
    for (Operation &op : body.without_terminator()) {
      if (isa<gpu::AllReduceOp, gpu::BarrierOp>(op))
        continue; // uniform results, by definition
      auto isVarying = [&](Value v) { return varying.contains(v); };
      if (auto loop = dyn_cast<scf::ForOp>(op); loop && isBlockLoop(loop)) {
        if (llvm::any_of(ValueRange{loop.getLowerBound(), loop.getUpperBound(),
                                    loop.getStep()},
                         isVarying))
          return loop.emitOpError("cannot emulate: a loop with barriers whose "
                                  "bounds differ between threads");
        for (Value v : loop.getRegionIterArgs())
          varying.insert(v);
        for (Value v : loop.getResults())
          varying.insert(v);
        if (failed(markVarying(*loop.getBody())))
          return failure();
        continue;
      }
      bool perThread = op.getNumRegions() > 0 || !isMemoryEffectFree(&op) ||
                       llvm::any_of(op.getOperands(), isVarying);
      if (!perThread)
        continue;
      varying.insert(&op);
      for (Value result : op.getResults())
        varying.insert(result);
    }
    return success();
  }

  /// Emits a loop over the block's threads at `b` whose body `fill` writes
  /// (given the thread's mapping, which starts from `uniform`).
  LogicalResult
  threadLoop(OpBuilder &b, const IRMapping &uniform,
             function_ref<LogicalResult(OpBuilder &, IRMapping &, Value)> fill) {
    Location loc = launch.getLoc();
    auto threads = scf::ForOp::create(b, loc, index(b, 0), index(b, blockSize),
                                      index(b, 1));
    OpBuilder t(threads.getBody()->getTerminator());
    IRMapping local = uniform;
    local.map(launch.getThreadIds().x, threads.getInductionVar());
    return fill(t, local, threads.getInductionVar());
  }

  /// Makes `v` known in a thread's mapping: a per-thread value from an
  /// earlier segment is loaded from its slot.
  LogicalResult bring(OpBuilder &t, IRMapping &local, Value thread, Value v) {
    if (local.contains(v) || !varying.contains(v))
      return success();
    auto slot = slots.find(v);
    if (slot == slots.end())
      return launch.emitOpError("cannot emulate: a thread's value is used "
                                "before the segment that computes it");
    local.map(v, memref::LoadOp::create(t, launch.getLoc(), slot->second,
                                        thread)
                     .getResult());
    return success();
  }

  /// Runs one segment's per-thread ops, then the block reduction that ends
  /// it, if any.
  LogicalResult flush(OpBuilder &b, IRMapping &uniform,
                      ArrayRef<Operation *> pending,
                      gpu::AllReduceOp reduction) {
    if (pending.empty() && !reduction)
      return success();
    Location loc = launch.getLoc();
    FailureOr<Value> reductionSlot;
    if (reduction) {
      reductionSlot = slotFor(reduction.getResult());
      if (failed(reductionSlot))
        return failure();
    }
    LogicalResult ran = threadLoop(
        b, uniform,
        [&](OpBuilder &t, IRMapping &local, Value thread) -> LogicalResult {
          for (Operation *op : pending) {
            SetVector<Value> used;
            getUsedValuesDefinedAbove(op->getRegions(), used);
            used.insert(op->operand_begin(), op->operand_end());
            for (Value v : used)
              if (failed(bring(t, local, thread, v)))
                return failure();
            Operation *clone = t.clone(*op, local);
            for (auto [result, cloned] :
                 llvm::zip_equal(op->getResults(), clone->getResults())) {
              if (!usedInLaterSegment(result))
                continue;
              FailureOr<Value> slot = slotFor(result);
              if (failed(slot))
                return failure();
              memref::StoreOp::create(t, loc, cloned, *slot, thread);
            }
          }
          if (!reduction)
            return success();
          Value value = reduction.getValue();
          if (failed(bring(t, local, thread, value)))
            return failure();
          memref::StoreOp::create(t, loc, local.lookupOrDefault(value),
                                  *reductionSlot, thread);
          return success();
        });
    if (failed(ran) || !reduction)
      return ran;
    // The block's value: the threads' values combined in thread order.
    Value first = memref::LoadOp::create(b, loc, *reductionSlot, index(b, 0));
    auto fold = scf::ForOp::create(b, loc, index(b, 1), index(b, blockSize),
                                   index(b, 1), ValueRange{first});
    OpBuilder f = OpBuilder::atBlockBegin(fold.getBody());
    Value next =
        memref::LoadOp::create(f, loc, *reductionSlot, fold.getInductionVar());
    Value combined = combine(f, loc, *reduction.getOp(),
                             fold.getRegionIterArg(0), next);
    scf::YieldOp::create(f, loc, combined);
    uniform.map(reduction.getResult(), fold.getResult(0));
    return success();
  }

  /// Emits `body`'s ops at `b`, segment by segment.
  LogicalResult emitBlock(Block &body, OpBuilder &b, IRMapping &uniform) {
    SmallVector<Operation *> pending; // this segment's per-thread ops
    for (Operation &op : body.without_terminator()) {
      if (auto reduction = dyn_cast<gpu::AllReduceOp>(op)) {
        if (failed(flush(b, uniform, pending, reduction)))
          return failure();
        pending.clear();
        continue;
      }
      if (isa<gpu::BarrierOp>(op) || isBlockLoop(&op)) {
        if (failed(flush(b, uniform, pending, nullptr)))
          return failure();
        pending.clear();
        if (auto loop = dyn_cast<scf::ForOp>(op))
          if (failed(emitBlockLoop(loop, b, uniform)))
            return failure();
        continue;
      }
      if (varying.contains(&op)) {
        pending.push_back(&op);
        continue;
      }
      b.clone(op, uniform);
    }
    return flush(b, uniform, pending, nullptr);
  }

  /// A loop with barriers, run by the block: its carried values live in
  /// per-thread slots, stored before the loop and at the end of each
  /// iteration; its results are those slots.
  LogicalResult emitBlockLoop(scf::ForOp loop, OpBuilder &b,
                              IRMapping &uniform) {
    Location loc = loop.getLoc();
    SmallVector<Value> carried;
    for (auto [arg, result] :
         llvm::zip_equal(loop.getRegionIterArgs(), loop.getResults())) {
      FailureOr<Value> slot = slotFor(arg);
      if (failed(slot))
        return failure();
      slots[result] = *slot;
      carried.push_back(*slot);
    }
    // Every thread's values, from `values`, into the carried slots.
    auto storeCarried = [&](OpBuilder &at, IRMapping &mapping,
                            ValueRange values) {
      return threadLoop(
          at, mapping,
          [&](OpBuilder &t, IRMapping &local, Value thread) -> LogicalResult {
            for (Value v : values)
              if (failed(bring(t, local, thread, v)))
                return failure();
            // all loaded before any is stored: a yield may swap them
            SmallVector<Value> mapped;
            for (Value v : values)
              mapped.push_back(local.lookupOrDefault(v));
            for (auto [value, slot] : llvm::zip_equal(mapped, carried))
              memref::StoreOp::create(t, loc, value, slot, thread);
            return success();
          });
    };
    if (!carried.empty() && failed(storeCarried(b, uniform, loop.getInitArgs())))
      return failure();
    auto blockLoop = scf::ForOp::create(
        b, loc, uniform.lookupOrDefault(loop.getLowerBound()),
        uniform.lookupOrDefault(loop.getUpperBound()),
        uniform.lookupOrDefault(loop.getStep()));
    OpBuilder inner(blockLoop.getBody()->getTerminator());
    IRMapping iteration = uniform;
    iteration.map(loop.getInductionVar(), blockLoop.getInductionVar());
    if (failed(emitBlock(*loop.getBody(), inner, iteration)))
      return failure();
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    if (!carried.empty() &&
        failed(storeCarried(inner, iteration, yield.getOperands())))
      return failure();
    return success();
  }

  /// Whether a thread's `value` is used after the segment that computes it
  /// (or by a block reduction), so that it needs a slot.
  bool usedInLaterSegment(Value value) {
    Operation *def = value.getDefiningOp();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      while (!segmented.contains(user->getBlock()))
        user = user->getParentOp();
      if (segmentOf.lookup(user) != segmentOf.lookup(def) || isSplit(user))
        return true;
    }
    return false;
  }

  /// A per-thread slot for `value`, allocated on the stack of the function
  /// once per launch.
  FailureOr<Value> slotFor(Value value) {
    if (Value known = slots.lookup(value))
      return known;
    Type type = value.getType();
    if (!type.isIntOrIndexOrFloat() && !isa<ComplexType>(type))
      return launch.emitOpError("cannot emulate: a thread keeps a value of "
                                "type ")
             << type << " across a barrier";
    auto slotType = MemRefType::get({blockSize}, type);
    Value slot = memref::AllocaOp::create(*slotsBuilder, launch.getLoc(),
                                          slotType);
    slots[value] = slot;
    return slot;
  }

  gpu::LaunchOp launch;
  int64_t gridSize = 1, blockSize = 1;
  /// The launch body and the block loops' bodies: blocks cut in segments.
  llvm::DenseSet<Block *> segmented;
  llvm::DenseMap<Operation *, int64_t> segmentOf;
  struct VaryingSet {
    llvm::DenseSet<Operation *> ops;
    llvm::DenseSet<Value> values;
    void insert(Operation *op) { ops.insert(op); }
    void insert(Value v) { values.insert(v); }
    bool contains(Operation *op) const { return ops.contains(op); }
    bool contains(Value v) const { return values.contains(v); }
  } varying;
  llvm::DenseMap<Value, Value> slots;
  std::unique_ptr<OpBuilder> slotsBuilder;
};

struct CUDAEmulateLaunchesOnHostPass
    : numlir::impl::CUDAEmulateLaunchesOnHostBase<
          CUDAEmulateLaunchesOnHostPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp op) { launches.push_back(op); });
    for (gpu::LaunchOp launch : launches)
      if (failed(LaunchEmulator(launch).run()))
        return signalPassFailure();
  }
};

} // namespace
