//===- CPUConvolutionTaps.cpp - convolutions as contractions per kernel tap ===//
//
// A convolution's input is read at `stride * out + dilation * tap` along each
// spatial dimension, which no contraction kernel accepts, so convolutions ran
// as scalar loops. For one fixed kernel tap, though, the input read is a
// strided window of the input: the convolution is a sum over taps of
// contractions of (strided input window) x (one tap's kernel slice). This
// pass rewrites each float convolution on buffers into loops over its taps
// around such a contraction, which cpu-vectorize-contractions then
// register-tiles and vectorizes. A large output is first tiled along its
// outermost parallel loop so that one tile's accumulators stay in cache
// across the taps.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace numlir {
#define GEN_PASS_DEF_CPUCONVOLUTIONTAPS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// `coefficient * d_position`, read off `d` or `d * c` (either order).
struct ScaledDim {
  unsigned position;
  int64_t coefficient;
};

std::optional<ScaledDim> matchScaledDim(AffineExpr expr) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return ScaledDim{dim.getPosition(), 1};
  auto mul = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!mul || mul.getKind() != AffineExprKind::Mul)
    return std::nullopt;
  AffineExpr lhs = mul.getLHS(), rhs = mul.getRHS();
  if (isa<AffineConstantExpr>(lhs))
    std::swap(lhs, rhs);
  auto dim = dyn_cast<AffineDimExpr>(lhs);
  auto constant = dyn_cast<AffineConstantExpr>(rhs);
  if (!dim || !constant || constant.getValue() < 1)
    return std::nullopt;
  return ScaledDim{dim.getPosition(), constant.getValue()};
}

/// One input dimension read at `stride * d_out + dilation * d_tap`.
struct WindowDim {
  unsigned out, tap;
  int64_t stride, dilation;
};

/// How the input of a convolution is read: per input dimension either a
/// plain loop or a window, and the tap loops.
struct ConvolutionPlan {
  SmallVector<std::optional<WindowDim>> windows; // per input dimension
  SmallVector<unsigned> taps;                    // loops, ascending
};

/// Whether the body is `out + in0 * in1` in floats (linalg's own test of a
/// contraction body, with float multiply and add).
bool isMultiplyAccumulate(linalg::GenericOp op) {
  return linalg::detail::isContractionBody(
      op.getRegion().front(), [](Operation *multiply, Operation *add) {
        return isa<arith::MulFOp>(multiply) && isa<arith::AddFOp>(add);
      });
}

/// The plan for `op`, or nothing if it is not a float convolution with
/// static loop ranges and output as convert-hlo-to-linalg emits them (the
/// inputs may be subviews of dynamic size, as a parallel chunk's input
/// window is): input 0 read through
/// windows, input 1 (the kernel) and the output through plain loops, each
/// tap loop a reduction that only input 0's window and the kernel read.
std::optional<ConvolutionPlan> planConvolution(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !isMultiplyAccumulate(op))
    return std::nullopt;
  auto outType = cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
  if (!outType.hasStaticShape() ||
      ShapedType::isDynamicShape(op.getStaticLoopRanges()))
    return std::nullopt;
  // An empty loop (no taps, or no input features) leaves nothing to
  // split, and an empty tap would make windows of the wrong extent.
  if (llvm::is_contained(op.getStaticLoopRanges(), 0))
    return std::nullopt;
  Type element = getElementTypeOrSelf(op->getOperand(0).getType());
  if (!(element.isF32() || element.isF64()) ||
      llvm::any_of(op->getOperandTypes(), [&](Type type) {
        return getElementTypeOrSelf(type) != element;
      }))
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!maps[1].isProjectedPermutation() || !maps[2].isProjectedPermutation())
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  ConvolutionPlan plan;
  SmallVector<unsigned> plainInputDims;
  for (AffineExpr expr : maps[0].getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      plainInputDims.push_back(dim.getPosition());
      plan.windows.push_back(std::nullopt);
      continue;
    }
    auto add = dyn_cast<AffineBinaryOpExpr>(expr);
    if (!add || add.getKind() != AffineExprKind::Add)
      return std::nullopt;
    std::optional<ScaledDim> a = matchScaledDim(add.getLHS());
    std::optional<ScaledDim> b = matchScaledDim(add.getRHS());
    if (!a || !b || a->position == b->position)
      return std::nullopt;
    if (iterators[a->position] == utils::IteratorType::reduction)
      std::swap(a, b);
    if (iterators[a->position] != utils::IteratorType::parallel ||
        iterators[b->position] != utils::IteratorType::reduction)
      return std::nullopt;
    plan.windows.push_back(
        WindowDim{a->position, b->position, a->coefficient, b->coefficient});
    plan.taps.push_back(b->position);
  }
  if (plan.taps.empty())
    return std::nullopt;
  // Each tap loop appears in one window and in the kernel, and nowhere else.
  auto occurrences = [](AffineMap map, unsigned loop) {
    return llvm::count_if(map.getResults(), [&](AffineExpr e) {
      return e.isFunctionOfDim(loop);
    });
  };
  for (unsigned tap : plan.taps) {
    if (occurrences(maps[0], tap) != 1 || occurrences(maps[1], tap) != 1 ||
        occurrences(maps[2], tap) != 0 || llvm::is_contained(plainInputDims, tap))
      return std::nullopt;
  }
  llvm::sort(plan.taps);
  if (std::adjacent_find(plan.taps.begin(), plan.taps.end()) != plan.taps.end())
    return std::nullopt;
  return plan;
}

/// `map` over the loops that remain once the tap loops are gone, with the
/// window results replaced by their output loop.
AffineMap withoutTaps(AffineMap map, const ConvolutionPlan &plan,
                      ArrayRef<int64_t> newPosition, bool isInput,
                      MLIRContext *ctx) {
  SmallVector<AffineExpr> results;
  for (auto [index, expr] : llvm::enumerate(map.getResults())) {
    if (isInput && plan.windows[index]) {
      results.push_back(
          getAffineDimExpr(newPosition[plan.windows[index]->out], ctx));
      continue;
    }
    unsigned loop = cast<AffineDimExpr>(expr).getPosition();
    if (newPosition[loop] < 0)
      continue; // a tap: the kernel slice drops this dimension
    results.push_back(getAffineDimExpr(newPosition[loop], ctx));
  }
  int64_t remaining = llvm::count_if(newPosition, [](int64_t p) { return p >= 0; });
  return AffineMap::get(remaining, 0, results, ctx);
}

/// Rewrites `op` as loops over its taps around a contraction of the tap's
/// input window and kernel slice.
void splitTaps(RewriterBase &rewriter, linalg::GenericOp op,
               const ConvolutionPlan &plan) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  rewriter.setInsertionPoint(op);

  // One loop per tap, outermost first, in loop order.
  DenseMap<unsigned, Value> tapIndex;
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (unsigned tap : plan.taps) {
    Value extent = arith::ConstantIndexOp::create(rewriter, loc, bounds[tap]);
    auto loop = scf::ForOp::create(rewriter, loc, zero, extent, one);
    rewriter.setInsertionPointToStart(loop.getBody());
    tapIndex[tap] = loop.getInductionVar();
  }

  // The tap's input window: the output loop's extent at the tap's offset,
  // every `stride` elements.
  Value input = op.getDpsInputOperand(0)->get();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<OpFoldResult> offsets, sizes, strides;
  // Sizes come from the loop ranges, which are static, where the input's
  // own sizes may not be.
  for (auto [index, window] : llvm::enumerate(plan.windows)) {
    if (!window) {
      unsigned loop = cast<AffineDimExpr>(maps[0].getResult(index)).getPosition();
      offsets.push_back(rewriter.getIndexAttr(0));
      sizes.push_back(rewriter.getIndexAttr(bounds[loop]));
      strides.push_back(rewriter.getIndexAttr(1));
      continue;
    }
    Value scale =
        arith::ConstantIndexOp::create(rewriter, loc, window->dilation);
    offsets.push_back(
        arith::MulIOp::create(rewriter, loc, tapIndex[window->tap], scale)
            .getResult());
    sizes.push_back(rewriter.getIndexAttr(bounds[window->out]));
    strides.push_back(rewriter.getIndexAttr(window->stride));
  }
  Value inputWindow =
      memref::SubViewOp::create(rewriter, loc, input, offsets, sizes, strides);

  // The tap's kernel slice, without the tap dimensions.
  Value kernel = op.getDpsInputOperand(1)->get();
  auto kernelType = cast<MemRefType>(kernel.getType());
  SmallVector<OpFoldResult> kOffsets, kSizes, kStrides;
  SmallVector<int64_t> sliceShape;
  for (auto [index, expr] : llvm::enumerate(maps[1].getResults())) {
    unsigned loop = cast<AffineDimExpr>(expr).getPosition();
    kStrides.push_back(rewriter.getIndexAttr(1));
    if (tapIndex.count(loop)) {
      kOffsets.push_back(tapIndex[loop]);
      kSizes.push_back(rewriter.getIndexAttr(1));
      continue;
    }
    kOffsets.push_back(rewriter.getIndexAttr(0));
    kSizes.push_back(rewriter.getIndexAttr(bounds[loop]));
    sliceShape.push_back(bounds[loop]);
  }
  MemRefType sliceType = memref::SubViewOp::inferRankReducedResultType(
      sliceShape, kernelType, kOffsets, kSizes, kStrides);
  Value kernelSlice = memref::SubViewOp::create(
      rewriter, loc, sliceType, kernel, kOffsets, kSizes, kStrides);

  // The contraction over the remaining loops, with the same body.
  SmallVector<int64_t> newPosition(bounds.size(), -1);
  SmallVector<utils::IteratorType> iterators;
  for (auto [loop, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (tapIndex.count(loop))
      continue;
    newPosition[loop] = iterators.size();
    iterators.push_back(iterator);
  }
  SmallVector<AffineMap> newMaps = {
      withoutTaps(maps[0], plan, newPosition, /*isInput=*/true, ctx),
      withoutTaps(maps[1], plan, newPosition, /*isInput=*/false, ctx),
      withoutTaps(maps[2], plan, newPosition, /*isInput=*/false, ctx)};
  auto contraction = linalg::GenericOp::create(
      rewriter, loc, TypeRange{}, ValueRange{inputWindow, kernelSlice},
      ValueRange{op.getDpsInitOperand(0)->get()}, newMaps, iterators);
  IRMapping mapping;
  rewriter.cloneRegionBefore(op.getRegion(), contraction.getRegion(),
                             contraction.getRegion().begin(), mapping);
  rewriter.eraseOp(op);
}

/// The largest divisor of `extent` no larger than `limit` (at least 1).
int64_t largestDivisorAtMost(int64_t extent, int64_t limit) {
  for (int64_t size = std::min(extent, std::max<int64_t>(limit, 1)); size > 1;
       --size)
    if (extent % size == 0)
      return size;
  return 1;
}

/// Tiles `op` along its outermost parallel loop that indexes the output, so
/// that one tile's output holds at most `tileBytes`; returns the tiled op
/// (or `op` when it is small enough already, or cannot be tiled evenly).
linalg::GenericOp tileForCache(RewriterBase &rewriter, linalg::GenericOp op,
                               int64_t tileBytes) {
  auto outType = cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
  int64_t bytes = outType.getNumElements() *
                  (outType.getElementType().getIntOrFloatBitWidth() / 8);
  if (tileBytes <= 0 || bytes <= tileBytes)
    return op;
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  AffineMap outMap = op.getIndexingMapsArray()[2];
  for (AffineExpr expr : outMap.getResults()) {
    unsigned loop = cast<AffineDimExpr>(expr).getPosition();
    if (bounds[loop] < 2)
      continue;
    int64_t perUnit = bytes / bounds[loop];
    int64_t size =
        largestDivisorAtMost(bounds[loop], tileBytes / std::max<int64_t>(perUnit, 1));
    SmallVector<int64_t> sizes(bounds.size(), 0);
    sizes[loop] = size;
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(op.getContext(), sizes));
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled) || tiled->tiledOps.size() != 1)
      return op;
    auto tiledOp = dyn_cast<linalg::GenericOp>(tiled->tiledOps.front());
    if (!tiledOp)
      return op;
    rewriter.eraseOp(op);
    return tiledOp;
  }
  return op;
}

struct CPUConvolutionTapsPass
    : numlir::impl::CPUConvolutionTapsBase<CPUConvolutionTapsPass> {
  using CPUConvolutionTapsBase::CPUConvolutionTapsBase;

  void runOnOperation() override {
    if (tileBytes < 0) {
      getOperation()->emitError("cpu-convolution-taps: tile-bytes must be "
                                "0 or positive, got ")
          << static_cast<int64_t>(tileBytes);
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> convolutions;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (planConvolution(op))
        convolutions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : convolutions) {
      linalg::GenericOp tile = tileForCache(rewriter, op, tileBytes);
      // Tiling keeps the maps; the tile is a convolution on static
      // subviews, or was left whole.
      std::optional<ConvolutionPlan> plan = planConvolution(tile);
      if (plan)
        splitTaps(rewriter, tile, *plan);
    }
  }
};

} // namespace
