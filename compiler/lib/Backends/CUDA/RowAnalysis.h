//===- RowAnalysis.h - which loops of a kernel's ops are rows ---*- C++ -*-===//
//
// Internal to cuda-map-kernels-to-launches. A block can run a row of the
// kernel's ops on its own only where every op writes, and reads what the
// kernel writes, at that same row, so these follow each operand through its
// indexing map and the views above its buffer. The tiled contractions ask
// the same of their fills and consumers.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_LIB_BACKENDS_CUDA_ROWANALYSIS_H
#define NUMLIR_LIB_BACKENDS_CUDA_ROWANALYSIS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace numlir::cuda::launches {

bool isView(mlir::Operation *op);

/// The buffer a memref value is a view of: a function argument, an
/// allocation or a global.
mlir::Value rootBuffer(mlir::Value value);

int64_t product(llvm::ArrayRef<int64_t> values);

/// How many leading loops every op has parallel and of the same extent,
/// such that every op writes, and reads what the ops write, at its own
/// row: then one block per row runs all the ops without seeing another
/// block's work.
int64_t sharedRowDims(llvm::ArrayRef<mlir::linalg::GenericOp> ops);

/// The leading dims (at most `rows`) along which `operand` addresses its
/// buffer at the op's own row: its map starts d0, d1, ... and no view
/// between it and the buffer moves them.
int64_t rowAlignedDims(mlir::linalg::GenericOp op, mlir::OpOperand &operand,
                       int64_t rows);

/// How many of the first `dims` dimensions of `value` the views between
/// it and its buffer leave in place.
int64_t viewsKeepLeadingDims(mlir::Value value, int64_t dims);

} // namespace numlir::cuda::launches

#endif // NUMLIR_LIB_BACKENDS_CUDA_ROWANALYSIS_H
