//===- ObjectEmitter.cpp - LLVM dialect to host object code ---------------===//

#include "numlir/Backends/CPU/ObjectEmitter.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include <memory>
#include <mutex>

using namespace numlir::cpu;

namespace {

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::OptimizationLevel toOptimizationLevel(unsigned level) {
  switch (level) {
  case 0:
    return llvm::OptimizationLevel::O0;
  case 1:
    return llvm::OptimizationLevel::O1;
  case 2:
    return llvm::OptimizationLevel::O2;
  default:
    return llvm::OptimizationLevel::O3;
  }
}

/// Runs LLVM's standard module pipeline, tuned for `machine`.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine,
                    unsigned optLevel, bool unrollLoops) {
  llvm::LoopAnalysisManager loopAM;
  llvm::FunctionAnalysisManager functionAM;
  llvm::CGSCCAnalysisManager cgsccAM;
  llvm::ModuleAnalysisManager moduleAM;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = optLevel > 1;
  tuning.SLPVectorization = optLevel > 1;
  tuning.LoopUnrolling = unrollLoops;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(moduleAM);
  builder.registerCGSCCAnalyses(cgsccAM);
  builder.registerFunctionAnalyses(functionAM);
  builder.registerLoopAnalyses(loopAM);
  builder.crossRegisterProxies(loopAM, functionAM, cgsccAM, moduleAM);
  llvm::ModulePassManager passes =
      optLevel == 0 ? builder.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                    : builder.buildPerModuleDefaultPipeline(
                          toOptimizationLevel(optLevel));
  passes.run(module, moduleAM);
}

} // namespace

HostTarget numlir::cpu::getHostTarget() {
  HostTarget target;
  target.triple = llvm::sys::getProcessTriple();
  target.cpu = llvm::sys::getHostCPUName().str();
  std::string features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures()) {
    if (!features.empty())
      features += ",";
    features += (feature.second ? "+" : "-") + feature.first().str();
  }
  target.features = std::move(features);
  return target;
}

llvm::Expected<std::string>
numlir::cpu::translateToLLVMIR(mlir::ModuleOp module) {
  mlir::registerBuiltinDialectTranslation(*module->getContext());
  mlir::registerLLVMDialectTranslation(*module->getContext());
  // Parallel loops (cpu-parallelize-loops) reach here as omp.parallel.
  mlir::registerOpenMPDialectTranslation(*module->getContext());
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return makeError("could not translate the LLVM dialect to LLVM IR");
  std::string text;
  llvm::raw_string_ostream os(text);
  llvmModule->print(os, nullptr);
  return text;
}

llvm::Expected<CompiledObject>
numlir::cpu::compileLLVMIRForHost(llvm::StringRef llvmIR, unsigned optLevel,
                                   bool unrollLoops) {
  initializeNativeTarget();
  llvm::LLVMContext context;
  llvm::SMDiagnostic parseError;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(
      llvmIR, parseError, context);
  if (!module) {
    std::string message;
    llvm::raw_string_ostream os(message);
    parseError.print("llvm-ir", os);
    return makeError(message);
  }

  HostTarget host = getHostTarget();
  llvm::Triple triple(host.triple);
  std::string lookupError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target)
    return makeError("no LLVM target for " + host.triple + ": " + lookupError);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, host.cpu, host.features, options, llvm::Reloc::PIC_,
      std::nullopt,
      optLevel == 0 ? llvm::CodeGenOptLevel::None
                    : llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return makeError("could not create a target machine for " + host.cpu);
  module->setTargetTriple(triple);
  module->setDataLayout(machine->createDataLayout());

  std::string verifyMessage;
  llvm::raw_string_ostream verifyStream(verifyMessage);
  if (llvm::verifyModule(*module, &verifyStream))
    return makeError("invalid LLVM IR: " + verifyMessage);

  optimizeModule(*module, *machine, optLevel, unrollLoops);

  CompiledObject result;
  llvm::raw_string_ostream irStream(result.optimizedIR);
  module->print(irStream, nullptr);

  llvm::SmallVector<char, 0> objectBuffer;
  llvm::raw_svector_ostream objectStream(objectBuffer);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, objectStream, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return makeError("the target cannot emit object files");
  codegen.run(*module);
  result.object.assign(objectBuffer.begin(), objectBuffer.end());
  return result;
}
