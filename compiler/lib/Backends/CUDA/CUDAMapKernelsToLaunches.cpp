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
#include "llvm/ADT/SmallBitVector.h"

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
    /// The contraction's loops by role: in both products' sides (batch),
    /// in the A side only (rows, m), in the B side only (columns, n), and
    /// the reductions (depth, k), each in loop order.
    SmallVector<int64_t> batchDims, rowDims, colDims, depthDims;
    /// The body's `out + f(a, b)`: `a` and `b` (an input's element, or a
    /// value the body gathers, as a convolution's image element), and the
    /// ops that combine them with `out`.
    Value lhs, rhs;
    SmallVector<Operation *> combine;
    SmallVector<linalg::GenericOp> epilogue;
  };

  /// The ops of `op`'s body that `value` is computed from, in order.
  static SetVector<Operation *> sliceOf(linalg::GenericOp op, Value value) {
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
  std::optional<llvm::SmallBitVector> sideDims(linalg::GenericOp op,
                                               Value side) {
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
  static Value tileValue(linalg::GenericOp op, Value side) {
    Value value = side;
    while (Operation *def = value.getDefiningOp()) {
      if (def->getBlock() != &op.getRegion().front() ||
          def->getNumOperands() != 1 || def->getNumResults() != 1 ||
          !isa<arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp, arith::ExtUIOp,
               arith::TruncIOp, arith::SIToFPOp, arith::UIToFPOp,
               arith::FPToSIOp, arith::FPToUIOp>(def))
        return side;
      value = def->getOperand(0);
    }
    auto arg = dyn_cast<BlockArgument>(value);
    return arg && arg.getArgNumber() < op.getNumDpsInputs() ? value : side;
  }

  /// `op` as a contraction `out + f(a, b)` on integers or floats where `a`
  /// does not depend on the loops `b` reads beside the batch and the
  /// reductions, and the output is every parallel loop, or nothing.
  std::optional<TiledContraction> matchContraction(linalg::GenericOp op) {
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
      dims[side] = sideDims(op, multiply->getOperand(side));
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

  /// How many of the first `dims` dimensions of `value` the views between
  /// it and its buffer leave in place.
  static int64_t viewsKeepLeadingDims(Value value, int64_t dims) {
    for (; Operation *def = value.getDefiningOp(); value = def->getOperand(0)) {
      if (!isView(def))
        break;
      dims = std::min(dims, viewKeepsLeadingDims(def, dims));
    }
    return dims;
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
    Value output = match->contraction.getDpsInitsMutable()[0].get();
    ArrayRef<int64_t> extents = cast<MemRefType>(output.getType()).getShape();
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

  /// The value of `side` (a value of `op`'s body) at loop indices `ivs`:
  /// the inputs it reads loaded there, the ops it needs cloned.
  FailureOr<Value> sideAt(LaunchWriter &writer, OpBuilder &b,
                          linalg::GenericOp op, Value side,
                          ArrayRef<Value> ivs) {
    Block &body = op.getRegion().front();
    IRMapping local;
    auto bring = [&](Value v) -> LogicalResult {
      if (local.contains(v))
        return success();
      if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == &body) {
        FailureOr<Value> element = writer.load(
            op, *op.getDpsInputOperand(arg.getArgNumber()), ivs);
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

  /// One block per T x T tile of the output (per batch), a thread per
  /// element of the tile; rows, columns and depth are the row, column and
  /// reduction loops linearized in loop order. The k loop steps by T: each
  /// thread copies one element of the A tile and one of the B tile into
  /// shared memory (for a convolution, the image element it gathers), and
  /// after a barrier accumulates its element over the tile's k in order,
  /// starting from the output's initial value as linalg's loops would.
  /// Only valid k are multiplied (stale entries may hold anything: 0 * inf
  /// is NaN). The in-range threads then store their element and run the
  /// consumers at it.
  LogicalResult writeTiledLaunch(OpBuilder &outer, TiledContraction &match) {
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
    int64_t tile = tileSize;
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
    gpu::LaunchOp launch = createLaunch(
        outer, loc, grid, tile * tile, {tileType(match.lhs), tileType(match.rhs)});
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
    int64_t batch = int64_t(match.batchDims.size());
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
    // The loop indices at linear row `row`, column `col` and depth `k`.
    auto ivsAt = [&](Value row, Value col, Value k) {
      SmallVector<Value> ivs(extents.size(), index(0));
      auto place = [&](ArrayRef<int64_t> dims, Value linear) {
        for (auto [d, v] :
             llvm::zip_equal(dims, writer.delinearize(linear, extentsOf(dims))))
          ivs[d] = v;
      };
      for (auto [d, v] : llvm::zip_equal(match.batchDims,
                                         ArrayRef(tileIvs).take_front(batch)))
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

    auto steps = scf::ForOp::create(b, loc, index(0), index(depth),
                                    index(tile),
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
        FailureOr<Value> value =
            sideAt(writer, b, op, side, ivsAt(row, col, k));
        if (failed(value))
          return failure();
        memref::StoreOp::create(b, loc, *value, target, ValueRange{ty, tx});
        return success();
      };
      Value lhsK = add(k0, tx), rhsK = add(k0, ty);
      if (failed(copyToTile(match.lhs,
                            both(below(m, rows), below(lhsK, depth)), m,
                            index(0), lhsK, lhsTile)) ||
          failed(copyToTile(match.rhs,
                            both(below(rhsK, depth), below(n, cols)),
                            index(0), n, rhsK, rhsTile)))
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
        Block &body = op.getRegion().front();
        IRMapping local;
        local.map(match.lhs, memref::LoadOp::create(b, loc, lhsTile,
                                                    ValueRange{ty, kk}));
        local.map(match.rhs, memref::LoadOp::create(b, loc, rhsTile,
                                                    ValueRange{kk, tx}));
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
