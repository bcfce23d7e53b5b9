//===- Passes.h - the CUDA backend's passes ----------------------*- C++ -*-===//

#ifndef NUMLIR_BACKENDS_CUDA_PASSES_H
#define NUMLIR_BACKENDS_CUDA_PASSES_H

#include "mlir/Pass/Pass.h"
#include <memory>

namespace numlir {

#define GEN_PASS_DECL
#include "numlir/Backends/CUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "numlir/Backends/CUDA/Passes.h.inc"

} // namespace numlir

#endif // NUMLIR_BACKENDS_CUDA_PASSES_H
