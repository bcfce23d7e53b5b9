//===- HLOSplitTransposedConvolutions.cpp - one convolution per phase -----===//
//
// A convolution with lhs_dilation s (a transposed convolution, or the input
// gradient of a strided one) reads an input with s - 1 zeros between
// neighbours, so along each such dimension only one kernel tap in s meets
// a real element. Which taps those are depends only on the output position
// modulo s, its phase. For each phase, the output elements are therefore a
// plain convolution of the undilated input with that phase's taps (a
// strided slice of the kernel); the phases' outputs interleave into the
// result. Splitting skips the products with zeros: 3/4 of the work of a
// 2-D stride-2 transposed convolution.
//
// Along one spatial dimension with input size n, kernel size K, padding
// [lo, hi] and output size O (window stride and rhs dilation 1), output
// o = s*q + p meets taps j with o + j - lo = 0 (mod s): j = j0 + s*u with
// j0 = (lo - p) mod s, reading input i = q + u + c, c = (p + j0 - lo) / s.
// Phase p is then a convolution with kernel k[j0::s] (K_p taps), padding
// low -c, and ceil((O - p) / s) outputs, which fixes its high padding.
//
// The phases sum the same nonzero products as the dilated convolution, in
// the same tap order, and never multiply a kernel tap by an inserted zero
// (so an infinite tap does not turn the skipped positions into NaN, as
// XLA's convolutions, which skip them too).
//
//===----------------------------------------------------------------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"
#include "numlir/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace numlir {
#define GEN_PASS_DEF_HLOSPLITTRANSPOSEDCONVOLUTIONS
#include "numlir/Transforms/Passes.h.inc"
} // namespace numlir

using namespace mlir;
using namespace numlir::hlo;

namespace {

/// Beyond this many phases the convolutions are too many, and each too
/// small, to be worth their compile time and dispatch.
constexpr int64_t kMaxPhases = 16;

/// Keeps the phase arithmetic far from int64 overflow.
constexpr int64_t kMaxExtent = int64_t(1) << 32;

/// One phase along one spatial dimension.
struct Phase {
  int64_t firstTap; // j0
  int64_t taps;     // K_p
  int64_t low, high;
  int64_t outputs;  // Q_p
};

/// The phases of spatial dimension `s` of `op`, or a single phase (the
/// dimension unchanged) where it is not dilated.
SmallVector<Phase> phasesOf(ConvolutionOp op, int64_t s) {
  int64_t dilation = op.getLhsDilation()[s];
  int64_t n = op.getLhs().getType().getDimSize(op.getInputSpatialDimensions()[s]);
  int64_t kernel =
      op.getRhs().getType().getDimSize(op.getKernelSpatialDimensions()[s]);
  int64_t out = op.getType().getDimSize(op.getOutputSpatialDimensions()[s]);
  auto [low, high] = op.getPaddingPairs()[s];
  if (dilation == 1)
    return {Phase{0, kernel, low, high, out}};
  SmallVector<Phase> phases;
  for (int64_t p = 0; p < dilation; ++p) {
    Phase phase;
    phase.firstTap = ((low - p) % dilation + dilation) % dilation;
    phase.taps = kernel > phase.firstTap
                     ? llvm::divideCeil(kernel - phase.firstTap, dilation)
                     : 0;
    phase.low = -((p + phase.firstTap - low) / dilation);
    phase.outputs = out > p ? llvm::divideCeil(out - p, dilation) : 0;
    phase.high = phase.outputs - 1 + phase.taps - n - phase.low;
    phases.push_back(phase);
  }
  return phases;
}

/// Whether splitting `op` is exact and worth it: some spatial dimension is
/// dilated, each dilated one has window stride and rhs dilation 1, shapes
/// are static and small enough for the arithmetic, elements are numbers,
/// and the result is not empty.
bool shouldSplit(ConvolutionOp op) {
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType rhsType = op.getRhs().getType();
  RankedTensorType resultType = op.getType();
  if (!lhsType.hasStaticShape() || !rhsType.hasStaticShape() ||
      !resultType.hasStaticShape() || resultType.getNumElements() == 0 ||
      lhsType.getNumElements() == 0 ||
      !resultType.getElementType().isIntOrFloat())
    return false;
  int64_t phases = 1;
  for (int64_t s = 0, e = op.getLhsDilation().size(); s < e; ++s) {
    int64_t dilation = op.getLhsDilation()[s];
    if (dilation == 1)
      continue;
    auto [low, high] = op.getPaddingPairs()[s];
    auto far = [](int64_t v) { return v < -kMaxExtent || v > kMaxExtent; };
    if (op.getWindowStrides()[s] != 1 || op.getRhsDilation()[s] != 1 ||
        dilation > kMaxPhases || far(low) || far(high) ||
        far(lhsType.getDimSize(op.getInputSpatialDimensions()[s])) ||
        far(rhsType.getDimSize(op.getKernelSpatialDimensions()[s])))
      return false;
    phases *= dilation;
    if (phases > kMaxPhases)
      return false;
  }
  return phases > 1;
}

/// A zero of `type`: a scalar constant, broadcast (a splat constant of a
/// large type makes some upstream folds enumerate its elements).
Value zeros(OpBuilder &b, Location loc, RankedTensorType type) {
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  Value zero = ConstantOp::create(
      b, loc, scalarType, cast<ElementsAttr>(b.getZeroAttr(scalarType)));
  if (type.getRank() == 0)
    return zero;
  return BroadcastInDimOp::create(b, loc, type, zero, ArrayRef<int64_t>{});
}

/// The convolution of one phase (`phase[s]` along each spatial dimension),
/// padded with zeros to `outputs[s]` elements along each.
Value convolvePhase(OpBuilder &b, ConvolutionOp op,
                    ArrayRef<const Phase *> phase,
                    ArrayRef<int64_t> outputs) {
  Location loc = op.getLoc();
  RankedTensorType rhsType = op.getRhs().getType();
  RankedTensorType resultType = op.getType();
  Type element = resultType.getElementType();
  int64_t numSpatial = phase.size();

  SmallVector<int64_t> phaseShape(resultType.getShape());
  SmallVector<int64_t> paddedShape(resultType.getShape());
  bool empty = false;
  for (int64_t s = 0; s < numSpatial; ++s) {
    int64_t dim = op.getOutputSpatialDimensions()[s];
    phaseShape[dim] = phase[s]->outputs;
    paddedShape[dim] = outputs[s];
    empty |= phase[s]->outputs == 0 || phase[s]->taps == 0;
  }
  auto paddedType = RankedTensorType::get(paddedShape, element);
  if (empty)
    return zeros(b, loc, paddedType);

  SmallVector<int64_t> start(rhsType.getRank(), 0);
  SmallVector<int64_t> limit(rhsType.getShape());
  SmallVector<int64_t> strides(rhsType.getRank(), 1);
  SmallVector<int64_t> kernelShape(rhsType.getShape());
  SmallVector<int64_t> padding, lhsDilation(numSpatial, 1);
  for (int64_t s = 0; s < numSpatial; ++s) {
    int64_t dim = op.getKernelSpatialDimensions()[s];
    start[dim] = phase[s]->firstTap;
    strides[dim] = op.getLhsDilation()[s];
    kernelShape[dim] = phase[s]->taps;
    padding.append({phase[s]->low, phase[s]->high});
  }
  Value kernel = SliceOp::create(
      b, loc, RankedTensorType::get(kernelShape, element), op.getRhs(),
      start, limit, strides);

  auto convolution = cast<ConvolutionOp>(b.clone(*op));
  convolution.getRhsMutable().assign(kernel);
  convolution.setPadding(padding);
  convolution.setLhsDilation(lhsDilation);
  convolution.getResult().setType(RankedTensorType::get(phaseShape, element));
  if (phaseShape == paddedShape)
    return convolution;

  SmallVector<int64_t> high(resultType.getRank(), 0);
  for (int64_t s = 0; s < numSpatial; ++s) {
    int64_t dim = op.getOutputSpatialDimensions()[s];
    high[dim] = outputs[s] - phase[s]->outputs;
  }
  SmallVector<int64_t> none(resultType.getRank(), 0);
  return PadOp::create(b, loc, paddedType, convolution,
                       zeros(b, loc, RankedTensorType::get({}, element)), none,
                       high, none);
}

/// Replaces `op` by one convolution per phase, interleaved.
void splitPhases(ConvolutionOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType resultType = op.getType();
  Type element = resultType.getElementType();
  int64_t numSpatial = op.getLhsDilation().size();
  ArrayRef<int64_t> outSpatial = op.getOutputSpatialDimensions();

  SmallVector<SmallVector<Phase>> phases;
  SmallVector<int64_t> outputs; // Q: phase 0 has the most outputs
  for (int64_t s = 0; s < numSpatial; ++s) {
    phases.push_back(phasesOf(op, s));
    outputs.push_back(phases.back().front().outputs);
  }

  // The phases in row-major order of their indices (the last spatial
  // dimension's phase varies fastest).
  SmallVector<Value> parts;
  SmallVector<int64_t> index(numSpatial, 0);
  while (true) {
    SmallVector<const Phase *> phase;
    for (int64_t s = 0; s < numSpatial; ++s)
      phase.push_back(&phases[s][index[s]]);
    parts.push_back(convolvePhase(b, op, phase, outputs));
    int64_t s = numSpatial - 1;
    for (; s >= 0; --s) {
      if (++index[s] < static_cast<int64_t>(phases[s].size()))
        break;
      index[s] = 0;
    }
    if (s < 0)
      break;
  }

  // Each dilated output dimension of size Q becomes Q x 1, then x s once
  // the phases along it are concatenated, then Q * s.
  SmallVector<int64_t> shape;
  SmallVector<int64_t> phaseAxis(numSpatial, -1);
  for (int64_t dim = 0; dim < resultType.getRank(); ++dim) {
    const auto *spatial = llvm::find(outSpatial, dim);
    if (spatial == outSpatial.end()) {
      shape.push_back(resultType.getDimSize(dim));
      continue;
    }
    int64_t s = spatial - outSpatial.begin();
    shape.push_back(outputs[s]);
    if (phases[s].size() > 1) {
      phaseAxis[s] = shape.size();
      shape.push_back(1);
    }
  }
  for (Value &part : parts)
    part = ReshapeOp::create(b, loc, RankedTensorType::get(shape, element),
                             part);
  for (int64_t s = numSpatial - 1; s >= 0; --s) {
    int64_t count = phases[s].size();
    if (count == 1)
      continue;
    shape[phaseAxis[s]] = count;
    auto joinedType = RankedTensorType::get(shape, element);
    SmallVector<Value> joined;
    for (size_t first = 0; first < parts.size(); first += count)
      joined.push_back(ConcatenateOp::create(
          b, loc, joinedType,
          ArrayRef<Value>(parts).slice(first, count), phaseAxis[s]));
    parts = std::move(joined);
  }
  assert(parts.size() == 1 && "every phase concatenated");

  SmallVector<int64_t> interleaved(resultType.getShape());
  for (int64_t s = 0; s < numSpatial; ++s)
    interleaved[outSpatial[s]] =
        outputs[s] * static_cast<int64_t>(phases[s].size());
  Value result = ReshapeOp::create(
      b, loc, RankedTensorType::get(interleaved, element), parts.front());
  if (interleaved != ArrayRef(resultType.getShape())) {
    SmallVector<int64_t> start(resultType.getRank(), 0);
    SmallVector<int64_t> strides(resultType.getRank(), 1);
    result = SliceOp::create(b, loc, resultType, result, start,
                             resultType.getShape(), strides);
  }
  op.replaceAllUsesWith(result);
  op.erase();
}

struct HLOSplitTransposedConvolutionsPass
    : numlir::impl::HLOSplitTransposedConvolutionsBase<
          HLOSplitTransposedConvolutionsPass> {
  void runOnOperation() override {
    SmallVector<ConvolutionOp> dilated;
    getOperation()->walk([&](ConvolutionOp op) {
      if (shouldSplit(op))
        dilated.push_back(op);
    });
    for (ConvolutionOp op : dilated)
      splitPhases(op);
  }
};

} // namespace
