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
// This file chooses a mapping per kernel; RowLaunches (rows, or a thread per
// element) and TiledContractions write the launches, with LaunchWriter for
// the scalar code inside and RowAnalysis for which loops are rows.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CUDA/Passes.h"

#include "LaunchWriter.h"
#include "RowAnalysis.h"
#include "RowLaunches.h"
#include "TiledContractions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace numlir {
#define GEN_PASS_DEF_CUDAMAPKERNELSTOLAUNCHES
#include "numlir/Backends/CUDA/Passes.h.inc"
} // namespace numlir

using namespace mlir;
using namespace numlir::cuda::launches;

namespace {

struct CUDAMapKernelsToLaunchesPass
    : numlir::impl::CUDAMapKernelsToLaunchesBase<CUDAMapKernelsToLaunchesPass> {
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
          return op->emitOpError(
              "reached the GPU mapping before bufferization");
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

  LogicalResult mapKernel(func::FuncOp kernel) {
    FailureOr<std::optional<SmallVector<linalg::GenericOp>>> collected =
        collectOps(kernel);
    if (failed(collected))
      return failure();
    if (!*collected) {
      writeSerialLaunch(kernel);
      return success();
    }
    llvm::DenseSet<Value> kernelWrites;
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
    TiledContractionWriter tiledWriter({tileSize}, kernelWrites);
    if (std::optional<TiledContraction> tiled = tiledWriter.matchOps(ops)) {
      if (failed(tiledWriter.writeLaunch(builder, *tiled)))
        return failure();
      for (linalg::GenericOp op : ops)
        op.erase();
      return success();
    }
    RowLaunchWriter rowWriter({blockSize}, kernelWrites);
    bool oneOpWithoutReductions =
        ops.size() == 1 && ops[0].getNumReductionLoops() == 0;
    int64_t rows = oneOpWithoutReductions ? 0 : sharedRowDims(ops);
    if (oneOpWithoutReductions) {
      if (failed(rowWriter.writeFlatLaunch(builder, ops[0])))
        return failure();
    } else if (rows > 0 || ops.size() == 1) {
      if (failed(rowWriter.writeRowLaunch(builder, ops, rows)))
        return failure();
    } else {
      // No row space is shared: one launch per op, in order.
      for (linalg::GenericOp op : ops) {
        LogicalResult written =
            op.getNumReductionLoops() == 0
                ? rowWriter.writeFlatLaunch(builder, op)
                : rowWriter.writeRowLaunch(builder, {op}, sharedRowDims({op}));
        if (failed(written))
          return failure();
      }
    }
    for (linalg::GenericOp op : ops)
      op.erase();
    return success();
  }
};

} // namespace
