//===- CompilerModule.cpp - numlir._compiler, the Python extension --------===//
//
// The Python side hands MLIR (text or bytecode) across this boundary and gets
// text, bytecode, LLVM bitcode or object bytes back; nothing MLIR-typed
// crosses it. Between stages that nobody reads (no dump asked for), the
// binary forms save printing and parsing megabytes of text. Every failure
// becomes a CompileError carrying MLIR's diagnostics, never an abort of the
// process.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/ObjectEmitter.h"
#include "numlir/Backends/CPU/SharedObjectLinker.h"
#include "numlir/InitAll.h"
#include "numlir/Pipelines/Pipelines.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/raw_ostream.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <mutex>

namespace nb = nanobind;
using namespace mlir;

namespace {

/// Raised for any diagnostic-producing failure; defined in Python as
/// numlir._compiler.CompileError.
nb::object compileErrorType;

[[noreturn]] void raiseCompileError(const std::string &message) {
  PyErr_SetString(compileErrorType.ptr(), message.c_str());
  throw nb::python_error();
}

/// Runs MLIR/LLVM work so that a crash in it (Debian's LLVM has assertions
/// off, so compiler bugs show as segfaults) raises CompileError instead of
/// killing the Python process. `work` must not throw.
template <typename Work>
void runGuarded(const std::string &what, Work &&work,
                bool releaseGIL = false) {
  static std::once_flag enabled;
  std::call_once(enabled, [] { llvm::CrashRecoveryContext::Enable(); });
  llvm::CrashRecoveryContext recovery;
  bool finished;
  if (releaseGIL) {
    nb::gil_scoped_release released;
    finished = recovery.RunSafely(work);
  } else {
    finished = recovery.RunSafely(work);
  }
  if (!finished)
    raiseCompileError("internal compiler error: numlir crashed while " + what +
                      "; please report it with this compilation's "
                      "NUMLIR_DUMP_DIR files");
}

/// A context with every dialect numlir's stages use, collecting diagnostics
/// as "location: severity: message" lines.
class CompilationContext {
public:
  CompilationContext() : context(makeRegistry()) {
    context.disableMultithreading();
    handlerID = context.getDiagEngine().registerHandler(
        [this](Diagnostic &diag) { record(diag); });
  }
  ~CompilationContext() { context.getDiagEngine().eraseHandler(handlerID); }

  MLIRContext *get() { return &context; }

  [[noreturn]] void fail(const std::string &what) {
    std::string message = what;
    if (!diagnostics.empty())
      message += ":\n" + diagnostics;
    raiseCompileError(message);
  }

  /// A new pass manager of `pipeline`, a named pipeline (hlo-to-cpu, ...) or
  /// pipeline text nested in builtin.module(...). New for every run, not
  /// kept with the context: passes may keep state from one run to the next
  /// (upstream's convert-math-to-funcs keeps the functions it generated,
  /// then finds them freed in the next module).
  std::unique_ptr<PassManager> createPassManager(const std::string &pipeline) {
    auto pm = std::make_unique<PassManager>(&context);
    // Each stage's output is verified as the next stage parses it (the
    // translation verifies the last); a dump's hlo-opt replay verifies after
    // every pass, for finding the pass that broke the IR.
    pm->enableVerifier(false);
    std::string parseErrors;
    llvm::raw_string_ostream errorStream(parseErrors);
    // A named pipeline's text lists passes on the module itself; other text
    // must name its anchor, as in builtin.module(cse).
    std::string named = numlir::getPipelineText(pipeline);
    if (!named.empty()) {
      if (failed(parsePassPipeline(named, *pm, errorStream)))
        raiseCompileError("invalid pass pipeline '" + pipeline +
                          "': " + parseErrors);
      return pm;
    }
    FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, errorStream);
    if (failed(parsed))
      raiseCompileError("invalid pass pipeline '" + pipeline +
                        "': " + parseErrors);
    if (parsed->getOpAnchorName() != ModuleOp::getOperationName())
      raiseCompileError("pass pipeline '" + pipeline +
                        "' must be anchored on builtin.module");
    static_cast<OpPassManager &>(*pm) = std::move(*parsed);
    return pm;
  }

  /// Starts one call's use: its diagnostics are its own.
  void beginUse(size_t inputBytes) {
    diagnostics.clear();
    ++uses;
    bytesSeen += inputBytes;
  }

  /// Whether this context has served long enough to be replaced: everything
  /// uniqued in it (attributes holding constants, locations, types) lives as
  /// long as it does.
  bool isWornOut() const {
    return uses >= kMaxUses || bytesSeen >= kMaxInputBytes;
  }

private:
  static constexpr size_t kMaxUses = 512;
  static constexpr size_t kMaxInputBytes = size_t(256) << 20;

  static DialectRegistry makeRegistry() {
    numlir::registerAllPasses();
    DialectRegistry registry;
    numlir::registerAllDialects(registry);
    return registry;
  }

  /// file:line:col where the location has one (the user's source line for
  /// frontend-emitted ops), else MLIR's printed location.
  static std::string describe(Location loc) {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>())
      os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
         << fileLoc.getColumn();
    else
      os << loc;
    return text;
  }

  void record(Diagnostic &diag) {
    llvm::raw_string_ostream os(diagnostics);
    auto severity = [](DiagnosticSeverity s) {
      switch (s) {
      case DiagnosticSeverity::Error:
        return "error";
      case DiagnosticSeverity::Warning:
        return "warning";
      case DiagnosticSeverity::Note:
        return "note";
      case DiagnosticSeverity::Remark:
        return "remark";
      }
      return "error";
    };
    os << describe(diag.getLocation()) << ": " << severity(diag.getSeverity())
       << ": " << diag << "\n";
    for (Diagnostic &note : diag.getNotes())
      os << "  " << describe(note.getLocation()) << ": note: " << note << "\n";
  }

  MLIRContext context;
  DiagnosticEngine::HandlerID handlerID;
  std::string diagnostics;
  size_t uses = 0;
  size_t bytesSeen = 0;
};

/// The compilation context one call into this module uses. Contexts are kept
/// between calls: creating one and loading a dozen dialects into it cost
/// more than compiling a small op does (an eager op's stages spent about
/// half their time there). A call that fails, or crashes, drops the context
/// it used, so nothing it left half done reaches the next compilation; a
/// worn-out context is replaced.
///
/// Every caller holds the GIL for the whole lease (these calls never release
/// it), so leases never overlap; the mutex makes that an invariant, not an
/// accident of the callers.
class ContextLease {
public:
  explicit ContextLease(size_t inputBytes) : lock(mutex) {
    if (shared && shared->isWornOut())
      drop();
    if (!shared) {
      shared = new CompilationContext();
      ++created;
    }
    shared->beginUse(inputBytes);
  }
  ~ContextLease() {
    if (!succeeded)
      drop();
  }
  ContextLease(const ContextLease &) = delete;
  ContextLease &operator=(const ContextLease &) = delete;

  CompilationContext &operator*() { return *shared; }
  CompilationContext *operator->() { return shared; }

  /// Marks the call as finished; without it the context is dropped.
  void keep() { succeeded = true; }

  /// How many contexts this process has created.
  static size_t getCreatedCount() {
    std::lock_guard<std::mutex> guard(mutex);
    return created;
  }

private:
  static void drop() {
    delete shared;
    shared = nullptr;
  }

  // Never destroyed at exit: the context outliving static destructors of
  // the libraries it uses is harmless, the reverse is not.
  static inline CompilationContext *shared = nullptr;
  static inline std::mutex mutex;
  static inline size_t created = 0;
  std::lock_guard<std::mutex> lock;
  bool succeeded = false;
};

/// The bytes of a Python str (UTF-8) or bytes object, which outlives the view.
std::string_view bufferOf(nb::handle source) {
  if (PyBytes_Check(source.ptr()))
    return {PyBytes_AS_STRING(source.ptr()),
            static_cast<size_t>(PyBytes_GET_SIZE(source.ptr()))};
  if (PyUnicode_Check(source.ptr())) {
    Py_ssize_t size = 0;
    const char *data = PyUnicode_AsUTF8AndSize(source.ptr(), &size);
    if (!data)
      throw nb::python_error();
    return {data, static_cast<size_t>(size)};
  }
  throw nb::type_error("expected MLIR or LLVM IR as str (text) or bytes");
}

/// Parses MLIR text or bytecode (the parser tells them apart by bytecode's
/// magic number).
OwningOpRef<ModuleOp> parse(CompilationContext &ctx, std::string_view text,
                            const std::string &bufferName) {
  ParserConfig config(ctx.get());
  OwningOpRef<ModuleOp> module;
  bool verified = false;
  runGuarded("parsing " + bufferName, [&] {
    module = parseSourceString<ModuleOp>(llvm::StringRef(text), config,
                                         bufferName);
    verified = module && succeeded(verify(*module));
  });
  if (!module)
    ctx.fail("could not parse " + bufferName);
  if (!verified)
    ctx.fail(bufferName + " failed to verify");
  return module;
}

/// The module as text with its locations, or as bytecode (which keeps them).
nb::object print(ModuleOp module, bool bytecode) {
  std::string out;
  llvm::raw_string_ostream os(out);
  bool written = true;
  if (bytecode) {
    runGuarded("writing bytecode",
               [&] { written = succeeded(writeBytecodeToFile(module, os)); });
    if (!written)
      raiseCompileError("could not write the module as MLIR bytecode");
    return nb::bytes(out.data(), out.size());
  }
  OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  runGuarded("printing", [&] { module->print(os, flags); });
  return nb::str(out.data(), out.size());
}

/// Runs `pipeline` (see CompilationContext::createPassManager) on `source`.
nb::object runPipeline(nb::handle source, const std::string &pipeline,
                       const std::string &bufferName, bool bytecode) {
  std::string_view input = bufferOf(source);
  ContextLease ctx(input.size());
  OwningOpRef<ModuleOp> module = parse(*ctx, input, bufferName);
  std::unique_ptr<PassManager> pm = ctx->createPassManager(pipeline);
  bool succeededRun = false;
  runGuarded("running pipeline '" + pipeline + "'",
             [&] { succeededRun = succeeded(pm->run(*module)); });
  if (!succeededRun)
    ctx->fail("pipeline '" + pipeline + "' failed on " + bufferName);
  nb::object output = print(*module, bytecode);
  ctx.keep();
  return output;
}

nb::object translateToLLVMIR(nb::handle source, bool bitcode) {
  std::string_view input = bufferOf(source);
  ContextLease ctx(input.size());
  OwningOpRef<ModuleOp> module = parse(*ctx, input, "llvm-dialect");
  std::string ir, error;
  runGuarded("translating to LLVM IR", [&] {
    llvm::Expected<std::string> translated =
        numlir::cpu::translateToLLVMIR(*module, bitcode);
    if (translated)
      ir = std::move(*translated);
    else
      error = llvm::toString(translated.takeError());
  });
  if (!error.empty())
    ctx->fail(error);
  ctx.keep();
  if (bitcode)
    return nb::bytes(ir.data(), ir.size());
  return nb::str(ir.data(), ir.size());
}

std::tuple<std::string, nb::bytes>
compileLLVMIR(nb::handle source, unsigned optLevel, bool unrollLoops,
              unsigned threads, bool printOptimizedIR,
              unsigned outlineMinInstructions) {
  std::string_view ir = bufferOf(source);
  numlir::cpu::CompiledObject compiled;
  std::string error;
  // LLVM touches no Python object, so other Python threads run meanwhile.
  runGuarded(
      "emitting the object file",
      [&] {
        llvm::Expected<numlir::cpu::CompiledObject> result =
            numlir::cpu::compileLLVMIRForHost(llvm::StringRef(ir), optLevel, unrollLoops,
                                              threads, printOptimizedIR,
                                              outlineMinInstructions);
        if (result)
          compiled = std::move(*result);
        else
          error = llvm::toString(result.takeError());
      },
      /*releaseGIL=*/true);
  if (!error.empty())
    raiseCompileError(error);
  return {compiled.optimizedIR,
          nb::bytes(compiled.object.data(), compiled.object.size())};
}

void linkSharedObject(const std::string &objectPath,
                      const std::string &outputPath, bool stubs) {
  std::string error;
  runGuarded("linking the executable", [&] {
    if (llvm::Error failure =
            numlir::cpu::linkSharedObject(objectPath, outputPath, stubs))
      error = llvm::toString(std::move(failure));
  });
  if (!error.empty())
    raiseCompileError(error);
}

} // namespace

NB_MODULE(_compiler, m) {
  m.doc() = "numlir's native compiler: MLIR text in, stages and objects out";

  nb::object builtins = nb::module_::import_("builtins");
  compileErrorType = nb::borrow(PyErr_NewExceptionWithDoc(
      "numlir._compiler.CompileError",
      "The compiler rejected a module; the message holds MLIR's diagnostics.",
      PyExc_RuntimeError, nullptr));
  m.attr("CompileError") = compileErrorType;

  m.def(
      "verify",
      [](nb::handle text, const std::string &name) {
        std::string_view input = bufferOf(text);
        ContextLease ctx(input.size());
        parse(*ctx, input, name);
        ctx.keep();
      },
      nb::arg("text"), nb::arg("name") = "module",
      "Parses and verifies MLIR text; raises CompileError with diagnostics.");
  m.def("run_pipeline", &runPipeline, nb::arg("text"), nb::arg("pipeline"),
        nb::arg("name") = "module", nb::arg("bytecode") = false,
        "Runs a named pipeline (hlo-optimize, hlo-cpu-to-linalg, "
        "hlo-cpu-to-llvm, hlo-to-cpu) or builtin.module(...) pipeline text "
        "on MLIR (str text or bytes bytecode) and returns the resulting "
        "MLIR: text, or bytecode (bytes) when `bytecode`.");
  m.def("compilation_contexts_created", &ContextLease::getCreatedCount,
        "How many MLIR contexts this process has created for compilations: "
        "one is kept between calls, replaced after a failure and when worn "
        "out (512 uses or 256 MiB of input).");
  m.def("pipeline_text",
        [](const std::string &name) {
          return numlir::getPipelineText(name);
        },
        nb::arg("name"), "The pass pipeline behind a named pipeline.");
  m.def("translate_to_llvm_ir", &translateToLLVMIR, nb::arg("text"),
        nb::arg("bitcode") = false,
        "Translates an LLVM-dialect module (text or bytecode) to LLVM IR: "
        "text, or bitcode (bytes) when `bitcode`.");
  m.def("compile_llvm_ir_for_host", &compileLLVMIR, nb::arg("ir"),
        nb::arg("opt_level") = 3, nb::arg("unroll_loops") = true,
        nb::arg("threads") = 0, nb::arg("print_optimized_ir") = true,
        nb::arg("outline_min_instructions") = 2000,
        "Optimizes LLVM IR (text or bitcode) for this CPU; returns "
        "(optimized_ir, object). "
        "unroll_loops=False leaves loops rolled unless metadata asks; a large "
        "module (its functions' loop nests outlined from outline_min_instructions "
        "up) compiles on up to `threads` threads (0: every core) into an "
        "ar archive of one object per partition; optimized_ir is empty "
        "unless print_optimized_ir.");
  m.def("link_shared_object", &linkSharedObject, nb::arg("object_path"),
        nb::arg("output_path"), nb::arg("stubs") = true,
        "Links an object file into a shared object with lld, in-process; "
        "with `stubs`, against stand-ins for libc, libm and libomp that "
        "define only the functions executables call (the same output, "
        "without reading the real libraries' symbol tables).");
  m.def("linker_counts", []() {
    numlir::cpu::LinkerCounts counts = numlir::cpu::getLinkerCounts();
    return std::make_tuple(counts.stubLinks, counts.stubBuilds);
  }, "(links against stubs, stub builds) in this process so far.");
  m.def("host_target", []() {
    numlir::cpu::HostTarget host = numlir::cpu::getHostTarget();
    return std::make_tuple(host.triple, host.cpu, host.features);
  }, "(triple, cpu, features) of this machine.");
}
