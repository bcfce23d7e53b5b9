//===- ModulePartitioning.h - One module into independently compiled parts -*- C++ -*-===//
//
// LLVM optimizes and emits one module on one thread. To compile a large
// executable on every core, its functions are dealt out to partitions of
// about equal size, each a module of its own that a thread parses into its
// own LLVMContext (contexts are not shared between threads). The linker puts
// the partitions' objects back together.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BACKENDS_CPU_MODULEPARTITIONING_H
#define NUMLIR_BACKENDS_CPU_MODULEPARTITIONING_H

#include "llvm/ADT/SmallVector.h"
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace numlir::cpu {

/// Splits `module` into at most `maxPartitions` bitcode modules that link
/// back into it, balanced by instruction count: each function is defined in
/// exactly one partition and declared where others call it. Local functions
/// and variables become hidden globals so that the partitions can reach each
/// other's (a shared object exports none of them); local constants are copied
/// into every partition instead, so that each still folds loads from them.
/// Returns no partitions when `module` cannot be split this way (aliases,
/// comdats, appending globals) or when fewer than two would have work.
std::vector<llvm::SmallVector<char, 0>> partitionModule(llvm::Module &module,
                                                        unsigned maxPartitions);

} // namespace numlir::cpu

#endif // NUMLIR_BACKENDS_CPU_MODULEPARTITIONING_H
