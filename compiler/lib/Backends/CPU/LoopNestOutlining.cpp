//===- LoopNestOutlining.cpp - Large functions into one per loop nest -----===//

#include "numlir/Backends/CPU/LoopNestOutlining.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"

using namespace numlir::cpu;

unsigned numlir::cpu::outlineRegions(
    llvm::Function &function, llvm::DominatorTree &dominators,
    llvm::ArrayRef<llvm::SmallVector<llvm::BasicBlock *>> regions) {
  // The analysis cache stays valid across extractions (CodeExtractor's
  // contract), and the dominator tree is updated by each of them.
  llvm::CodeExtractorAnalysisCache cache(function);
  unsigned outlined = 0;
  for (llvm::ArrayRef<llvm::BasicBlock *> blocks : regions) {
    llvm::CodeExtractor extractor(blocks, &dominators);
    if (!extractor.isEligible())
      continue;
    llvm::Function *region = extractor.extractCodeRegion(cache);
    if (!region)
      continue;
    // Inlining it back would undo the point; one call per region costs
    // nothing next to the region.
    region->addFnAttr(llvm::Attribute::NoInline);
    ++outlined;
  }
  return outlined;
}

/// Outlines the top-level loops of `function`; returns how many moved.
static unsigned outlineTopLevelLoops(llvm::Function &function) {
  llvm::DominatorTree dominators(function);
  llvm::LoopInfo loops(dominators);
  // Blocks are collected before any extraction: extracting one loop leaves
  // the blocks of its siblings in place, but not the LoopInfo that found them.
  llvm::SmallVector<llvm::SmallVector<llvm::BasicBlock *>> nests;
  for (llvm::Loop *loop : loops)
    nests.emplace_back(loop->getBlocks().begin(), loop->getBlocks().end());
  return outlineRegions(function, dominators, nests);
}

unsigned numlir::cpu::outlineLoopNests(llvm::Module &module,
                                       unsigned minInstructions) {
  llvm::SmallVector<llvm::Function *> large;
  for (llvm::Function &function : module)
    if (!function.isDeclaration() &&
        function.getInstructionCount() >= minInstructions)
      large.push_back(&function);
  unsigned outlined = 0;
  for (llvm::Function *function : large)
    outlined += outlineTopLevelLoops(*function);
  return outlined;
}
