//===- SharedObjectLinker.h - host objects to shared objects ----*- C++ -*-===//
//
// Links the CPU backend's relocatable object into the shared object the
// runtime loads, with LLVM's ELF linker (lld) inside this process: a
// C compiler driver spawns three processes per executable (45 ms of a
// 100 ms compile), lld in-process takes about a millisecond.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BACKENDS_CPU_SHAREDOBJECTLINKER_H
#define NUMLIR_BACKENDS_CPU_SHAREDOBJECTLINKER_H

#include "llvm/Support/Error.h"
#include <string>

namespace numlir::cpu {

/// Links the object file at `objectPath` into a shared object at
/// `outputPath` that needs only libc and libm (the math library this
/// process has loaded), and libomp when it runs parallel loops. With
/// `useStubs`, against stubs of those libraries (LibraryStubs.h), written
/// next to `outputPath`, where they cover the object's calls; the result is
/// the same file. Thread-safe: lld keeps global state, so links are
/// serialized. After a link lld reports it cannot repeat, every later call
/// fails with a message saying so (the caller falls back to a linker
/// process).
llvm::Error linkSharedObject(const std::string &objectPath,
                             const std::string &outputPath,
                             bool useStubs = true);

/// How many links used stubs, and how many times stubs were built.
struct LinkerCounts {
  unsigned stubLinks = 0, stubBuilds = 0;
};
LinkerCounts getLinkerCounts();

/// The path of the math library loaded into this process ("" if unknown).
std::string getLoadedMathLibraryPath();

} // namespace numlir::cpu

#endif // NUMLIR_BACKENDS_CPU_SHAREDOBJECTLINKER_H
