//===- InitAll.h - everything numlir's tools register -----------*- C++ -*-===//

#ifndef NUMLIR_INITALL_H
#define NUMLIR_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace numlir {

/// The hlo dialect, the upstream dialects numlir lowers through, and their
/// interface models (bufferization, LLVM conversion and translation).
void registerAllDialects(mlir::DialectRegistry &registry);

/// numlir's passes and pipelines, and the upstream passes they use.
void registerAllPasses();

} // namespace numlir

#endif // NUMLIR_INITALL_H
