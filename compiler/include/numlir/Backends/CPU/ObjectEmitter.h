//===- ObjectEmitter.h - LLVM dialect to host object code -------*- C++ -*-===//
//
// The CPU backend's last native stages: translate an LLVM-dialect module to
// LLVM IR, optimize it for the host CPU (its vector features included) and
// emit relocatable objects. Linking the object into a shared library is
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

/// Translates an LLVM-dialect module to LLVM IR: text, or bitcode when
/// `bitcode` (a tenth of the time to write and read back for a large module).
llvm::Expected<std::string> translateToLLVMIR(mlir::ModuleOp module,
                                              bool bitcode = false);

/// The result of compiling LLVM IR for the host.
struct CompiledObject {
  /// The IR after LLVM's optimization pipeline (empty unless asked for);
  /// the partitions' modules one after another when compiled in parallel.
  std::string optimizedIR;
  /// An ELF relocatable object, or an ar archive of one object per
  /// partition when compiled in parallel (linked with --whole-archive).
  std::string object;
};

/// The threads a compilation uses when asked for `requested` (0: every core
/// this process may run on).
unsigned getCompileThreads(unsigned requested);

/// Parses LLVM IR text, optimizes it at `optLevel` (0-3) for the host CPU
/// and emits position-independent code. Without `unrollLoops`, LLVM unrolls
/// only loops whose metadata asks for it: most of the compile time of large
/// programs goes to unrolling loops that MLIR already tiled. Above -O0 the
/// top-level loop nests of functions of `outlineMinInstructions` or more are
/// outlined (LLVM's cost grows faster than a function's size), and a module
/// of twice that size or more is split into partitions compiled on up to
/// `threads` threads.
llvm::Expected<CompiledObject>
compileLLVMIRForHost(llvm::StringRef llvmIR, unsigned optLevel,
                     bool unrollLoops = true, unsigned threads = 0,
                     bool printOptimizedIR = true,
                     unsigned outlineMinInstructions = 2000);

} // namespace numlir::cpu

#endif // NUMLIR_BACKENDS_CPU_OBJECTEMITTER_H
