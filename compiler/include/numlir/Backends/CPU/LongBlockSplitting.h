//===- LongBlockSplitting.h - Straight-line code in bounded pieces -*- C++ -*-===//
//
// A training step's entry function is a straight line of kernel calls and
// buffer slots: tens of thousands of instructions in one basic block, with
// the step's arguments live across all of it. The code generator's costs grow
// faster than that line: it builds one scheduling graph per block
// (SelectionDAG, and the post-RA list scheduler on CPUs that ask for it), and
// the register allocator checks each live range against every call it
// spans. A program twice as deep took three times as long to compile, all of
// it on one thread. Cut into pieces of bounded length, each piece a function
// of its own, the line compiles in time linear in its length, and the pieces
// spread over the compile threads.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BACKENDS_CPU_LONGBLOCKSPLITTING_H
#define NUMLIR_BACKENDS_CPU_LONGBLOCKSPLITTING_H

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace numlir::cpu {

/// Splits every basic block of `function` longer than `maxInstructions`
/// after the first call past that length, and so on, each part falling
/// through to the next. Blocks without calls (a kernel's unrolled loop body)
/// stay whole. Returns how many cuts were made.
unsigned splitLongBlocks(llvm::Function &function, unsigned maxInstructions);

/// `splitLongBlocks` on every function of `module`.
unsigned splitLongBlocks(llvm::Module &module, unsigned maxInstructions);

/// In every function of at least twice `runInstructions` instructions, cuts
/// the long blocks into runs of about `runInstructions` and moves each run
/// but the entry block's into a new internal `noinline` function, which the
/// run's old place calls. Returns how many runs moved.
unsigned outlineStraightLineRuns(llvm::Module &module, unsigned runInstructions);

} // namespace numlir::cpu

#endif // NUMLIR_BACKENDS_CPU_LONGBLOCKSPLITTING_H
