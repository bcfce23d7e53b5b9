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

class LaunchEmulator {
public:
  LaunchEmulator(gpu::LaunchOp launch) : launch(launch) {}

  LogicalResult run() {
    if (failed(check()))
      return failure();
    Block &body = launch.getBody().front();
    // Segments: the ops between splits; segment[op] for each top-level op.
    int64_t segment = 0;
    for (Operation &op : body.without_terminator()) {
      segmentOf[&op] = segment;
      if (isSplit(&op))
        ++segment;
    }
    markVarying(body);

    OpBuilder b(launch);
    Location loc = launch.getLoc();
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    slotsBuilder = std::make_unique<OpBuilder>(launch);
    auto blocks = scf::ForOp::create(b, loc, index(0), index(gridSize),
                                     index(1));
    slotsBuilder->setInsertionPoint(blocks);
    b.setInsertionPointToStart(blocks.getBody());
    IRMapping uniform;
    uniform.map(launch.getBlockIds().x, blocks.getInductionVar());
    for (Value v : {launch.getBlockIds().y, launch.getBlockIds().z,
                    launch.getThreadIds().y, launch.getThreadIds().z})
      uniform.map(v, index(0));
    uniform.map(launch.getGridSize().x, index(gridSize));
    uniform.map(launch.getBlockSize().x, index(blockSize));
    for (Value v : {launch.getGridSize().y, launch.getGridSize().z,
                    launch.getBlockSize().y, launch.getBlockSize().z})
      uniform.map(v, index(1));

    SmallVector<Operation *> pending; // this segment's varying ops
    auto flush = [&](gpu::AllReduceOp reduction) -> LogicalResult {
      if (pending.empty() && !reduction)
        return success();
      auto threads = scf::ForOp::create(b, loc, index(0), index(blockSize),
                                        index(1));
      OpBuilder t = OpBuilder::atBlockBegin(threads.getBody());
      t.setInsertionPoint(threads.getBody()->getTerminator());
      Value thread = threads.getInductionVar();
      IRMapping local = uniform;
      local.map(launch.getThreadIds().x, thread);
      auto bring = [&](Value v) -> LogicalResult {
        if (local.contains(v) || !varying.contains(v))
          return success();
        auto slot = slots.find(v);
        if (slot == slots.end())
          return launch.emitOpError("cannot emulate: a thread's value is used "
                                    "before the segment that computes it");
        local.map(v, memref::LoadOp::create(t, loc, slot->second, thread)
                         .getResult());
        return success();
      };
      for (Operation *op : pending) {
        SetVector<Value> used;
        getUsedValuesDefinedAbove(op->getRegions(), used);
        used.insert(op->operand_begin(), op->operand_end());
        for (Value v : used)
          if (failed(bring(v)))
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
      if (reduction) {
        Value value = reduction.getValue();
        if (failed(bring(value)))
          return failure();
        FailureOr<Value> slot = slotFor(reduction.getResult());
        if (failed(slot))
          return failure();
        memref::StoreOp::create(t, loc, local.lookupOrDefault(value), *slot,
                                thread);
        // The block's value: the threads' values combined in thread order.
        Value first = memref::LoadOp::create(b, loc, *slot, index(0));
        auto fold = scf::ForOp::create(b, loc, index(1), index(blockSize),
                                       index(1), ValueRange{first});
        OpBuilder f = OpBuilder::atBlockBegin(fold.getBody());
        Value next =
            memref::LoadOp::create(f, loc, *slot, fold.getInductionVar());
        Value combined = combine(f, loc, *reduction.getOp(),
                                 fold.getRegionIterArg(0), next);
        scf::YieldOp::create(f, loc, combined);
        uniform.map(reduction.getResult(), fold.getResult(0));
      }
      pending.clear();
      return success();
    };

    for (Operation &op : body.without_terminator()) {
      if (auto reduction = dyn_cast<gpu::AllReduceOp>(op)) {
        if (failed(flush(reduction)))
          return failure();
        continue;
      }
      if (isa<gpu::BarrierOp>(op)) {
        if (failed(flush(nullptr)))
          return failure();
        continue;
      }
      if (varying.contains(&op)) {
        pending.push_back(&op);
        continue;
      }
      b.clone(op, uniform);
    }
    if (failed(flush(nullptr)))
      return failure();
    launch.erase();
    return success();
  }

private:
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
    if (launch.getAsyncToken() || !launch.getWorkgroupAttributions().empty() ||
        !launch.getPrivateAttributions().empty() ||
        launch.getDynamicSharedMemorySize())
      return launch.emitOpError("cannot emulate: async launches, memory "
                                "attributions and dynamic shared memory are "
                                "not emulated");
    WalkResult nested = launch.getBody().walk([&](Operation *op) {
      if (op->getParentOp() == launch.getOperation())
        return WalkResult::advance();
      if (isSplit(op) || isa<gpu::ShuffleOp, gpu::SubgroupReduceOp>(op)) {
        op->emitOpError("cannot emulate: barriers and reductions of threads "
                        "are emulated at the top level of a launch only");
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

  /// Ops whose results differ between threads, or that touch memory: they
  /// run once per thread. The rest run once per block.
  void markVarying(Block &body) {
    varying.insert(launch.getThreadIds().x);
    for (Operation &op : body.without_terminator()) {
      if (isa<gpu::AllReduceOp, gpu::BarrierOp>(op))
        continue; // uniform results, by definition
      bool perThread = op.getNumRegions() > 0 || !isMemoryEffectFree(&op) ||
                       llvm::any_of(op.getOperands(), [&](Value v) {
                         return varying.contains(v);
                       });
      if (!perThread)
        continue;
      varying.insert(&op);
      for (Value result : op.getResults())
        varying.insert(result);
    }
  }

  bool usedInLaterSegment(Value value) {
    Operation *def = value.getDefiningOp();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      while (user->getParentOp() != launch.getOperation())
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
