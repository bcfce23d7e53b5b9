//===- CPUParallelizeLoops.cpp - split large linalg ops across threads ----===//
//
// Each large linalg op on buffers is split along one parallel loop into
// chunks, one per thread, as an scf.parallel whose iterations write
// disjoint parts of the outputs; convert-scf-to-openmp then runs those
// iterations on the OpenMP runtime's threads. The chunks keep the op's
// inner structure, so contraction tiling and LLVM's vectorizer see the
// same loops as before, on a slice.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "numlir/Bufferization/BufferQueries.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/Support/Threading.h"

#include <algorithm>

namespace numlir {
#define GEN_PASS_DEF_CPUPARALLELIZELOOPS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// The threads chunks are made for when the pass option leaves it open:
/// the cores this process may run on (its affinity mask, as libomp counts).
int64_t hostThreads() {
  return std::max(1u, llvm::hardware_concurrency().compute_thread_count());
}

/// Whether iterations of `loop` write disjoint output elements: the loop
/// is parallel and indexes every output, so two chunks never store to the
/// same element.
bool splitsOutputs(linalg::LinalgOp op, unsigned loop) {
  if (op.getIteratorTypesArray()[loop] != utils::IteratorType::parallel)
    return false;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    bool indexed = llvm::any_of(map.getResults(), [&](AffineExpr e) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      return dim && dim.getPosition() == loop;
    });
    if (!indexed)
      return false;
  }
  return true;
}

/// The loop indexing the contiguous (last) dimension of `op`'s first
/// output, if any.
std::optional<unsigned> contiguousOutputLoop(linalg::LinalgOp op) {
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (map.getNumResults() == 0)
    return std::nullopt;
  if (auto dim = dyn_cast<AffineDimExpr>(map.getResults().back()))
    return dim.getPosition();
  return std::nullopt;
}

/// Lanes a contraction chunk along the output's contiguous dimension must
/// be a multiple of: two 512-bit registers of f32, the widest register tile
/// cpu-vectorize-contractions makes, so that no chunk has a ragged tile.
constexpr int64_t kContiguousChunkQuantum = 32;

/// Whether `op` reduces over an input it reads through a window (an index
/// like `stride * out + tap`): a convolution, which cpu-convolution-taps
/// only turns into contractions when its loop ranges are static.
bool readsThroughWindow(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0)
    return false;
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    return !op.getMatchingIndexingMap(input).isProjectedPermutation();
  });
}

/// Iterations of a contraction or convolution that cost what one iteration
/// of any other op does. Their loops become register-tiled FMAs
/// (cpu-vectorize-contractions: 16 lanes of f32 per cycle at least), where
/// other ops run an iteration per lane at best, and a fork and join of the
/// thread team costs a few microseconds either way. Counted as plain
/// iterations, a 32x64 @ 64x64 product (2 us of work) was split, and a
/// small training step ran 1.7 times slower on the default threads than on
/// one.
constexpr int64_t kContractionIterationsPerUnit = 16;

/// The work of `op`'s loop nest of `iterations` iterations, in units
/// comparable across ops: iterations, or a contraction's iterations over
/// kContractionIterationsPerUnit (rounded up, so that a test asking every op
/// to be split still splits the smallest contraction).
int64_t workUnits(linalg::LinalgOp op, int64_t iterations, bool contraction) {
  if (!contraction && !readsThroughWindow(op))
    return iterations;
  return (iterations + kContractionIterationsPerUnit - 1) / kContractionIterationsPerUnit;
}

/// The loop to split `op` along and the chunk size, or nothing when the
/// op is too small to be worth a fork (its work units below
/// `minIterations`), has dynamic loops, or has no loop
/// that splits its outputs into `chunks` pieces. Contractions and
/// convolutions are only split into equal static chunks: their register
/// tiling needs static shapes, and a dynamic last chunk would fall back to
/// scalar loops, which also sum in another order than the whole op. They
/// are split along the output's contiguous dimension where it divides
/// evenly into whole register tiles: each thread then streams its own part
/// of the operand read along the lanes, where splitting the rows has both
/// threads stream all of it (1024^3 sgemm on 2 cores: 19 ms against 45).
/// Otherwise another free loop is split, never the lanes into ragged tiles.
std::optional<std::pair<unsigned, int64_t>>
planSplit(linalg::LinalgOp op, int64_t chunks, int64_t minIterations) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty() || ShapedType::isDynamicShape(ranges))
    return std::nullopt;
  int64_t iterations = 1;
  for (int64_t r : ranges)
    iterations *= r;
  bool contraction = linalg::isaContractionOpInterface(op) ||
                     isa<linalg::ContractionOpInterface>(op.getOperation());
  if (workUnits(op, iterations, contraction) < minIterations ||
      !numlir::piecesAreIndependent(op))
    return std::nullopt;
  bool equalChunks = contraction || readsThroughWindow(op);
  std::optional<unsigned> lanes;
  if (contraction) {
    lanes = contiguousOutputLoop(op);
    if (lanes && splitsOutputs(op, *lanes) && ranges[*lanes] % chunks == 0 &&
        (ranges[*lanes] / chunks) % kContiguousChunkQuantum == 0)
      return std::make_pair(*lanes, ranges[*lanes] / chunks);
  }
  for (unsigned loop = 0, e = ranges.size(); loop < e; ++loop) {
    if (ranges[loop] < chunks || !splitsOutputs(op, loop))
      continue;
    if (equalChunks && ranges[loop] % chunks != 0)
      continue;
    if (contraction && loop == lanes)
      continue;
    return std::make_pair(loop, (ranges[loop] + chunks - 1) / chunks);
  }
  return std::nullopt;
}

struct CPUParallelizeLoopsPass
    : numlir::impl::CPUParallelizeLoopsBase<CPUParallelizeLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (threads < 0 || minIterations < 1) {
      getOperation()->emitError()
          << "cpu-parallelize-loops needs threads >= 0 and min-iterations >= "
             "1, got threads="
          << static_cast<int64_t>(threads)
          << " min-iterations=" << static_cast<int64_t>(minIterations);
      return signalPassFailure();
    }
    int64_t chunks = threads > 0 ? static_cast<int64_t>(threads) : hostThreads();
    if (chunks < 2)
      return;
    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      // An op already inside a parallel loop runs on one of its threads.
      if (op.hasPureBufferSemantics() &&
          !op->getParentOfType<scf::ParallelOp>())
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates) {
      std::optional<std::pair<unsigned, int64_t>> plan =
          planSplit(op, chunks, minIterations);
      if (!plan)
        continue;
      SmallVector<int64_t> sizes(op.getNumLoops(), 0);
      sizes[plan->first] = plan->second;
      linalg::LinalgTilingOptions options;
      options.setTileSizes(sizes).setLoopType(
          linalg::LinalgTilingLoopType::ParallelLoops);
      rewriter.setInsertionPoint(op);
      if (failed(linalg::tileLinalgOp(rewriter, op, options))) {
        op.emitOpError("could not be split into parallel chunks");
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
