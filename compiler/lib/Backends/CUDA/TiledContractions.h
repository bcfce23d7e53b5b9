//===- TiledContractions.h - matmuls and convolutions in tiles --*- C++ -*-===//
//
// Internal to cuda-map-kernels-to-launches: a kernel of fills, one
// contraction (a matmul, a batched or transposed one, a convolution) and
// elementwise consumers runs as one launch that stages tiles of both
// operands in workgroup memory, rather than a block reduction per output
// element, which reads each operand element once per output it feeds.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_LIB_BACKENDS_CUDA_TILEDCONTRACTIONS_H
#define NUMLIR_LIB_BACKENDS_CUDA_TILEDCONTRACTIONS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/DenseSet.h"

namespace numlir::cuda::launches {

/// A kernel of fills, one contraction and elementwise consumers, which
/// one launch runs tile by tile through shared memory.
struct TiledContraction {
  llvm::SmallVector<mlir::linalg::GenericOp> fills;
  mlir::linalg::GenericOp contraction;
  /// The contraction's loops by role: in both products' sides (batch),
  /// in the A side only (rows, m), in the B side only (columns, n), and
  /// the reductions (depth, k), each in loop order.
  llvm::SmallVector<int64_t> batchDims, rowDims, colDims, depthDims;
  /// The body's `out + f(a, b)`: `a` and `b` (an input's element, or a
  /// value the body gathers, as a convolution's image element), and the
  /// ops that combine them with `out`.
  mlir::Value lhs, rhs;
  llvm::SmallVector<mlir::Operation *> combine;
  llvm::SmallVector<mlir::linalg::GenericOp> epilogue;
};

/// The pass options the tiled launches obey.
struct TiledContractionOptions {
  /// The side of an output tile: a block has tileSize^2 threads, a
  /// multiple of 32 up to 1024. 0 tiles nothing.
  int64_t tileSize;
};

class TiledContractionWriter {
public:
  /// `kernelWrites`, the buffers the kernel writes, must outlive the writer.
  TiledContractionWriter(TiledContractionOptions options,
                         const llvm::DenseSet<mlir::Value> &kernelWrites)
      : options(options), kernelWrites(kernelWrites) {}

  /// The ops as fills of the contraction's output, the contraction and
  /// consumers at their own element, or nothing (they keep the row mapping).
  std::optional<TiledContraction>
  matchOps(llvm::ArrayRef<mlir::linalg::GenericOp> ops) const;

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
  mlir::LogicalResult writeLaunch(mlir::OpBuilder &outer,
                                  const TiledContraction &match) const;

private:
  TiledContractionOptions options;
  const llvm::DenseSet<mlir::Value> &kernelWrites;
};

} // namespace numlir::cuda::launches

#endif // NUMLIR_LIB_BACKENDS_CUDA_TILEDCONTRACTIONS_H
