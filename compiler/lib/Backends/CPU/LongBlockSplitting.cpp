//===- LongBlockSplitting.cpp - Straight-line code in bounded pieces ------===//

#include "numlir/Backends/CPU/LongBlockSplitting.h"

#include "numlir/Backends/CPU/LoopNestOutlining.h"

#include "llvm/IR/Dominators.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace numlir::cpu;

/// Whether a block may end after `instruction`: a call that is not an
/// intrinsic (those are often parts of one operation) nor a musttail call
/// (which the return must follow at once), and not the last before the
/// terminator.
static bool isCutPoint(const llvm::Instruction &instruction) {
  const auto *call = llvm::dyn_cast<llvm::CallInst>(&instruction);
  return call && !call->isMustTailCall() && !llvm::isa<llvm::IntrinsicInst>(call) &&
         !instruction.getNextNode()->isTerminator();
}

unsigned numlir::cpu::splitLongBlocks(llvm::Function &function,
                                      unsigned maxInstructions) {
  unsigned cuts = 0;
  // Blocks appended by a split are visited by this loop too.
  for (llvm::BasicBlock &block : function) {
    if (block.size() <= maxInstructions)
      continue;
    unsigned count = 0;
    for (llvm::Instruction &instruction : block) {
      if (++count < maxInstructions || !isCutPoint(instruction))
        continue;
      block.splitBasicBlock(instruction.getNextNode(), block.getName() + ".cut");
      ++cuts;
      break;
    }
  }
  return cuts;
}

unsigned numlir::cpu::splitLongBlocks(llvm::Module &module,
                                      unsigned maxInstructions) {
  unsigned cuts = 0;
  for (llvm::Function &function : module)
    cuts += splitLongBlocks(function, maxInstructions);
  return cuts;
}

/// Outlines the runs of `function` (split to about `runInstructions`).
static unsigned outlineRuns(llvm::Function &function, unsigned runInstructions) {
  splitLongBlocks(function, runInstructions);
  // Runs are chosen before any extraction, which replaces a run's block.
  llvm::SmallVector<llvm::SmallVector<llvm::BasicBlock *>> runs;
  for (llvm::BasicBlock &block : function)
    if (!block.isEntryBlock() && block.size() >= runInstructions / 2 &&
        !llvm::isa<llvm::PHINode>(block.front()))
      runs.push_back({&block});
  if (runs.empty())
    return 0;
  llvm::DominatorTree dominators(function);
  return outlineRegions(function, dominators, runs);
}

unsigned numlir::cpu::outlineStraightLineRuns(llvm::Module &module,
                                              unsigned runInstructions) {
  llvm::SmallVector<llvm::Function *> large;
  for (llvm::Function &function : module)
    if (!function.isDeclaration() &&
        function.getInstructionCount() >= 2 * runInstructions)
      large.push_back(&function);
  unsigned outlined = 0;
  for (llvm::Function *function : large)
    outlined += outlineRuns(*function, runInstructions);
  return outlined;
}
