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

namespace llvm {
class Module;
} // namespace llvm

namespace numlir::cpu {

/// Moves each top-level loop of every function of at least
/// `minInstructions` instructions into a new internal `noinline` function
/// that the loop's old place calls. Returns how many loops moved.
unsigned outlineLoopNests(llvm::Module &module, unsigned minInstructions);

} // namespace numlir::cpu

#endif // NUMLIR_BACKENDS_CPU_LOOPNESTOUTLINING_H
