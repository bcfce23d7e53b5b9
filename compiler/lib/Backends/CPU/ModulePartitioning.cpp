//===- ModulePartitioning.cpp - One module into independently compiled parts ===//

#include "numlir/Backends/CPU/ModulePartitioning.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <algorithm>

using namespace numlir::cpu;

/// Whether every global of `module` can be given to one partition or copied
/// into all of them without changing what the linked program means.
static bool isPartitionable(const llvm::Module &module) {
  if (!module.alias_empty() || !module.ifunc_empty() ||
      !module.getComdatSymbolTable().empty() ||
      !module.getModuleInlineAsm().empty())
    return false;
  for (const llvm::GlobalVariable &global : module.globals())
    if (global.hasAppendingLinkage() || global.hasComdat())
      return false;
  for (const llvm::Function &function : module)
    if (function.hasComdat())
      return false;
  return true;
}

/// A local constant is copied into each partition rather than shared.
static bool isCopiedConstant(const llvm::GlobalValue &value) {
  const auto *global = llvm::dyn_cast<llvm::GlobalVariable>(&value);
  return global && global->hasLocalLinkage() && global->isConstant() &&
         global->hasInitializer();
}

/// Makes the locals that partitions share global symbols that stay inside
/// the shared object. Link-once definitions (the helpers that MLIR's
/// convert-math-to-funcs emits, such as `__mlir_math_ipowi_i8`) are made
/// strong too: only their owner's partition keeps the body, and there the
/// optimizer would drop it whenever no function of that partition calls it,
/// leaving the other partitions' calls undefined.
static void externalizeSharedLocals(llvm::Module &module) {
  unsigned unnamed = 0;
  auto externalize = [&](llvm::GlobalValue &value) {
    if (!(value.hasLocalLinkage() || value.hasLinkOnceLinkage()) ||
        value.isDeclaration() || isCopiedConstant(value))
      return;
    if (!value.hasName())
      value.setName("numlir.partition.unnamed." + llvm::Twine(unnamed++));
    value.setLinkage(llvm::GlobalValue::ExternalLinkage);
    value.setVisibility(llvm::GlobalValue::HiddenVisibility);
    value.setDSOLocal(true);
  };
  for (llvm::Function &function : module)
    externalize(function);
  for (llvm::GlobalVariable &global : module.globals())
    externalize(global);
}

std::vector<llvm::SmallVector<char, 0>>
numlir::cpu::partitionModule(llvm::Module &module, unsigned maxPartitions) {
  std::vector<llvm::SmallVector<char, 0>> partitions;
  if (maxPartitions < 2 || !isPartitionable(module))
    return partitions;

  // Largest functions first, each to the lightest partition so far: within
  // 4/3 of the best balance, and deterministic for a given module.
  llvm::SmallVector<std::pair<unsigned, const llvm::Function *>> sizes;
  for (const llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    sizes.push_back({function.getInstructionCount(), &function});
  }
  unsigned count = std::min<unsigned>(maxPartitions, sizes.size());
  if (count < 2)
    return partitions;
  std::stable_sort(sizes.begin(), sizes.end(), [](auto &a, auto &b) {
    return a.first > b.first;
  });
  std::vector<unsigned> load(count, 0);
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> owner;
  for (auto [size, function] : sizes) {
    unsigned lightest = std::min_element(load.begin(), load.end()) - load.begin();
    owner[function] = lightest;
    load[lightest] += size;
  }

  externalizeSharedLocals(module);
  for (unsigned index = 0; index < count; ++index) {
    llvm::ValueToValueMapTy mapping;
    std::unique_ptr<llvm::Module> part = llvm::CloneModule(
        module, mapping, [&](const llvm::GlobalValue *value) {
          if (isCopiedConstant(*value))
            return true;
          auto found = owner.find(value);
          // Variables that are not copied live in the first partition.
          unsigned home = found == owner.end() ? 0 : found->second;
          return home == index;
        });
    llvm::SmallVector<char, 0> &bitcode = partitions.emplace_back();
    llvm::raw_svector_ostream os(bitcode);
    llvm::WriteBitcodeToFile(*part, os);
  }
  return partitions;
}
