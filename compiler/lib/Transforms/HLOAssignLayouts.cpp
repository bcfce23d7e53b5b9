//===- HLOAssignLayouts.cpp - canonical kernel layouts for convolutions ---===//
//
// A convolution's loops read its kernel in whatever order the dimension
// numbers give. The CPU's convolution kernels (cpu-convolution-taps, then
// cpu-vectorize-contractions) vectorize along the output features, which
// is fast when those are the kernel's contiguous dimension (HWIO) and
// gathers one element per lane otherwise (HWOI, which Haiku's transposed
// convolutions keep and every input gradient of an HWIO convolution reads).
// Transposing the small kernel once costs far less than striding through it
// on every output tile, so this pass gives each image-layout convolution an
// HWIO-ordered kernel.
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

namespace {
struct HLOAssignLayoutsPass
    : numlir::impl::HLOAssignLayoutsBase<HLOAssignLayoutsPass> {
  void runOnOperation() override {
    getOperation()->walk(assignKernelLayout);
  }
};
} // namespace
