//===- Passes.h - numlir's target-independent passes ------------*- C++ -*-===//

#ifndef NUMLIR_TRANSFORMS_PASSES_H
#define NUMLIR_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include <memory>

namespace numlir {

#define GEN_PASS_DECL
#include "numlir/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "numlir/Transforms/Passes.h.inc"

} // namespace numlir

#endif // NUMLIR_TRANSFORMS_PASSES_H
