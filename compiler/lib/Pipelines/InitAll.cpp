//===- InitAll.cpp - registration of dialects, passes and pipelines -------===//

#include "numlir/InitAll.h"

#include "numlir/Backends/CPU/Passes.h"
#include "numlir/Backends/CUDA/Passes.h"
#include "numlir/Bufferization/Passes.h"
#include "numlir/Conversion/Passes.h"
#include "numlir/Dialect/HLO/IR/HLO.h"
#include "numlir/Pipelines/Pipelines.h"
#include "numlir/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void numlir::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<numlir::hlo::HLODialect>();
  // numlir is one shared library over libMLIR.so: registering every
  // upstream dialect and extension costs nothing at load time (dialects load
  // lazily) and lets hlo-opt read any IR a pipeline stage produces.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

void numlir::registerAllPasses() {
  static const bool registered = [] {
    mlir::registerAllPasses();
    numlir::registerNumlirConversionPasses();
    numlir::registerNumlirTransformsPasses();
    numlir::registerNumlirBufferizationPasses();
    numlir::registerNumlirCPUPasses();
    numlir::registerNumlirCUDAPasses();
    numlir::registerPipelines();
    return true;
  }();
  (void)registered;
}
