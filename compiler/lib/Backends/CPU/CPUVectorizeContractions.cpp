//===- CPUVectorizeContractions.cpp - register-tiled FMA contractions -----===//
//
// Tiles each floating-point linalg contraction on buffers for cache (a
// block of the reduction and of the output's contiguous dimension) and
// then for registers (rows x vector lanes, one reduction step at a time),
// peels the tiles that do not divide the shape, vectorizes every tile to
// vector.contract (a remainder tile's lanes rounded up to a power of two,
// its transfers masked), keeps the accumulator in registers across the
// reduction loop, and lowers the contraction to broadcast + FMA.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "numlir/Bufferization/BufferQueries.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/TargetParser/Host.h"

namespace numlir {
#define GEN_PASS_DEF_CPUVECTORIZECONTRACTIONS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// Marks the tiles of one level through the canonicalization that makes
/// their shapes static.
constexpr llvm::StringLiteral kTileMarker = "numlir.contraction_tile";
constexpr llvm::StringLiteral kVectorMarker = "numlir.register_tile";

/// The register tile of one contraction: a size per loop and the loop
/// order (batch and other free loops, then the row loop, the vector-lane
/// loop and the reduction loops innermost).
struct RegisterTile {
  SmallVector<int64_t> sizes;
  SmallVector<int64_t> order;
  unsigned rowLoop, laneLoop;
  /// Whether the lanes walk a free dimension of input 1 (the rhs of the
  /// outer products); where they walk input 0's, the inputs are swapped.
  bool laneIsN;
};

/// Whether the host CPU has AVX-512 (32 registers of 512 bits).
bool hostHasAVX512() {
  static const bool avx512 =
      llvm::sys::getHostCPUFeatures().lookup("avx512f");
  return avx512;
}

/// Lanes of one `registerBits` vector register for `type`, or 0 where
/// vector FMA is not worth it (integers, half precision).
int64_t lanesFor(Type type, int64_t registerBits) {
  if (type.isF32() || type.isF64())
    return registerBits / type.getIntOrFloatBitWidth();
  return 0;
}

/// Whether `op`'s body is exactly `out + in0 * in1` (either order of each):
/// it is restated as linalg.contract, which keeps the maps and not the body.
/// Upstream's contraction match also accepts unary ops on the operands
/// (`out + (-a) * b` from a negation fused into a generic), which that
/// restatement would drop.
bool hasPlainMultiplyAddBody(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (body->getOperations().size() != 3)
    return false;
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp();
  if (!add || !isa<arith::AddFOp>(add))
    return false;
  Value out = body->getArgument(2);
  Value product = add->getOperand(0) == out ? add->getOperand(1)
                                            : add->getOperand(0);
  auto multiply = product.getDefiningOp<arith::MulFOp>();
  if (!multiply || !llvm::is_contained(add->getOperands(), out))
    return false;
  Value a = body->getArgument(0), b = body->getArgument(1);
  return (multiply.getLhs() == a && multiply.getRhs() == b) ||
         (multiply.getLhs() == b && multiply.getRhs() == a);
}

/// The register tile for `op`, or nothing when the op is better left to
/// the scalar loops: not a contraction, dynamic shapes, an element type
/// without vector FMA, or an output whose contiguous dimension is not a
/// free (row or column) dimension.
std::optional<RegisterTile> planRegisterTile(linalg::LinalgOp op,
                                             int64_t rows,
                                             int64_t registerBits) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumDpsInputs() != 2 || !op.hasOnlyProjectedPermutations() ||
      !linalg::isaContractionOpInterface(op) || !hasPlainMultiplyAddBody(op))
    return std::nullopt;
  Type elementType = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
  int64_t lanes = lanesFor(elementType, registerBits);
  if (lanes == 0 || llvm::any_of(op->getOperandTypes(), [&](Type t) {
        return getElementTypeOrSelf(t) != elementType;
      }))
    return std::nullopt;
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  // An empty loop leaves nothing to tile (a tile size of 0 would mean "do
  // not tile" and mismatch the plan).
  if (ShapedType::isDynamicShape(bounds) || llvm::is_contained(bounds, 0))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() || dims->k.empty())
    return std::nullopt;

  // The lane loop walks the output's contiguous dimension; the row loop is
  // the innermost free loop of the other operand.
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outMap.getNumResults() == 0)
    return std::nullopt;
  auto last = dyn_cast<AffineDimExpr>(outMap.getResults().back());
  if (!last)
    return std::nullopt;
  unsigned laneLoop = last.getPosition();
  bool laneIsN = llvm::is_contained(dims->n, laneLoop);
  if (!laneIsN && !llvm::is_contained(dims->m, laneLoop))
    return std::nullopt;
  ArrayRef<unsigned> rowSet = laneIsN ? dims->m : dims->n;
  std::optional<unsigned> rowLoop;
  for (AffineExpr expr : outMap.getResults())
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      if (llvm::is_contained(rowSet, dim.getPosition()))
        rowLoop = dim.getPosition();
  if (!rowLoop)
    return std::nullopt;

  RegisterTile tile;
  tile.rowLoop = *rowLoop;
  tile.laneLoop = laneLoop;
  tile.laneIsN = laneIsN;
  tile.sizes.assign(bounds.size(), 1);
  tile.sizes[*rowLoop] = std::min(rows, bounds[*rowLoop]);
  tile.sizes[laneLoop] = std::min(2 * lanes, bounds[laneLoop]);
  for (unsigned loop = 0; loop < bounds.size(); ++loop)
    if (loop != *rowLoop && loop != laneLoop &&
        !llvm::is_contained(dims->k, loop))
      tile.order.push_back(loop);
  tile.order.push_back(*rowLoop);
  tile.order.push_back(laneLoop);
  llvm::append_range(tile.order, dims->k);
  return tile;
}

/// The canonicalization patterns of the dialects that tiling and peeling
/// produce, which fold remainder loops and their tile sizes into static
/// shapes. (Patterns that have not converged within the rewrite driver's
/// iteration limit leave valid IR: here and below that is not an error.)
FrozenRewritePatternSet tileCanonicalizations(MLIRContext *ctx) {
  SmallVector<Dialect *> dialects = {
      ctx->getOrLoadDialect<affine::AffineDialect>(),
      ctx->getOrLoadDialect<arith::ArithDialect>(),
      ctx->getOrLoadDialect<linalg::LinalgDialect>(),
      ctx->getOrLoadDialect<memref::MemRefDialect>(),
      ctx->getOrLoadDialect<scf::SCFDialect>()};
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : dialects)
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    if (llvm::is_contained(dialects, &op.getDialect()))
      op.getCanonicalizationPatterns(patterns, ctx);
  return FrozenRewritePatternSet(std::move(patterns));
}


/// Tiles `op` (buffer semantics) by `sizes` (0: not tiled) with the loops
/// in `order`, marks the tiled op, and peels every tile loop whose step
/// does not divide its range (inner loops first, so an outer remainder
/// copies peeled inner loops). Returns whether `op` has been tiled.
bool tileAndPeel(RewriterBase &rewriter, linalg::LinalgOp op,
                 ArrayRef<int64_t> sizes, ArrayRef<int64_t> order,
                 StringRef marker) {
  MLIRContext *ctx = op.getContext();
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(ctx, sizes));
  options.setInterchange(order);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return false;
  for (Operation *tiledOp : tiled->tiledOps)
    tiledOp->setAttr(marker, UnitAttr::get(ctx));
  rewriter.eraseOp(op);
  for (LoopLikeOpInterface loop : llvm::reverse(tiled->loops)) {
    auto forOp = dyn_cast<scf::ForOp>(loop.getOperation());
    if (!forOp)
      continue;
    scf::ForOp remainder;
    rewriter.setInsertionPoint(forOp);
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, forOp, remainder);
  }
  return true;
}

/// Reads and writes a vector transfer of a unit-stride, rank-preserving
/// `memref.subview` through the subview's source, so that the transfers of
/// one accumulator tile have equal SSA operands and can be hoisted.
///
/// This replaces memref's alias folding, whose transfer patterns also fold
/// through `memref.expand_shape`/`collapse_shape` and, in MLIR 22, keep a
/// minor-identity permutation map of the new rank: a `vector<3x1x1xf32>` read
/// of `memref<1x3x1x4xf32>` (an expanded `memref<1x3x4xf32>`) became a read of
/// three rows from the unit dimension 0, out of bounds, marked in bounds.
template <typename TransferOp>
struct FoldTransferOfSubview : OpRewritePattern<TransferOp> {
  using OpRewritePattern<TransferOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(TransferOp op,
                                PatternRewriter &rewriter) const override {
    auto subview = op.getBase().template getDefiningOp<memref::SubViewOp>();
    if (!subview)
      return rewriter.notifyMatchFailure(op, "not a transfer of a subview");
    if (subview.getSourceType().getRank() != subview.getType().getRank() ||
        llvm::any_of(subview.getStaticStrides(),
                     [](int64_t stride) { return stride != 1; }))
      return rewriter.notifyMatchFailure(
          op, "rank-reducing or strided subview changes the access pattern");
    Location loc = op.getLoc();
    AffineExpr offset, index;
    bindDims(op.getContext(), offset, index);
    SmallVector<Value> indices;
    for (auto [subviewOffset, transferIndex] :
         llvm::zip_equal(subview.getMixedOffsets(), op.getIndices())) {
      OpFoldResult sum = affine::makeComposedFoldedAffineApply(
          rewriter, loc, offset + index, {subviewOffset, transferIndex});
      indices.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, sum));
    }
    rewriter.modifyOpInPlace(op, [&] {
      op.getBaseMutable().assign(subview.getSource());
      op.getIndicesMutable().assign(indices);
    });
    return success();
  }
};

/// The vector sizes to vectorize register tile `op` at: none (its own
/// static sizes) unless the lane extent is not a power of two, which is
/// then rounded up to one. LLVM legalizes a vector of 27 floats piece by
/// piece in every load, FMA and store: the remainder tiles of a 251x251
/// matmul took nine tenths of its object code's compile time, and ran so
/// slowly that the whole product took five times as long. Rounded up, the
/// tile's transfers are masked (no lane past the tile is read or written)
/// and its arithmetic is whole registers.
SmallVector<int64_t> paddedVectorSizes(linalg::LinalgOp op, int64_t rows,
                                       int64_t registerBits) {
  std::optional<RegisterTile> tile = planRegisterTile(op, rows, registerBits);
  if (!tile)
    return {};
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  int64_t lanes = sizes[tile->laneLoop];
  if (llvm::isPowerOf2_64(lanes))
    return {};
  sizes[tile->laneLoop] = llvm::PowerOf2Ceil(lanes);
  return sizes;
}

/// Unmasks the vector contractions of padded tiles. Only their lanes are
/// masked (the rows and the reduction step are whole), and the lanes past
/// the tile read padding and are never stored, so the contraction can run
/// on whole registers; the masked transfers around it keep memory exact.
void unmaskContractions(RewriterBase &rewriter, Operation *root) {
  SmallVector<vector::MaskOp> masks;
  root->walk([&](vector::MaskOp mask) {
    if (isa_and_nonnull<vector::ContractionOp>(mask.getMaskableOp()))
      masks.push_back(mask);
  });
  for (vector::MaskOp mask : masks) {
    rewriter.setInsertionPoint(mask);
    Operation *contraction = rewriter.clone(*mask.getMaskableOp());
    rewriter.replaceOp(mask, contraction->getResults());
  }
}

/// Keeps a register tile's accumulator in registers across its reduction
/// loop: the `vector.transfer_read` of the accumulator before the loop and
/// its `vector.transfer_write` after it, the value carried as an iter_arg.
///
/// `linalg::hoistRedundantVectorTransfers` does this only when the output
/// buffer has no view users anywhere in the function, so it gave up as soon
/// as another op took a subview of the same output (the chunks of
/// `cpu-parallelize-loops`, a later slice), and every FMA step then stored
/// and reloaded the whole tile. Here a pair is hoisted when the loop runs at
/// least once, the pair's operands (a padded tile's equal masks too) are
/// loop-invariant, nothing else in the loop writes memory, and every other
/// read in the loop reads an allocation other than the accumulator's (the
/// contraction's inputs, which a contraction on buffers never aliases with
/// its output).
bool hoistAccumulatorOf(scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips || trips->isZero())
    return false;
  Block *body = loop.getBody();
  for (auto read : body->getOps<vector::TransferReadOp>()) {
    if (!isa<MemRefType>(read.getShapedType()) ||
        llvm::any_of(read->getOperands(), [&](Value operand) {
          return !loop.isDefinedOutsideOfLoop(operand);
        }))
      continue;
    Value accumulatorRoot = numlir::rootAllocation(read.getBase());
    if (!accumulatorRoot)
      continue;
    vector::TransferWriteOp write;
    bool safe = true;
    loop.getBody()->walk([&](Operation *op) {
      if (op == read.getOperation() || !safe)
        return;
      if (auto candidate = dyn_cast<vector::TransferWriteOp>(op)) {
        if (!write && candidate->getBlock() == body &&
            candidate.getBase() == read.getBase() &&
            candidate.getIndices() == read.getIndices() &&
            candidate.getVectorType() == read.getVectorType() &&
            candidate.getPermutationMap() == read.getPermutationMap() &&
            candidate.getInBounds() == read.getInBounds() &&
            candidate.getMask() == read.getMask()) {
          write = candidate;
          return;
        }
        safe = false;
        return;
      }
      if (isMemoryEffectFree(op))
        return;
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (!effects) {
        safe = false;
        return;
      }
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance &effect : instances) {
        Value accessed = effect.getValue();
        if (!isa<MemoryEffects::Read>(effect.getEffect()) || !accessed ||
            !isa<BaseMemRefType>(accessed.getType())) {
          safe = false;
          return;
        }
        Value root = numlir::rootAllocation(accessed);
        if (!root || root == accumulatorRoot) {
          safe = false;
          return;
        }
      }
    });
    if (!safe || !write || !read->isBeforeInBlock(write))
      continue;
    IRRewriter rewriter(loop.getContext());
    loop.moveOutOfLoop(read);
    write->moveAfter(loop);
    NewYieldValuesFn yield = [&](OpBuilder &, Location,
                                 ArrayRef<BlockArgument>) {
      return SmallVector<Value>{write.getVector()};
    };
    FailureOr<LoopLikeOpInterface> hoisted = loop.replaceWithAdditionalYields(
        rewriter, read.getVector(), /*replaceInitOperandUsesInLoop=*/true,
        yield);
    if (failed(hoisted))
      return false;
    write.getValueToStoreMutable().assign(
        hoisted->getOperation()->getResults().back());
    return true;
  }
  return false;
}

/// `hoistAccumulatorOf` on every loop until none changes (each hoist
/// replaces its loop, which ends the walk).
void hoistAccumulators(Operation *root) {
  bool changed = true;
  while (changed) {
    changed = false;
    root->walk([&](scf::ForOp loop) {
      if (!hoistAccumulatorOf(loop))
        return WalkResult::advance();
      changed = true;
      return WalkResult::interrupt();
    });
  }
}

struct CPUVectorizeContractionsPass
    : numlir::impl::CPUVectorizeContractionsBase<CPUVectorizeContractionsPass> {
  using CPUVectorizeContractionsBase::CPUVectorizeContractionsBase;

  void runOnOperation() override {
    Operation *root = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);

    // Host defaults: a tile of rows x 2 registers of accumulators, plus two
    // registers of the rhs row and a broadcast, fits the 32 registers of
    // AVX-512 with 12 rows and the 16 of AVX2 with 6.
    int64_t bits = registerBits ? registerBits : (hostHasAVX512() ? 512 : 256);
    int64_t rows = this->rows ? this->rows : (bits >= 512 ? 12 : 6);
    SmallVector<std::pair<linalg::LinalgOp, RegisterTile>> plans;
    root->walk([&](linalg::LinalgOp op) {
      if (std::optional<RegisterTile> tile = planRegisterTile(op, rows, bits))
        plans.emplace_back(op, std::move(*tile));
    });
    if (plans.empty())
      return;
    FrozenRewritePatternSet canonicalizations = tileCanonicalizations(ctx);

    // Restate generic contractions as linalg.contract (same loops and
    // maps): the vectorizer turns named contractions, not generics, into
    // vector.contract. The outer-product lowering vectorizes along the rhs
    // (input 1) and broadcasts the lhs; where the output's contiguous
    // dimension belongs to input 0 (a kernel gradient written as HWOI), it
    // would make vectors of the rows and gather the accumulator's columns
    // element by element (12x slower), so the inputs are swapped first.
    // Multiplication commutes exactly, so the results keep their bits.
    for (auto &[op, tile] : plans) {
      if (!isa<linalg::GenericOp>(op.getOperation()) && tile.laneIsN)
        continue;
      SmallVector<Value> inputs = op.getDpsInputs();
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      if (!tile.laneIsN) {
        std::swap(inputs[0], inputs[1]);
        std::swap(maps[0], maps[1]);
      }
      rewriter.setInsertionPoint(op);
      linalg::LinalgOp contract = linalg::ContractOp::create(
          rewriter, op.getLoc(), TypeRange{}, inputs, op.getDpsInits(),
          rewriter.getAffineMapArrayAttr(maps));
      rewriter.eraseOp(op);
      op = contract;
    }

    // Cache tiles: a block of the reduction and of the lane dimension, so
    // the rhs block stays in cache while the register tiles sweep the rows.
    for (auto &[op, tile] : plans) {
      SmallVector<int64_t> bounds = op.getStaticLoopRanges();
      SmallVector<int64_t> sizes(bounds.size(), 0);
      unsigned kLoop = tile.order.back();
      if (cacheLanes > 0 && bounds[tile.laneLoop] > cacheLanes)
        sizes[tile.laneLoop] = cacheLanes;
      if (cacheReduction > 0 && bounds[kLoop] > cacheReduction)
        sizes[kLoop] = cacheReduction;
      SmallVector<int64_t> order = {tile.laneLoop, kLoop};
      for (unsigned loop = 0; loop < bounds.size(); ++loop)
        if (loop != tile.laneLoop && loop != kLoop)
          order.push_back(loop);
      if (llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
        op->setAttr(kTileMarker, UnitAttr::get(ctx));
      else
        tileAndPeel(rewriter, op, sizes, order, kTileMarker);
    }
    (void)applyPatternsGreedily(root, canonicalizations);

    // Register tiles of the (now static) cache tiles.
    SmallVector<linalg::LinalgOp> cacheTiles;
    root->walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kTileMarker))
        cacheTiles.push_back(op);
    });
    for (linalg::LinalgOp op : cacheTiles) {
      op->removeAttr(kTileMarker);
      if (std::optional<RegisterTile> tile = planRegisterTile(op, rows, bits))
        tileAndPeel(rewriter, op, tile->sizes, tile->order, kVectorMarker);
    }
    // Fold the remainder loops' single iterations and tile sizes into
    // static shapes.
    (void)applyPatternsGreedily(root, canonicalizations);

    SmallVector<linalg::LinalgOp> tiles;
    root->walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kVectorMarker))
        tiles.push_back(op);
    });
    for (linalg::LinalgOp op : tiles) {
      op->removeAttr(kVectorMarker);
      if (op.hasDynamicShape())
        continue;
      rewriter.setInsertionPoint(op);
      auto vectorizeAt = [&](ArrayRef<int64_t> sizes) {
        // One flag per size: the vectorizer reads as many as there are sizes.
        SmallVector<bool> scalable(sizes.size(), false);
        return linalg::vectorize(rewriter, op, sizes, scalable,
                                 /*vectorizeNDExtract=*/false,
                                 /*flatten1DDepthwiseConv=*/false,
                                 /*assumeDynamicDimsMatchVecSizes=*/false,
                                 /*createNamedContraction=*/true);
      };
      SmallVector<int64_t> padded = paddedVectorSizes(op, rows, bits);
      FailureOr<linalg::VectorizationResult> vectorized = vectorizeAt(padded);
      if (failed(vectorized) && !padded.empty())
        vectorized = vectorizeAt({});
      if (succeeded(vectorized))
        rewriter.replaceOp(op, vectorized->replacements);
    }

    // Padded tiles: whole-register contractions between masked transfers.
    unmaskContractions(rewriter, root);
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
      (void)applyPatternsGreedily(root, std::move(patterns));
    }

    // Drop the unit batch dimensions of the vector contractions.
    {
      RewritePatternSet patterns(ctx);
      vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
      (void)applyPatternsGreedily(root, std::move(patterns));
    }

    // Keep each accumulator tile in registers across the reduction loop.
    // (Hoisting only moves transfers of buffers that are not views, at
    // the same SSA indices: fold the tiles' subviews into the transfers and
    // merge the equal index computations first. Reshape views are left in
    // place: see FoldTransferOfSubview.)
    {
      RewritePatternSet patterns(ctx);
      patterns.add<FoldTransferOfSubview<vector::TransferReadOp>,
                   FoldTransferOfSubview<vector::TransferWriteOp>>(ctx);
      (void)applyPatternsGreedily(root, std::move(patterns));
    }
    {
      DominanceInfo dominance(root);
      eliminateCommonSubExpressions(rewriter, dominance, root);
    }
    linalg::hoistRedundantVectorTransfers(root);
    hoistAccumulators(root);
    if (!lowerVectors)
      return;

    RewritePatternSet patterns(ctx);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::EltWise);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerParallel);
    (void)applyPatternsGreedily(root, std::move(patterns));
  }
};

} // namespace
