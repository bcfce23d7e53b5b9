//===- hlo-translate.cpp - numlir's hlo out of MLIR -----------------------===//
//
// mlir-translate with numlir's translations: `--hlo-to-stablehlo` writes a
// module in the hlo dialect as StableHLO and CHLO for PJRT.
//
//===----------------------------------------------------------------------===//

#include "numlir/Target/StableHLO.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  numlir::registerToStableHLOTranslation();
  return mlir::failed(mlir::mlirTranslateMain(
             argc, argv, "numlir hlo translation driver\n"))
             ? 1
             : 0;
}
