//===- CPUScopeNoAliasArguments.cpp - noalias arguments as alias scopes ---===//
//
// A kernel's buffers are `noalias` arguments (cpu-share-kernels), which
// LLVM uses within the kernel's own body. A parallel loop's body, though,
// is outlined into a function of its own when the OpenMP dialect is
// translated, and reaches the buffers through pointers loaded from a
// struct: the noalias arguments say nothing there, so LLVM guarded its
// vectorized loops with runtime alias checks, or did not vectorize them, and
// the same op compiled to different loops split over threads than whole.
// This pass states what the arguments say on every access instead, as
// scoped alias metadata (one scope per noalias argument), which travels
// with the loads and stores into the outlined functions; LLVM's inliner
// does the same when it inlines a call with noalias arguments.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMInterfaces.h"

namespace numlir {
#define GEN_PASS_DEF_CPUSCOPENOALIASARGUMENTS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// The argument of `func` that `pointer` is computed from by address
/// arithmetic alone, or null.
BlockArgument baseArgument(Value pointer, LLVM::LLVMFuncOp func) {
  while (auto gep = pointer.getDefiningOp<LLVM::GEPOp>())
    pointer = gep.getBase();
  auto argument = dyn_cast<BlockArgument>(pointer);
  if (!argument || argument.getOwner() != &func.getBody().front())
    return {};
  return argument;
}

struct CPUScopeNoAliasArgumentsPass
    : numlir::impl::CPUScopeNoAliasArgumentsBase<CPUScopeNoAliasArgumentsPass> {
  using Base::Base;

  // On the module, one function after another: scopes are distinct
  // attributes, numbered as they are made, and functions done in parallel
  // would number them differently from one compile to the next.
  void runOnOperation() override {
    for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>())
      if (!func.isExternal())
        scopeArguments(func);
  }

  void scopeArguments(LLVM::LLVMFuncOp func) {
    MLIRContext *ctx = &getContext();
    // One scope per noalias pointer argument, in one domain per function.
    llvm::DenseMap<BlockArgument, LLVM::AliasScopeAttr> scopes;
    SmallVector<Attribute> allScopes;
    LLVM::AliasScopeDomainAttr domain;
    for (BlockArgument argument : func.getArguments()) {
      if (!isa<LLVM::LLVMPointerType>(argument.getType()) ||
          !func.getArgAttr(argument.getArgNumber(), LLVM::LLVMDialect::getNoAliasAttrName()))
        continue;
      if (!domain)
        domain = LLVM::AliasScopeDomainAttr::get(
            ctx, StringAttr::get(ctx, func.getSymName()));
      auto scope = LLVM::AliasScopeAttr::get(domain);
      scopes[argument] = scope;
      allScopes.push_back(scope);
    }
    if (scopes.empty())
      return;

    // An access through argument i is in scope i and aliases no access in
    // the others. Accesses through any other pointer get no scope, and so
    // no conclusion.
    func.walk([&](LLVM::AliasAnalysisOpInterface access) {
      SmallVector<Value> pointers = access.getAccessedOperands();
      if (pointers.size() != 1 || access.getAliasScopesOrNull() ||
          access.getNoAliasScopesOrNull())
        return;
      auto found = scopes.find(baseArgument(pointers.front(), func));
      if (found == scopes.end())
        return;
      SmallVector<Attribute> others;
      for (Attribute scope : allScopes)
        if (scope != found->second)
          others.push_back(scope);
      access.setAliasScopes(ArrayAttr::get(ctx, {found->second}));
      if (!others.empty())
        access.setNoAliasScopes(ArrayAttr::get(ctx, others));
    });
  }
};

} // namespace
