//===- HLOAssignLayouts.cpp - canonical operand layouts for the CPU -------===//
//
// A convolution's loops read its kernel in whatever order the dimension
// numbers give. The CPU's convolution kernels (cpu-convolution-taps, then
// cpu-vectorize-contractions) vectorize along the output features, which
// is fast when those are the kernel's contiguous dimension (HWIO) and
// gathers one element per lane otherwise (HWOI, which Haiku's transposed
// convolutions keep and every input gradient of an HWIO convolution reads).
// Transposing the small kernel once costs far less than striding through it
// on every output tile, so this pass gives each image-layout convolution an
// HWIO-ordered kernel, and for the same reason each "NT" dot_general an rhs
// whose free dimensions are contiguous.
//
//===----------------------------------------------------------------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"
#include "numlir/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace numlir {
#define GEN_PASS_DEF_HLOASSIGNLAYOUTS
#include "numlir/Transforms/Passes.h.inc"
} // namespace numlir

using namespace mlir;
using namespace numlir::hlo;

/// Whether `batch`, `spatial` and `feature` are 0, 1..n and n+1: the
/// batch-major, feature-minor (NHWC) order.
static bool isImageLayout(int64_t batch, ArrayRef<int64_t> spatial,
                          int64_t feature) {
  if (batch != 0 || feature != static_cast<int64_t>(spatial.size()) + 1)
    return false;
  for (auto [index, dim] : llvm::enumerate(spatial))
    if (dim != static_cast<int64_t>(index) + 1)
      return false;
  return true;
}

/// The permutation that orders `op`'s kernel as spatial dimensions, input
/// features, output features (HWIO).
static SmallVector<int64_t> kernelToHWIO(ConvolutionOp op) {
  SmallVector<int64_t> permutation(op.getKernelSpatialDimensions());
  permutation.push_back(op.getKernelInputFeatureDimension());
  permutation.push_back(op.getKernelOutputFeatureDimension());
  return permutation;
}

/// Gives `op` an HWIO kernel through an hlo.transpose, where its input and
/// output are NHWC and its kernel is not HWIO yet. Other convolutions (a
/// kernel gradient reads its input with batch and features exchanged) keep
/// their layouts: their loops are already what cpu-convolution-taps wants.
static void assignKernelLayout(ConvolutionOp op) {
  if (!isImageLayout(op.getInputBatchDimension(), op.getInputSpatialDimensions(),
                     op.getInputFeatureDimension()) ||
      !isImageLayout(op.getOutputBatchDimension(),
                     op.getOutputSpatialDimensions(),
                     op.getOutputFeatureDimension()))
    return;
  SmallVector<int64_t> permutation = kernelToHWIO(op);
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size())))
    return;
  auto kernelType = cast<RankedTensorType>(op.getRhs().getType());
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(kernelType.getDimSize(dim));
  OpBuilder builder(op);
  Value hwio = TransposeOp::create(builder, op.getLoc(),
                                   kernelType.clone(shape), op.getRhs(),
                                   permutation);
  op.getRhsMutable().assign(hwio);
  int64_t spatial = op.getKernelSpatialDimensions().size();
  op.setKernelSpatialDimensions(llvm::to_vector(llvm::seq<int64_t>(0, spatial)));
  op.setKernelInputFeatureDimension(spatial);
  op.setKernelOutputFeatureDimension(spatial + 1);
}

/// The smallest free extent (rows of the lhs, columns of the result) for
/// which reordering a dot's rhs pays: below it the product is a few dot
/// products of contiguous rows, and the transpose would cost as much.
constexpr int64_t kMinFreeElementsForRhsTranspose = 16;

static int64_t freeElements(RankedTensorType type, ArrayRef<int64_t> batch,
                            ArrayRef<int64_t> contracting) {
  int64_t elements = 1;
  for (int64_t dim = 0, rank = type.getRank(); dim < rank; ++dim)
    if (!llvm::is_contained(batch, dim) && !llvm::is_contained(contracting, dim))
      elements *= type.getDimSize(dim);
  return elements;
}

/// Gives a float dot_general's rhs its contracting dimensions before its
/// free ones ([batch..., K..., N...]) where its last dimension is a
/// contracting one: an "NT" product such as a layer's input gradient
/// `g @ w^T`. The CPU's register tiles load the rhs along N as vectors,
/// which in [N, K] order gathers one element per K-long row; a transpose
/// of the rhs, O(K N) against the product's O(M K N), makes them
/// contiguous. The rhs free dimensions keep their order, so the result does
/// not change. Batch dimensions must lead the rhs, as they do for every
/// dot that numlir's frontend emits.
static void assignDotLayout(DotGeneralOp op) {
  auto lhsType = dyn_cast<RankedTensorType>(op.getLhs().getType());
  auto rhsType = dyn_cast<RankedTensorType>(op.getRhs().getType());
  if (!lhsType || !rhsType || !lhsType.hasStaticShape() || !rhsType.hasStaticShape() ||
      !isa<FloatType>(rhsType.getElementType()))
    return;
  ArrayRef<int64_t> batch = op.getRhsBatchingDimensions();
  ArrayRef<int64_t> contracting = op.getRhsContractingDimensions();
  int64_t rank = rhsType.getRank(), batches = batch.size();
  if (contracting.empty() || !llvm::is_contained(contracting, rank - 1) ||
      !llvm::equal(batch, llvm::seq<int64_t>(0, batches)))
    return;
  if (freeElements(lhsType, op.getLhsBatchingDimensions(), op.getLhsContractingDimensions()) <
          kMinFreeElementsForRhsTranspose ||
      freeElements(rhsType, batch, contracting) < kMinFreeElementsForRhsTranspose)
    return;
  SmallVector<int64_t> permutation(batch);
  llvm::append_range(permutation, contracting);
  for (int64_t dim = batches; dim < rank; ++dim)
    if (!llvm::is_contained(contracting, dim))
      permutation.push_back(dim);
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(rhsType.getDimSize(dim));
  OpBuilder builder(op);
  Value reordered = TransposeOp::create(builder, op.getLoc(), rhsType.clone(shape),
                                        op.getRhs(), permutation);
  op.getRhsMutable().assign(reordered);
  op.setRhsContractingDimensions(llvm::to_vector(
      llvm::seq<int64_t>(batches, batches + static_cast<int64_t>(contracting.size()))));
}

namespace {
struct HLOAssignLayoutsPass
    : numlir::impl::HLOAssignLayoutsBase<HLOAssignLayoutsPass> {
  void runOnOperation() override {
    getOperation()->walk(assignKernelLayout);
    getOperation()->walk(assignDotLayout);
  }
};
} // namespace
