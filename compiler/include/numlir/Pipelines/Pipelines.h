//===- Pipelines.h - numlir's named pass pipelines --------------*- C++ -*-===//
//
// The named pipelines are the stages every backend is built from; hlo-opt
// and the Python extension see the same names, from the one table in
// lib/Pipelines/Pipelines.cpp (hlo-optimize, hlo-cpu-to-linalg,
// hlo-cpu-to-llvm, and hlo-to-cpu, which runs all three).
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_PIPELINES_PIPELINES_H
#define NUMLIR_PIPELINES_PIPELINES_H

#include "llvm/ADT/StringRef.h"

namespace numlir {

/// The textual pass pipeline (nested in builtin.module) behind a named
/// pipeline, or an empty string if there is none by that name.
llvm::StringRef getPipelineText(llvm::StringRef name);

/// Registers the named pipelines with MLIR's pass registry.
void registerPipelines();

} // namespace numlir

#endif // NUMLIR_PIPELINES_PIPELINES_H
