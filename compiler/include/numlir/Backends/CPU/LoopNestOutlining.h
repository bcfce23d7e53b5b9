//===- LoopNestOutlining.h - Large functions into one per loop nest -*- C++ -*-===//
//
// Every op that the CPU pipeline does not split across threads becomes a
// loop nest of the entry function, so a training step arrives at LLVM as one
// function of tens of thousands of instructions. LLVM's loop passes
// (IndVarSimplify, LoopStrengthReduce) recompute function-wide analyses per
// loop, which makes that function cost far more than its loops would apart,
// and one function cannot be compiled on several threads.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BACKENDS_CPU_LOOPNESTOUTLINING_H
#define NUMLIR_BACKENDS_CPU_LOOPNESTOUTLINING_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace llvm {
class BasicBlock;
class DominatorTree;
class Function;
class Module;
} // namespace llvm

namespace numlir::cpu {

/// Moves each top-level loop of every function of at least
/// `minInstructions` instructions into a new internal `noinline` function
/// that the loop's old place calls. Returns how many loops moved.
unsigned outlineLoopNests(llvm::Module &module, unsigned minInstructions);

/// Moves each of `regions` (single-entry sets of `function`'s blocks, chosen
/// before any moves) into a new internal `noinline` function, which the
/// region's old place calls; `dominators` is `function`'s tree, kept up to
/// date. Regions CodeExtractor cannot move stay. Returns how many moved.
unsigned outlineRegions(llvm::Function &function, llvm::DominatorTree &dominators,
                        llvm::ArrayRef<llvm::SmallVector<llvm::BasicBlock *>> regions);

} // namespace numlir::cpu

#endif // NUMLIR_BACKENDS_CPU_LOOPNESTOUTLINING_H
