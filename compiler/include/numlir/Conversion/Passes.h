//===- Passes.h - numlir conversion passes ----------------------*- C++ -*-===//

#ifndef NUMLIR_CONVERSION_PASSES_H
#define NUMLIR_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include <memory>

namespace numlir {

#define GEN_PASS_DECL
#include "numlir/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "numlir/Conversion/Passes.h.inc"

} // namespace numlir

#endif // NUMLIR_CONVERSION_PASSES_H
