//===- ObjectEmitter.h - LLVM dialect to host object code -------*- C++ -*-===//
//
// The CPU backend's last native stages: translate an LLVM-dialect module to
// LLVM IR, optimize it for the host CPU (its vector features included) and
// emit a relocatable object. Linking the object into a shared library is
// left to the system linker, driven from the Python backend.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BACKENDS_CPU_OBJECTEMITTER_H
#define NUMLIR_BACKENDS_CPU_OBJECTEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include <string>

namespace numlir::cpu {

/// Where the code runs: triple, CPU name and feature string.
struct HostTarget {
  std::string triple, cpu, features;
};

/// The machine this process runs on.
HostTarget getHostTarget();

/// Translates an LLVM-dialect module to LLVM IR text.
llvm::Expected<std::string> translateToLLVMIR(mlir::ModuleOp module);

/// The result of compiling LLVM IR for the host.
struct CompiledObject {
  std::string optimizedIR; ///< The IR after LLVM's optimization pipeline.
  std::string object;      ///< ELF relocatable object bytes.
};

/// Parses LLVM IR text, optimizes it at `optLevel` (0-3) for the host CPU
/// and emits a position-independent object file. Without `unrollLoops`,
/// LLVM unrolls only loops whose metadata asks for it: most of the compile
/// time of large programs goes to unrolling loops that MLIR already tiled.
llvm::Expected<CompiledObject> compileLLVMIRForHost(llvm::StringRef llvmIR,
                                                    unsigned optLevel,
                                                    bool unrollLoops = true);

} // namespace numlir::cpu

#endif // NUMLIR_BACKENDS_CPU_OBJECTEMITTER_H
