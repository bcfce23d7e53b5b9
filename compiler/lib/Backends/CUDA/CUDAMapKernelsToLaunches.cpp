//===- CUDAMapKernelsToLaunches.cpp - a kernel function's ops on a grid ---===//
//
// A kernel function (cuda-outline-fusions) holds the linalg ops of one
// hlo.fusion, on buffers. This pass writes the one gpu.launch that runs
// them: blocks over the rows the ops share, threads over what each op does
// within a row (Passes.td gives the mapping). The launch body is built from
// scalar loads, the ops' own bodies and stores, so what upstream's NVVM
// lowering sees is plain SCF and arithmetic plus gpu.all_reduce, barriers
// and thread and block ids.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CUDA/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace numlir {
#define GEN_PASS_DEF_CUDAMAPKERNELSTOLAUNCHES
#include "numlir/Backends/CUDA/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

bool isView(Operation *op) {
  return isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::ReinterpretCastOp, memref::CastOp>(op);
}

/// The buffer a memref value is a view of: a function argument, an
/// allocation or a global.
Value rootBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isView(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

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

int64_t product(ArrayRef<int64_t> values) {
  int64_t result = 1;
  for (int64_t v : values)
    result *= v;
  return result;
}

/// Writes the body of one launch: the helpers give each linalg op's scalar
/// code at given loop indices, on buffers visible inside the launch.
class LaunchWriter {
public:
  /// Writes at `builder`'s insertion point, which must be the start of the
  /// launch body: what `materialize` rebuilds goes there, above everything
  /// written later, so it dominates every use.
  LaunchWriter(OpBuilder &builder, Location loc)
      : b(builder), loc(loc), hoist(builder.getContext()) {
    Operation *anchor = arith::ConstantIndexOp::create(b, loc, 0);
    hoist.setInsertionPoint(anchor);
  }

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// `value` as seen inside the launch: buffers are captured as they are
  /// (so the kernel takes one pointer per buffer), views and constants are
  /// rebuilt inside.
  FailureOr<Value> materialize(Value value) {
    if (Value known = mapping.lookupOrNull(value))
      return known;
    Operation *def = value.getDefiningOp();
    if (!def || isa<memref::AllocOp, memref::GetGlobalOp>(def))
      return value;
    bool recomputable = isView(def) || (def->getNumRegions() == 0 &&
                                         isMemoryEffectFree(def));
    if (auto load = dyn_cast<memref::LoadOp>(def))
      recomputable = !written.contains(rootBuffer(load.getMemRef()));
    if (!recomputable)
      return def->emitOpError()
             << "is used inside a GPU kernel but is not a buffer, a view, a "
                "pure value or a load of a buffer the kernel does not write";
    for (Value operand : def->getOperands())
      if (failed(materialize(operand)))
        return failure();
    Operation *clone = hoist.clone(*def, mapping);
    return clone->getResult(0);
  }

  /// Splits `linear` into indices of a row-major space of `extents`.
  SmallVector<Value> delinearize(Value linear, ArrayRef<int64_t> extents) {
    SmallVector<Value> indices(extents.size());
    for (int64_t i = int64_t(extents.size()) - 1; i >= 0; --i) {
      Value extent = index(extents[i]);
      indices[i] = i == 0 ? linear
                          : arith::RemUIOp::create(b, loc, linear, extent);
      if (i > 0)
        linear = arith::DivUIOp::create(b, loc, linear, extent);
    }
    return indices;
  }

  /// The element of operand `operand` of `op` at loop indices `ivs`.
  FailureOr<Value> load(linalg::GenericOp op, OpOperand &operand,
                        ArrayRef<Value> ivs) {
    FailureOr<Value> source = materialize(operand.get());
    if (failed(source))
      return failure();
    if (!isa<MemRefType>(source->getType()))
      return *source; // a scalar operand (linalg.fill's value)
    SmallVector<Value> indices = apply(op.getMatchingIndexingMap(&operand), ivs);
    return memref::LoadOp::create(b, loc, *source, indices).getResult();
  }

  LogicalResult store(linalg::GenericOp op, OpOperand &operand, Value value,
                      ArrayRef<Value> ivs) {
    FailureOr<Value> target = materialize(operand.get());
    if (failed(target))
      return failure();
    SmallVector<Value> indices = apply(op.getMatchingIndexingMap(&operand), ivs);
    memref::StoreOp::create(b, loc, value, *target, indices);
    return success();
  }

  /// The values `op`'s body yields at `ivs`, given its inputs' elements and
  /// the current values of its outputs.
  FailureOr<SmallVector<Value>> body(linalg::GenericOp op, ArrayRef<Value> ivs,
                                     ArrayRef<Value> outputs) {
    SmallVector<Value> inputs;
    for (OpOperand *input : op.getDpsInputOperands()) {
      FailureOr<Value> element = load(op, *input, ivs);
      if (failed(element))
        return failure();
      inputs.push_back(*element);
    }
    return bodyOf(op, ivs, inputs, outputs);
  }

  /// The values `op`'s body yields for the given input elements (loaded
  /// wherever the caller keeps them: a buffer, shared memory) and outputs.
  FailureOr<SmallVector<Value>> bodyOf(linalg::GenericOp op,
                                       ArrayRef<Value> ivs,
                                       ArrayRef<Value> inputs,
                                       ArrayRef<Value> outputs) {
    Block &block = op.getRegion().front();
    IRMapping local;
    for (auto [i, input] : llvm::enumerate(inputs))
      local.map(block.getArgument(i), input);
    for (auto [i, output] : llvm::enumerate(outputs))
      local.map(block.getArgument(op.getNumDpsInputs() + i), output);
    for (Operation &inner : block.without_terminator()) {
      if (auto indexOp = dyn_cast<linalg::IndexOp>(inner)) {
        local.map(indexOp.getResult(), ivs[indexOp.getDim()]);
        continue;
      }
      // Values from outside the op (a buffer a gather reads, a constant)
      // are brought into the launch first.
      for (Value operand : inner.getOperands())
        if (!local.contains(operand) &&
            !op.getRegion().isAncestor(operand.getParentRegion())) {
          FailureOr<Value> outside = materialize(operand);
          if (failed(outside))
            return failure();
          local.map(operand, *outside);
        }
      b.clone(inner, local);
    }
    SmallVector<Value> yielded;
    for (Value value : block.getTerminator()->getOperands())
      yielded.push_back(local.lookupOrDefault(value));
    return yielded;
  }

  /// Loads the outputs at `ivs`, runs the body and stores what it yields.
  LogicalResult elementwise(linalg::GenericOp op, ArrayRef<Value> ivs) {
    SmallVector<Value> current;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      FailureOr<Value> element = load(op, init, ivs);
      if (failed(element))
        return failure();
      current.push_back(*element);
    }
    FailureOr<SmallVector<Value>> yielded = body(op, ivs, current);
    if (failed(yielded))
      return failure();
    for (auto [init, value] : llvm::zip_equal(op.getDpsInitsMutable(), *yielded))
      if (failed(store(op, init, value, ivs)))
        return failure();
    return success();
  }

  IRMapping mapping;
  /// The buffers the launch writes: a load from one cannot be recomputed.
  llvm::DenseSet<Value> written;

private:
  SmallVector<Value> apply(AffineMap map, ArrayRef<Value> ivs) {
    SmallVector<Value> indices;
    for (AffineExpr expr : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
        indices.push_back(ivs[dim.getPosition()]);
        continue;
      }
      if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
        indices.push_back(index(constant.getValue()));
        continue;
      }
      auto single = AffineMap::get(map.getNumDims(), 0, expr);
      indices.push_back(affine::AffineApplyOp::create(b, loc, single, ivs));
    }
    return indices;
  }

  OpBuilder &b;
  Location loc;
  OpBuilder hoist;
};

struct CUDAMapKernelsToLaunchesPass
    : numlir::impl::CUDAMapKernelsToLaunchesBase<
          CUDAMapKernelsToLaunchesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockSize < 32 || blockSize > 1024 || blockSize % 32 != 0) {
      getOperation().emitError()
          << "cuda-map-kernels-to-launches needs a block-size that is a "
             "multiple of 32 from 32 to 1024, got "
          << std::to_string(blockSize.getValue());
      return signalPassFailure();
    }
    if (tileSize < 0 || tileSize * tileSize > 1024 ||
        (tileSize * tileSize) % 32 != 0) {
      getOperation().emitError()
          << "cuda-map-kernels-to-launches needs a tile-size whose square is "
             "a multiple of 32 and at most 1024 (or 0), got "
          << std::to_string(tileSize.getValue());
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> kernels;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func.isPrivate() && !func.isExternal())
        kernels.push_back(func);
    for (func::FuncOp kernel : kernels)
      if (failed(mapKernel(kernel)))
        return signalPassFailure();
  }

  /// The linalg ops of `kernel` as generics, in order (copies become
  /// generics too), or nothing where the function does other work.
  FailureOr<std::optional<SmallVector<linalg::GenericOp>>>
  collectOps(func::FuncOp kernel) {
    IRRewriter rewriter(kernel.getContext());
    SmallVector<Operation *> ops;
    for (Operation &op : kernel.getBody().front())
      ops.push_back(&op);
    SmallVector<linalg::GenericOp> generics;
    for (Operation *op : ops) {
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        rewriter.setInsertionPoint(copy);
        Operation *generic = linalg::makeMemRefCopyOp(
            rewriter, copy.getLoc(), copy.getSource(), copy.getTarget());
        rewriter.eraseOp(copy);
        generics.push_back(cast<linalg::GenericOp>(generic));
        continue;
      }
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
        if (!linalgOp.hasPureBufferSemantics())
          return op->emitOpError("reached the GPU mapping before bufferization");
        auto generic = dyn_cast<linalg::GenericOp>(op);
        if (!generic) {
          rewriter.setInsertionPoint(op);
          FailureOr<linalg::GenericOp> generalized =
              linalg::generalizeNamedOp(rewriter, linalgOp);
          if (failed(generalized))
            return op->emitOpError("cannot be generalized for the GPU mapping");
          generic = *generalized;
        }
        for (int64_t extent : generic.getStaticLoopRanges())
          if (ShapedType::isDynamic(extent))
            return op->emitOpError("has a dynamic loop extent, which the cuda "
                                   "backend does not map");
        generics.push_back(generic);
        continue;
      }
      // Scalars the linalg ops' views and bodies need (a dynamic slice's
      // offsets) are recomputed by each thread inside the launch.
      if (isView(op) ||
          isa<memref::AllocOp, memref::GetGlobalOp, memref::LoadOp,
              func::ReturnOp>(op) ||
          (op->getNumRegions() == 0 && isMemoryEffectFree(op)))
        continue;
      // loops, stores: the function runs as one thread
      return std::optional<SmallVector<linalg::GenericOp>>();
    }
    return std::optional<SmallVector<linalg::GenericOp>>(std::move(generics));
  }

  /// Moves the whole body of `kernel` but its allocations into a launch of
  /// one thread: the fallback for what has no parallel mapping yet (a
  /// scatter's or a cumulative op's loops). Correct, and slow on a GPU.
  void writeSerialLaunch(func::FuncOp kernel) {
    Block &body = kernel.getBody().front();
    OpBuilder builder(body.getTerminator());
    Location loc = kernel.getLoc();
    gpu::LaunchOp launch = createLaunch(builder, loc, 1, 1);
    Operation *end = launch.getBody().front().getTerminator();
    SmallVector<Operation *> moved;
    for (Operation &op : body.without_terminator())
      if (&op != launch.getOperation() &&
          !isa<memref::AllocOp, memref::GetGlobalOp>(op) &&
          !launch->isAncestor(&op) &&
          // the launch's own grid and block sizes
          !(!op.use_empty() &&
            llvm::all_of(op.getUsers(), [&](Operation *user) {
              return user == launch.getOperation();
            })))
        moved.push_back(&op);
    for (Operation *op : moved)
      op->moveBefore(end);
  }

  LogicalResult mapKernel(func::FuncOp kernel) {
    FailureOr<std::optional<SmallVector<linalg::GenericOp>>> collected =
        collectOps(kernel);
    if (failed(collected))
      return failure();
    if (!*collected) {
      writeSerialLaunch(kernel);
      return success();
    }
    kernelWrites.clear();
    for (linalg::GenericOp op : **collected)
      for (OpOperand &init : op.getDpsInitsMutable())
        kernelWrites.insert(rootBuffer(init.get()));
    SmallVector<linalg::GenericOp> ops;
    for (linalg::GenericOp op : **collected) {
      if (product(op.getStaticLoopRanges()) == 0)
        op.erase(); // nothing to compute
      else
        ops.push_back(op);
    }
    if (ops.empty())
      return success();
    OpBuilder builder(kernel.getBody().front().getTerminator());
    if (std::optional<TiledContraction> tiled = matchTiledContraction(ops)) {
      if (failed(writeTiledLaunch(builder, *tiled)))
        return failure();
      for (linalg::GenericOp op : ops)
        op.erase();
      return success();
    }
    bool oneOpWithoutReductions =
        ops.size() == 1 && ops[0].getNumReductionLoops() == 0;
    int64_t rows = oneOpWithoutReductions ? 0 : sharedRowDims(ops);
    if (oneOpWithoutReductions) {
      if (failed(writeFlatLaunch(builder, ops[0])))
        return failure();
    } else if (rows > 0 || ops.size() == 1) {
      if (failed(writeRowLaunch(builder, ops, rows)))
        return failure();
    } else {
      // No row space is shared: one launch per op, in order.
      for (linalg::GenericOp op : ops) {
        LogicalResult written =
            op.getNumReductionLoops() == 0
                ? writeFlatLaunch(builder, op)
                : writeRowLaunch(builder, {op}, sharedRowDims({op}));
        if (failed(written))
          return failure();
      }
    }
    for (linalg::GenericOp op : ops)
      op.erase();
    return success();
  }

  /// The buffers the kernel being mapped writes.
  llvm::DenseSet<Value> kernelWrites;

  /// How many leading loops every op has parallel and of the same extent,
  /// such that every op writes, and reads what the ops write, at its own
  /// row: then one block per row runs all the ops without seeing another
  /// block's work.
  int64_t sharedRowDims(ArrayRef<linalg::GenericOp> ops) {
    linalg::GenericOp root = ops.back();
    SmallVector<int64_t> extents = root.getStaticLoopRanges();
    int64_t rows = int64_t(extents.size());
    for (linalg::GenericOp op : ops) {
      SmallVector<int64_t> own = op.getStaticLoopRanges();
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      int64_t shared = 0;
      while (shared < rows && shared < int64_t(own.size()) &&
             iterators[shared] == utils::IteratorType::parallel &&
             own[shared] == extents[shared])
        ++shared;
      rows = shared;
    }
    llvm::DenseSet<Value> written;
    for (linalg::GenericOp op : ops)
      for (OpOperand &init : op.getDpsInitsMutable())
        written.insert(rootBuffer(init.get()));
    for (linalg::GenericOp op : ops)
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isa<MemRefType>(operand.get().getType()) ||
            !written.contains(rootBuffer(operand.get())))
          continue;
        rows = std::min(rows, rowAlignedDims(op, operand, rows));
      }
    return rows;
  }

  /// The leading dims (at most `rows`) along which `operand` addresses its
  /// buffer at the op's own row: its map starts d0, d1, ... and no view
  /// between it and the buffer moves them.
  int64_t rowAlignedDims(linalg::GenericOp op, OpOperand &operand,
                         int64_t rows) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    int64_t aligned = 0;
    while (aligned < rows && aligned < int64_t(map.getNumResults()) &&
           map.getResult(aligned) == getAffineDimExpr(aligned, op.getContext()))
      ++aligned;
    for (Value value = operand.get(); Operation *def = value.getDefiningOp();
         value = def->getOperand(0)) {
      if (!isView(def))
        break;
      aligned = std::min(aligned, viewKeepsLeadingDims(def, aligned));
    }
    return aligned;
  }

  /// How many of the first `dims` dimensions of a reshape's result address
  /// the same index of its source: dimension k does when its group of the
  /// reassociation holds dimension k of the expanded side and otherwise
  /// only dimensions of size 1 (64 -> 64x1 keeps the row, 64x4 -> 256 does
  /// not).
  static int64_t reshapeKeepsLeadingDims(ArrayRef<ReassociationIndices> groups,
                                         ArrayRef<int64_t> expandedShape,
                                         int64_t dims) {
    int64_t kept = 0;
    for (; kept < dims && kept < int64_t(groups.size()); ++kept) {
      bool aligned = llvm::is_contained(groups[kept], kept);
      for (int64_t d : groups[kept])
        aligned &= d == kept || expandedShape[d] == 1;
      if (!aligned)
        break;
    }
    return kept;
  }

  /// How many of the first `dims` dimensions a view leaves where they are.
  static int64_t viewKeepsLeadingDims(Operation *view, int64_t dims) {
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(view))
      return reshapeKeepsLeadingDims(expand.getReassociationIndices(),
                                     expand.getResultType().getShape(), dims);
    if (auto collapse = dyn_cast<memref::CollapseShapeOp>(view))
      return reshapeKeepsLeadingDims(collapse.getReassociationIndices(),
                                     collapse.getSrcType().getShape(), dims);
    if (isa<memref::CastOp>(view))
      return dims;
    return 0;
  }

  /// A launch for the op's shape, frozen as constants; returns the launch
  /// and leaves `builder` inside its body.
  gpu::LaunchOp createLaunch(OpBuilder &builder, Location loc, int64_t grid,
                             int64_t block,
                             TypeRange workgroupBuffers = {}) {
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, v);
    };
    Value one = constant(1);
    auto launch = gpu::LaunchOp::create(
        builder, loc, constant(grid), one, one, constant(block), one, one,
        /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
        /*asyncDependencies=*/{}, workgroupBuffers);
    builder.setInsertionPointToStart(&launch.getBody().front());
    gpu::TerminatorOp::create(builder, loc);
    builder.setInsertionPointToStart(&launch.getBody().front());
    return launch;
  }

  /// A kernel of fills, one contraction and elementwise consumers, which
  /// one launch runs tile by tile through shared memory.
  struct TiledContraction {
    SmallVector<linalg::GenericOp> fills;
    linalg::GenericOp contraction;
    /// The inputs laid out (batch..., m, k) and (batch..., k, n).
    OpOperand *lhs = nullptr, *rhs = nullptr;
    int64_t batchDims = 0;
    SmallVector<linalg::GenericOp> epilogue;
  };

  /// `(d0, ..., d<batch-1>, d<first>, d<second>)` over `loops` dims.
  static AffineMap batchedMap(MLIRContext *context, int64_t loops,
                              int64_t batch, int64_t first, int64_t second) {
    SmallVector<AffineExpr> results;
    for (int64_t d = 0; d < batch; ++d)
      results.push_back(getAffineDimExpr(d, context));
    results.push_back(getAffineDimExpr(first, context));
    results.push_back(getAffineDimExpr(second, context));
    return AffineMap::get(loops, 0, results, context);
  }

  /// `op` as a contraction over (batch..., m, n, k) whose body is
  /// `out + f(a, b)` on integers or floats, or nothing.
  std::optional<TiledContraction> matchContraction(linalg::GenericOp op) {
    int64_t loops = op.getNumLoops();
    if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 || loops < 3)
      return std::nullopt;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    for (int64_t d = 0; d < loops; ++d)
      if ((iterators[d] == utils::IteratorType::reduction) != (d == loops - 1))
        return std::nullopt;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      // complex numbers keep the block reduction per element
      if (!type || !type.getElementType().isIntOrFloat())
        return std::nullopt;
    }
    TiledContraction match;
    match.contraction = op;
    match.batchDims = loops - 3;
    int64_t m = loops - 3, n = loops - 2, k = loops - 1;
    MLIRContext *context = op.getContext();
    AffineMap lhsMap = batchedMap(context, loops, match.batchDims, m, k);
    AffineMap rhsMap = batchedMap(context, loops, match.batchDims, k, n);
    AffineMap outMap = batchedMap(context, loops, match.batchDims, m, n);
    OpOperand *in0 = op.getDpsInputOperand(0), *in1 = op.getDpsInputOperand(1);
    AffineMap map0 = op.getMatchingIndexingMap(in0);
    AffineMap map1 = op.getMatchingIndexingMap(in1);
    if (map0 == lhsMap && map1 == rhsMap)
      std::tie(match.lhs, match.rhs) = std::pair(in0, in1);
    else if (map0 == rhsMap && map1 == lhsMap)
      std::tie(match.lhs, match.rhs) = std::pair(in1, in0);
    else
      return std::nullopt;
    OpOperand &init = op.getDpsInitsMutable()[0];
    if (op.getMatchingIndexingMap(&init) != outMap ||
        rowAlignedDims(op, init, loops - 1) != loops - 1)
      return std::nullopt;
    if (!accumulatesProducts(op))
      return std::nullopt;
    // The tiles are read from global memory while the kernel runs: they
    // must not be what it writes.
    for (OpOperand *input : {match.lhs, match.rhs})
      if (kernelWrites.contains(rootBuffer(input->get())))
        return std::nullopt;
    return match;
  }

  /// Whether `op`'s body is `out + f(a, b)`: the output is read once, by the
  /// final addition, and the body does not read its loop indices.
  static bool accumulatesProducts(linalg::GenericOp op) {
    Block &body = op.getRegion().front();
    Operation *add = body.getTerminator()->getOperand(0).getDefiningOp();
    BlockArgument out = body.getArguments().back();
    if (!add || add->getBlock() != &body ||
        !isa<arith::AddFOp, arith::AddIOp>(add) || !out.hasOneUse() ||
        out.getUses().begin()->getOwner() != add ||
        add->getOperand(0) == add->getOperand(1))
      return false;
    return llvm::none_of(body, [](Operation &inner) {
      return isa<linalg::IndexOp>(inner);
    });
  }

  /// Whether `op` runs over exactly `extents`, all parallel, and touches
  /// what the kernel writes only at its own element.
  bool isOwnElementOp(linalg::GenericOp op, ArrayRef<int64_t> extents) {
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

  /// The ops as fills of the contraction's output, the contraction and
  /// consumers at their own element, or nothing (they keep the row mapping).
  std::optional<TiledContraction>
  matchTiledContraction(ArrayRef<linalg::GenericOp> ops) {
    if (tileSize == 0)
      return std::nullopt;
    auto isContraction = [](linalg::GenericOp op) {
      return op.getNumReductionLoops() != 0;
    };
    auto found = llvm::find_if(ops, isContraction);
    if (found == ops.end())
      return std::nullopt;
    std::optional<TiledContraction> match = matchContraction(*found);
    if (!match)
      return std::nullopt;
    linalg::GenericOp contraction = match->contraction;
    SmallVector<int64_t> extents = contraction.getStaticLoopRanges();
    extents.pop_back(); // the output's (batch..., m, n)
    Value output = contraction.getDpsInitsMutable()[0].get();
    for (linalg::GenericOp op : llvm::make_range(ops.begin(), found)) {
      // a fill: no buffer read, the contraction's output written in place
      bool readsBuffers = llvm::any_of(op.getDpsInputs(), [](Value v) {
        return isa<MemRefType>(v.getType());
      });
      if (readsBuffers || op.getNumDpsInits() != 1 ||
          op.getDpsInitsMutable()[0].get() != output ||
          !isOwnElementOp(op, extents))
        return std::nullopt;
      match->fills.push_back(op);
    }
    for (linalg::GenericOp op : llvm::make_range(std::next(found), ops.end())) {
      if (!isOwnElementOp(op, extents))
        return std::nullopt;
      match->epilogue.push_back(op);
    }
    return match;
  }

  /// One block per T x T tile of the output (per batch), a thread per
  /// element of the tile. The k loop steps by T: each thread copies one
  /// element of the A tile and one of the B tile into shared memory, and
  /// after a barrier accumulates its element over the tile's k in order,
  /// starting from the output's initial value as linalg's loops would.
  /// Only valid k are multiplied (padding may hold anything: 0 * inf is
  /// NaN). The in-range threads then store their element and run the
  /// consumers at it.
  LogicalResult writeTiledLaunch(OpBuilder &outer, TiledContraction &match) {
    linalg::GenericOp op = match.contraction;
    Location loc = op.getLoc();
    SmallVector<int64_t> extents = op.getStaticLoopRanges();
    int64_t batch = match.batchDims;
    int64_t rows = extents[batch], cols = extents[batch + 1],
            depth = extents[batch + 2];
    int64_t tile = tileSize;
    SmallVector<int64_t> tiles(extents.begin(), extents.begin() + batch);
    tiles.push_back(llvm::divideCeil(rows, tile));
    tiles.push_back(llvm::divideCeil(cols, tile));
    int64_t grid = product(tiles);
    if (grid > std::numeric_limits<int32_t>::max())
      return op.emitOpError("has too many tiles for one grid");
    MLIRContext *context = op.getContext();
    auto workgroup =
        gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
    auto tileType = [&](OpOperand *operand) {
      return MemRefType::get({tile, tile},
                             getElementTypeOrSelf(operand->get().getType()),
                             MemRefLayoutAttrInterface(), workgroup);
    };
    OpBuilder::InsertionGuard guard(outer);
    gpu::LaunchOp launch =
        createLaunch(outer, loc, grid, tile * tile,
                     {tileType(match.lhs), tileType(match.rhs)});
    Value lhsTile = launch.getWorkgroupAttributions()[0];
    Value rhsTile = launch.getWorkgroupAttributions()[1];
    OpBuilder &b = outer;
    LaunchWriter writer(b, loc);
    writer.written = kernelWrites;
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
    SmallVector<Value> tileIvs =
        writer.delinearize(launch.getBlockIds().x, tiles);
    Value thread = launch.getThreadIds().x;
    Value ty = arith::DivUIOp::create(b, loc, thread, index(tile));
    Value tx = arith::RemUIOp::create(b, loc, thread, index(tile));
    Value m = add(arith::MulIOp::create(b, loc, tileIvs[batch], index(tile)),
                  ty);
    Value n = add(
        arith::MulIOp::create(b, loc, tileIvs[batch + 1], index(tile)), tx);
    Value inside = both(below(m, rows), below(n, cols));
    SmallVector<Value> element(tileIvs.begin(), tileIvs.begin() + batch);
    element.append({m, n});
    auto ivsAt = [&](Value row, Value col, Value k) {
      SmallVector<Value> ivs(tileIvs.begin(), tileIvs.begin() + batch);
      ivs.append({row, col, k});
      return ivs;
    };

    // The accumulator starts from the output's initial value.
    OpOperand &init = op.getDpsInitsMutable()[0];
    Type accType = getElementTypeOrSelf(init.get().getType());
    auto initial = scf::IfOp::create(b, loc, TypeRange{accType}, inside,
                                     /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&initial.getThenRegion().front());
      for (linalg::GenericOp fill : match.fills)
        if (failed(writer.elementwise(fill, element)))
          return failure();
      FailureOr<Value> value = writer.load(op, init, ivsAt(m, n, index(0)));
      if (failed(value))
        return failure();
      scf::YieldOp::create(b, loc, *value);
      b.setInsertionPointToStart(&initial.getElseRegion().front());
      Value unused = arith::ConstantOp::create(
          b, loc, cast<TypedAttr>(b.getZeroAttr(accType)));
      scf::YieldOp::create(b, loc, unused);
    }

    auto steps = scf::ForOp::create(b, loc, index(0), index(depth),
                                    index(tile),
                                    ValueRange{initial.getResult(0)});
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(steps.getBody());
      Value k0 = steps.getInductionVar();
      Value acc = steps.getRegionIterArg(0);
      // Copy A[m, k0 + tx] and B[k0 + ty, n] into the tiles at [ty, tx].
      auto copyToTile = [&](OpOperand *operand, Value inRange,
                            ArrayRef<Value> ivs, Value target) {
        auto guarded = scf::IfOp::create(b, loc, inRange, false);
        OpBuilder::InsertionGuard copy(b);
        b.setInsertionPointToStart(&guarded.getThenRegion().front());
        FailureOr<Value> value = writer.load(op, *operand, ivs);
        if (failed(value))
          return failure();
        memref::StoreOp::create(b, loc, *value, target, ValueRange{ty, tx});
        return success();
      };
      Value lhsK = add(k0, tx), rhsK = add(k0, ty);
      if (failed(copyToTile(match.lhs, both(below(m, rows), below(lhsK, depth)),
                            ivsAt(m, index(0), lhsK), lhsTile)) ||
          failed(copyToTile(match.rhs, both(below(rhsK, depth), below(n, cols)),
                            ivsAt(index(0), n, rhsK), rhsTile)))
        return failure();
      gpu::BarrierOp::create(b, loc);
      // The tile's valid k: the last one may be short.
      Value valid = arith::MinSIOp::create(
          b, loc, arith::SubIOp::create(b, loc, index(depth), k0),
          index(tile));
      auto accumulate = scf::IfOp::create(b, loc, TypeRange{accType}, inside,
                                          /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard within(b);
        b.setInsertionPointToStart(&accumulate.getThenRegion().front());
        auto ks = scf::ForOp::create(b, loc, index(0), valid, index(1),
                                     ValueRange{acc});
        b.setInsertionPointToStart(ks.getBody());
        Value kk = ks.getInductionVar();
        Value lhs = memref::LoadOp::create(b, loc, lhsTile, ValueRange{ty, kk});
        Value rhs = memref::LoadOp::create(b, loc, rhsTile, ValueRange{kk, tx});
        SmallVector<Value> inputs(2);
        inputs[match.lhs->getOperandNumber()] = lhs;
        inputs[match.rhs->getOperandNumber()] = rhs;
        FailureOr<SmallVector<Value>> next =
            writer.bodyOf(op, {}, inputs, {ks.getRegionIterArg(0)});
        if (failed(next))
          return failure();
        scf::YieldOp::create(b, loc, *next);
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
    if (failed(writer.store(op, init, steps.getResult(0),
                            ivsAt(m, n, index(0)))))
      return failure();
    for (linalg::GenericOp consumer : match.epilogue)
      if (failed(writer.elementwise(consumer, element)))
        return failure();
    return success();
  }

  /// One thread per element of an op without reductions.
  LogicalResult writeFlatLaunch(OpBuilder &outer, linalg::GenericOp op) {
    SmallVector<int64_t> extents = op.getStaticLoopRanges();
    int64_t total = product(extents);
    int64_t block = std::min<int64_t>(blockSize, (total + 31) / 32 * 32);
    int64_t grid = (total + block - 1) / block;
    if (grid > std::numeric_limits<int32_t>::max())
      return op.emitOpError("has too many elements for one grid");
    OpBuilder::InsertionGuard guard(outer);
    Location loc = op.getLoc();
    gpu::LaunchOp launch = createLaunch(outer, loc, grid, block);
    OpBuilder &b = outer;
    LaunchWriter writer(b, loc);
    writer.written = kernelWrites;
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

  /// One block per row of the first `rows` loops; the ops run in order in
  /// each block.
  LogicalResult writeRowLaunch(OpBuilder &outer, ArrayRef<linalg::GenericOp> ops,
                               int64_t rows) {
    linalg::GenericOp first = ops.front();
    SmallVector<int64_t> rowExtents = first.getStaticLoopRanges();
    rowExtents.resize(rows);
    int64_t grid = product(rowExtents);
    if (grid > std::numeric_limits<int32_t>::max())
      return first.emitOpError("has too many rows for one grid");
    int64_t widest = 1;
    for (linalg::GenericOp op : ops)
      widest = std::max(widest, product(ArrayRef<int64_t>(
                                    op.getStaticLoopRanges()).drop_front(rows)));
    int64_t block = std::min<int64_t>(blockSize, (widest + 31) / 32 * 32);
    OpBuilder::InsertionGuard guard(outer);
    Location loc = first.getLoc();
    gpu::LaunchOp launch = createLaunch(outer, loc, grid, block);
    OpBuilder &b = outer;
    LaunchWriter writer(b, loc);
    writer.written = kernelWrites;
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
      place(parallel, writer.delinearize(loop.getInductionVar(),
                                         extentsOf(parallel)));
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
        place(reduction, writer.delinearize(loop.getInductionVar(),
                                            extentsOf(reduction)));
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
      Operation *combine =
          body.getTerminator()->getOperand(0).getDefiningOp();
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
    place(parallel, writer.delinearize(loop.getInductionVar(),
                                       extentsOf(parallel)));
    SmallVector<Value> current;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      FailureOr<Value> element = writer.load(op, init, ivs);
      if (failed(element))
        return failure();
      current.push_back(*element);
    }
    SmallVector<scf::ForOp> nest;
    for (int64_t d : reduction) {
      auto inner = scf::ForOp::create(b, loc, writer.index(0),
                                      writer.index(extents[d]),
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
};

} // namespace
