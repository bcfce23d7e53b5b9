//===- StableHLO.h - numlir's hlo as StableHLO text -----------------------===//
//
// The translation PJRT backends consume: numlir's hlo dialect written as
// StableHLO and CHLO in MLIR's generic form, which any StableHLO consumer
// (jaxlib, a PJRT plugin) parses without numlir. numlir itself does not link
// StableHLO: the ops are built unregistered and their enum and struct
// attributes are written in the dialects' own syntax (docs/stablehlo.md).
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_TARGET_STABLEHLO_H
#define NUMLIR_TARGET_STABLEHLO_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace numlir {

/// Writes `module`, in the hlo dialect, to `os` as StableHLO. Emits an error
/// at the first op with no translation yet and fails; `module` is unchanged.
mlir::LogicalResult translateToStableHLO(mlir::ModuleOp module,
                                         llvm::raw_ostream &os);

/// Registers `--hlo-to-stablehlo` with mlir-translate's registry.
void registerToStableHLOTranslation();

} // namespace numlir

#endif // NUMLIR_TARGET_STABLEHLO_H
