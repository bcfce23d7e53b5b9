//===- ObjectEmitter.cpp - LLVM dialect to host object code ---------------===//

#include "numlir/Backends/CPU/ObjectEmitter.h"
#include "numlir/Backends/CPU/Passes.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "numlir/Backends/CPU/LongBlockSplitting.h"
#include "numlir/Backends/CPU/LoopNestOutlining.h"
#include "numlir/Backends/CPU/ModulePartitioning.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/DeadArgumentElimination.h"
#include "llvm/Transforms/IPO/SCCP.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include <memory>
#include <mutex>
#include <thread>

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

/// The longest basic block handed to the code generator, and the length of
/// the straight-line runs moved into functions of their own
/// (LongBlockSplitting.h says why). Only calls end a block early, so no
/// kernel's loop body is cut. Measured on a 512-layer training step: 300 to
/// 700 compile alike, 2000 took three times as long.
constexpr unsigned kStraightLinePiece = 500;

/// Runs LLVM's standard module pipeline, tuned for `machine`.
/// Runs the module pipeline that `build` makes, with LLVM's analyses tuned
/// for `machine`.
void runModulePipeline(
    llvm::Module &module, llvm::TargetMachine *machine,
    const llvm::PipelineTuningOptions &tuning,
    llvm::function_ref<llvm::ModulePassManager(llvm::PassBuilder &)> build) {
  llvm::LoopAnalysisManager loopAM;
  llvm::FunctionAnalysisManager functionAM;
  llvm::CGSCCAnalysisManager cgsccAM;
  llvm::ModuleAnalysisManager moduleAM;
  llvm::PassBuilder builder(machine, tuning);
  builder.registerModuleAnalyses(moduleAM);
  builder.registerCGSCCAnalyses(cgsccAM);
  builder.registerFunctionAnalyses(functionAM);
  builder.registerLoopAnalyses(loopAM);
  builder.crossRegisterProxies(loopAM, functionAM, cgsccAM, moduleAM);
  build(builder).run(module, moduleAM);
}

void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine,
                    unsigned optLevel, bool unrollLoops) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = optLevel > 1;
  tuning.SLPVectorization = optLevel > 1;
  tuning.LoopUnrolling = unrollLoops;
  runModulePipeline(module, &machine, tuning, [&](llvm::PassBuilder &builder) {
    return optLevel == 0
               ? builder.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
               : builder.buildPerModuleDefaultPipeline(toOptimizationLevel(optLevel));
  });
}

/// Specializes the module's internal functions to their calls before the
/// module is split: constants every call passes (a memref descriptor's
/// offset, sizes and strides) move into the function, and the arguments no
/// function reads any more (the descriptors' allocated pointers) go away.
/// Once split, a function in another partition is an external symbol, whose
/// calls keep every argument: a training step's entry function then passed
/// seven values per buffer to each of its thousands of kernel calls, and
/// took three times as long to compile.
void specializeInternalFunctions(llvm::Module &module) {
  runModulePipeline(module, nullptr, llvm::PipelineTuningOptions(),
                    [](llvm::PassBuilder &) {
                      llvm::ModulePassManager passes;
                      passes.addPass(llvm::IPSCCPPass());
                      passes.addPass(llvm::DeadArgumentEliminationPass());
                      return passes;
                    });
}

} // namespace

HostTarget numlir::cpu::getHostTarget() {
  // Asking the CPU costs a cpuid walk per feature; the answer never changes.
  static const HostTarget host = [] {
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
  }();
  return host;
}

llvm::Expected<std::string>
numlir::cpu::translateToLLVMIR(mlir::ModuleOp module, bool bitcode) {
  // Noalias arguments become alias scopes here, past the last boundary
  // between stages: MLIR bytecode reads each use of a distinct attribute
  // back as a distinct attribute of its own, which would split every scope
  // made before it into unrelated ones.
  mlir::PassManager scopes(module->getContext());
  scopes.addPass(numlir::createCPUScopeNoAliasArguments());
  if (mlir::failed(scopes.run(module)))
    return makeError("could not state the noalias arguments as alias scopes");
  mlir::registerBuiltinDialectTranslation(*module->getContext());
  mlir::registerLLVMDialectTranslation(*module->getContext());
  // Parallel loops (cpu-parallelize-loops) reach here as omp.parallel.
  mlir::registerOpenMPDialectTranslation(*module->getContext());
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return makeError("could not translate the LLVM dialect to LLVM IR");
  std::string ir;
  llvm::raw_string_ostream os(ir);
  if (bitcode)
    llvm::WriteBitcodeToFile(*llvmModule, os);
  else
    llvmModule->print(os, nullptr);
  return ir;
}

/// A new target machine of the host.
static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createHostMachine(unsigned optLevel) {
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
  return machine;
}

/// This thread's target machine of the host for `optLevel`. Creating one
/// (subtarget tables, assembler info) cost a small op's compilation a
/// quarter of its object-emission time, so each thread keeps its own: one
/// machine serves any number of modules in turn, never two at once.
static llvm::Expected<llvm::TargetMachine &> getHostMachine(unsigned optLevel) {
  thread_local std::unique_ptr<llvm::TargetMachine> machines[2];
  std::unique_ptr<llvm::TargetMachine> &slot = machines[optLevel == 0 ? 0 : 1];
  if (!slot) {
    llvm::Expected<std::unique_ptr<llvm::TargetMachine>> created =
        createHostMachine(optLevel);
    if (!created)
      return created.takeError();
    slot = std::move(*created);
  }
  return *slot;
}

/// Optimizes `module` (already verified) and emits its object.
static llvm::Expected<CompiledObject>
compileModule(llvm::Module &module, unsigned optLevel, bool unrollLoops,
              bool printOptimizedIR) {
  llvm::Expected<llvm::TargetMachine &> machine = getHostMachine(optLevel);
  if (!machine)
    return machine.takeError();
  module.setTargetTriple(machine->getTargetTriple());
  module.setDataLayout(machine->createDataLayout());
  optimizeModule(module, *machine, optLevel, unrollLoops);
  splitLongBlocks(module, kStraightLinePiece);

  CompiledObject result;
  if (printOptimizedIR) {
    llvm::raw_string_ostream irStream(result.optimizedIR);
    module.print(irStream, nullptr);
  }
  llvm::SmallVector<char, 0> objectBuffer;
  llvm::raw_svector_ostream objectStream(objectBuffer);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, objectStream, nullptr,
                                      llvm::CodeGenFileType::ObjectFile))
    return makeError("the target cannot emit object files");
  codegen.run(module);
  result.object.assign(objectBuffer.begin(), objectBuffer.end());
  return result;
}

/// Compiles each bitcode partition on a thread of its own, in a context of
/// its own, and archives the objects in partition order.
static llvm::Expected<CompiledObject>
compilePartitions(llvm::ArrayRef<llvm::SmallVector<char, 0>> partitions,
                  unsigned optLevel, bool unrollLoops, bool printOptimizedIR) {
  std::vector<CompiledObject> compiled(partitions.size());
  std::vector<std::string> errors(partitions.size());
  auto compileOne = [&](size_t index) {
    llvm::LLVMContext context;
    llvm::Expected<std::unique_ptr<llvm::Module>> module =
        llvm::parseBitcodeFile(
            llvm::MemoryBufferRef(
                llvm::StringRef(partitions[index].data(),
                                partitions[index].size()),
                "partition"),
            context);
    if (!module) {
      errors[index] = llvm::toString(module.takeError());
      return;
    }
    llvm::Expected<CompiledObject> object =
        compileModule(**module, optLevel, unrollLoops, printOptimizedIR);
    if (object)
      compiled[index] = std::move(*object);
    else
      errors[index] = llvm::toString(object.takeError());
  };
  std::vector<std::thread> threads;
  for (size_t index = 0; index < partitions.size(); ++index)
    threads.emplace_back([&, index] {
      // A crash on this thread is reported like one on the caller's (whose
      // recovery context does not reach other threads).
      llvm::CrashRecoveryContext recovery;
      if (!recovery.RunSafely([&] { compileOne(index); }))
        errors[index] = "LLVM crashed while compiling partition " +
                        std::to_string(index);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const std::string &error : errors)
    if (!error.empty())
      return makeError(error);

  CompiledObject result;
  std::vector<std::string> names(compiled.size());
  std::vector<llvm::NewArchiveMember> members;
  for (size_t index = 0; index < compiled.size(); ++index) {
    names[index] = "partition" + std::to_string(index) + ".o";
    if (printOptimizedIR)
      result.optimizedIR += "; ---- partition " + std::to_string(index) +
                            " of " + std::to_string(compiled.size()) +
                            " ----\n" + compiled[index].optimizedIR;
    llvm::NewArchiveMember member;
    member.Buf = llvm::MemoryBuffer::getMemBuffer(compiled[index].object,
                                                  names[index], false);
    member.MemberName = names[index];
    members.push_back(std::move(member));
  }
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> archive =
      llvm::writeArchiveToBuffer(members, llvm::SymtabWritingMode::NormalSymtab,
                                 llvm::object::Archive::K_GNU,
                                 /*Deterministic=*/true, /*Thin=*/false);
  if (!archive)
    return archive.takeError();
  result.object = (*archive)->getBuffer().str();
  return result;
}

unsigned numlir::cpu::getCompileThreads(unsigned requested) {
  return llvm::hardware_concurrency(requested).compute_thread_count();
}

llvm::Expected<CompiledObject>
numlir::cpu::compileLLVMIRForHost(llvm::StringRef llvmIR, unsigned optLevel,
                                   bool unrollLoops, unsigned threads,
                                   bool printOptimizedIR,
                                   unsigned outlineMinInstructions) {
  initializeNativeTarget();
  llvm::LLVMContext context;
  llvm::SMDiagnostic parseError;
  // Text or bitcode: parseIR tells them apart by bitcode's magic number.
  std::unique_ptr<llvm::Module> module = llvm::parseIR(
      llvm::MemoryBufferRef(llvmIR, "llvm-ir"), parseError, context);
  if (!module) {
    std::string message;
    llvm::raw_string_ostream os(message);
    parseError.print("llvm-ir", os);
    return makeError(message);
  }
  std::string verifyMessage;
  llvm::raw_string_ostream verifyStream(verifyMessage);
  if (llvm::verifyModule(*module, &verifyStream))
    return makeError("invalid LLVM IR: " + verifyMessage);
  if (optLevel == 0)
    return compileModule(*module, optLevel, unrollLoops, printOptimizedIR);

  outlineLoopNests(*module, outlineMinInstructions);
  if (module->getInstructionCount() >= outlineMinInstructions)
    outlineStraightLineRuns(*module, kStraightLinePiece);
  specializeInternalFunctions(*module);
  // Each compile thread gets at least twice the outlining threshold: below
  // that, splitting the module costs more than another thread saves.
  unsigned partitionMinInstructions = 2 * std::max(outlineMinInstructions, 1u);
  unsigned partitions =
      std::min(getCompileThreads(threads),
               module->getInstructionCount() / partitionMinInstructions);
  std::vector<llvm::SmallVector<char, 0>> bitcode =
      partitionModule(*module, partitions);
  if (bitcode.empty())
    return compileModule(*module, optLevel, unrollLoops, printOptimizedIR);
  module.reset();
  return compilePartitions(bitcode, optLevel, unrollLoops, printOptimizedIR);
}
