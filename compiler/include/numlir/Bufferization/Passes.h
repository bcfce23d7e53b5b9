//===- Passes.h - buffer passes of numlir's executables ---------*- C++ -*-===//

#ifndef NUMLIR_BUFFERIZATION_PASSES_H
#define NUMLIR_BUFFERIZATION_PASSES_H

#include "mlir/Pass/Pass.h"
#include <memory>

namespace numlir {

#define GEN_PASS_DECL
#include "numlir/Bufferization/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "numlir/Bufferization/Passes.h.inc"

} // namespace numlir

#endif // NUMLIR_BUFFERIZATION_PASSES_H
