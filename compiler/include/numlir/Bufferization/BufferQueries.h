//===- BufferQueries.h - what linalg ops on buffers may assume --*- C++ -*-===//
//
// Passes that move linalg ops on buffers (the CPU's: into thread chunks,
// row tiles, or functions of their own) ask the same two questions: which
// buffer an operand views, and whether pieces of an op may run separately.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BUFFERIZATION_BUFFERQUERIES_H
#define NUMLIR_BUFFERIZATION_BUFFERQUERIES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace numlir {

/// The allocation `memref` is a view of: a block argument of the function
/// (one of the runtime's distinct argument and result buffers) or a
/// `memref.alloc`/`alloca`; null where it cannot be told (a buffer carried
/// by a loop, a cast the walk does not see through).
mlir::Value rootAllocation(mlir::Value memref);

/// Whether disjoint pieces of `op`'s outputs may be computed separately,
/// in any order or at once: its body writes no memory (a store to a
/// captured buffer could collide) and no input is an output read at other
/// elements than the ones written (one piece would read what another has
/// already overwritten).
bool piecesAreIndependent(mlir::linalg::LinalgOp op);

} // namespace numlir

#endif // NUMLIR_BUFFERIZATION_BUFFERQUERIES_H
