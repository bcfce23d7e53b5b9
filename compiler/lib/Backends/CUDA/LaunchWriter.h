//===- LaunchWriter.h - a gpu.launch and the scalar code inside -*- C++ -*-===//
//
// Internal to cuda-map-kernels-to-launches: every mapping of a kernel's ops
// (rows, flat, tiled, serial) makes its launch with createLaunch and, but
// for the serial one, writes each linalg op inside it with a LaunchWriter,
// as loads, the op's body and stores at loop indices it computes from
// block and thread ids.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_LIB_BACKENDS_CUDA_LAUNCHWRITER_H
#define NUMLIR_LIB_BACKENDS_CUDA_LAUNCHWRITER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

namespace numlir::cuda::launches {

/// A launch for the op's shape, frozen as constants; returns the launch
/// and leaves `builder` inside its body.
mlir::gpu::LaunchOp createLaunch(mlir::OpBuilder &builder, mlir::Location loc,
                                 int64_t grid, int64_t block,
                                 mlir::TypeRange workgroupBuffers = {});

/// Moves the whole body of `kernel` but its allocations into a launch of
/// one thread: the fallback for what has no parallel mapping yet (a
/// scatter's or a cumulative op's loops). Correct, and slow on a GPU.
void writeSerialLaunch(mlir::func::FuncOp kernel);

/// Writes the body of one launch: the helpers give each linalg op's scalar
/// code at given loop indices, on buffers visible inside the launch.
class LaunchWriter {
public:
  /// Writes at `builder`'s insertion point, which must be the start of the
  /// launch body: what `materialize` rebuilds goes there, above everything
  /// written later, so it dominates every use. `written` holds the buffers
  /// the launch writes: a load from one cannot be recomputed.
  LaunchWriter(mlir::OpBuilder &builder, mlir::Location loc,
               const llvm::DenseSet<mlir::Value> &written);

  mlir::Value index(int64_t v);

  /// `value` as seen inside the launch: buffers are captured as they are
  /// (so the kernel takes one pointer per buffer), views and constants are
  /// rebuilt inside.
  mlir::FailureOr<mlir::Value> materialize(mlir::Value value);

  /// Splits `linear` into indices of a row-major space of `extents`.
  llvm::SmallVector<mlir::Value> delinearize(mlir::Value linear,
                                             llvm::ArrayRef<int64_t> extents);

  /// The element of operand `operand` of `op` at loop indices `ivs`.
  mlir::FailureOr<mlir::Value> load(mlir::linalg::GenericOp op,
                                    mlir::OpOperand &operand,
                                    llvm::ArrayRef<mlir::Value> ivs);

  mlir::LogicalResult store(mlir::linalg::GenericOp op,
                            mlir::OpOperand &operand, mlir::Value value,
                            llvm::ArrayRef<mlir::Value> ivs);

  /// The values `op`'s body yields at `ivs`, given its inputs' elements and
  /// the current values of its outputs.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  body(mlir::linalg::GenericOp op, llvm::ArrayRef<mlir::Value> ivs,
       llvm::ArrayRef<mlir::Value> outputs);

  /// The values `op`'s body yields for the given input elements (loaded
  /// wherever the caller keeps them: a buffer, shared memory) and outputs.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  bodyOf(mlir::linalg::GenericOp op, llvm::ArrayRef<mlir::Value> ivs,
         llvm::ArrayRef<mlir::Value> inputs,
         llvm::ArrayRef<mlir::Value> outputs);

  /// Loads the outputs at `ivs`, runs the body and stores what it yields.
  mlir::LogicalResult elementwise(mlir::linalg::GenericOp op,
                                  llvm::ArrayRef<mlir::Value> ivs);

private:
  llvm::SmallVector<mlir::Value> apply(mlir::AffineMap map,
                                       llvm::ArrayRef<mlir::Value> ivs);

  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::OpBuilder hoist;
  mlir::IRMapping mapping;
  const llvm::DenseSet<mlir::Value> &written;
};

} // namespace numlir::cuda::launches

#endif // NUMLIR_LIB_BACKENDS_CUDA_LAUNCHWRITER_H
