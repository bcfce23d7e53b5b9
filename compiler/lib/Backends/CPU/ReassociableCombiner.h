//===- ReassociableCombiner.h - float combiners that may be reordered ------===//
//
// hlo.reduce marks its float sums and products `reassoc`: jax leaves their
// order open. Passes that reorder a reduction (into partials, into a tree)
// accept exactly these.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BACKENDS_CPU_REASSOCIABLECOMBINER_H
#define NUMLIR_BACKENDS_CPU_REASSOCIABLECOMBINER_H

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace numlir::cpu {

/// Whether `op` is an `arith.addf` or `arith.mulf` marked `reassoc`.
inline bool isReassociableFloatCombiner(mlir::Operation *op) {
  if (!mlir::isa<mlir::arith::AddFOp, mlir::arith::MulFOp>(op))
    return false;
  auto flags =
      mlir::cast<mlir::arith::ArithFastMathInterface>(op).getFastMathFlagsAttr();
  return flags && mlir::arith::bitEnumContainsAll(
                      flags.getValue(), mlir::arith::FastMathFlags::reassoc);
}

} // namespace numlir::cpu

#endif // NUMLIR_BACKENDS_CPU_REASSOCIABLECOMBINER_H
