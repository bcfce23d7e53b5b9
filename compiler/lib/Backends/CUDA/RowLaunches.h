//===- RowLaunches.h - a block per row, or a thread per element -*- C++ -*-===//
//
// Internal to cuda-map-kernels-to-launches: the launches of kernels whose
// ops share rows (a block per row, the ops in order) and of a single op
// without reductions (a thread per element). Passes.td describes how the
// threads of a block divide an op's work within a row.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_LIB_BACKENDS_CUDA_ROWLAUNCHES_H
#define NUMLIR_LIB_BACKENDS_CUDA_ROWLAUNCHES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/DenseSet.h"

namespace numlir::cuda::launches {

/// The pass options the row and flat launches obey.
struct RowLaunchOptions {
  /// Threads per block, at most: a multiple of 32 from 32 to 1024.
  int64_t blockSize;
};

class RowLaunchWriter {
public:
  /// `kernelWrites`, the buffers the kernel writes, must outlive the writer.
  RowLaunchWriter(RowLaunchOptions options,
                  const llvm::DenseSet<mlir::Value> &kernelWrites)
      : options(options), kernelWrites(kernelWrites) {}

  /// One thread per element of an op without reductions.
  mlir::LogicalResult writeFlatLaunch(mlir::OpBuilder &outer,
                                      mlir::linalg::GenericOp op) const;

  /// One block per row of the first `rows` loops; the ops run in order in
  /// each block.
  mlir::LogicalResult
  writeRowLaunch(mlir::OpBuilder &outer,
                 llvm::ArrayRef<mlir::linalg::GenericOp> ops,
                 int64_t rows) const;

private:
  RowLaunchOptions options;
  const llvm::DenseSet<mlir::Value> &kernelWrites;
};

} // namespace numlir::cuda::launches

#endif // NUMLIR_LIB_BACKENDS_CUDA_ROWLAUNCHES_H
