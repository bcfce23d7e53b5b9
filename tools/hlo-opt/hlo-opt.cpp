//===- hlo-opt.cpp - the pass driver for numlir's hlo dialect -------------===//
//
// mlir-opt with the hlo dialect, numlir's passes and named pipelines
// (hlo-optimize, hlo-cpu-to-linalg, hlo-cpu-to-llvm, hlo-to-cpu).
//
//===----------------------------------------------------------------------===//

#include "numlir/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  numlir::registerAllPasses();
  mlir::DialectRegistry registry;
  numlir::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "numlir hlo optimizer driver\n", registry));
}
