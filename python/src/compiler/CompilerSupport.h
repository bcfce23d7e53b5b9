//===- CompilerSupport.h - what numlir's compiler modules share -*- C++ -*-===//
//
// The Python side hands MLIR (text or bytecode) across the boundary of each
// compiler module (numlir._compiler, and a backend's own, such as
// numlir._compiler_cpu) and gets text, bytecode, LLVM bitcode or object
// bytes back; nothing MLIR-typed crosses it. Every failure becomes a
// CompileError carrying MLIR's diagnostics, never an abort of the process.
// This header gives a module the kept MLIR context, parsing and printing,
// and the guard that turns a crash into a CompileError; each module that
// includes it keeps its own context.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_PYTHON_COMPILERSUPPORT_H
#define NUMLIR_PYTHON_COMPILERSUPPORT_H

#include "GuardedThreadPool.h"

#include "numlir/InitAll.h"
#include "numlir/Pipelines/Pipelines.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinOps.h"
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

#include <mutex>
#include <string>
#include <string_view>

namespace numlir::python {

namespace nb = nanobind;
using namespace mlir;

/// Raised for any diagnostic-producing failure: numlir._compiler.CompileError,
/// which every compiler module raises.
inline nb::object compileErrorType;

[[noreturn]] inline void raiseCompileError(const std::string &message) {
  PyErr_SetString(compileErrorType.ptr(), message.c_str());
  throw nb::python_error();
}

/// Runs MLIR/LLVM work so that a crash in it (Debian's LLVM has assertions
/// off, so compiler bugs show as segfaults), on this thread or on one of
/// compilePool()'s, raises CompileError instead of killing the Python
/// process. `work` must not throw.
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
  // Both calls run: a crash on a worker must not outlive this call.
  finished = !compilePool().takeCrash() && finished;
  if (!finished)
    raiseCompileError("internal compiler error: numlir crashed while " + what +
                      "; please report it with this compilation's "
                      "NUMLIR_DUMP_DIR files");
}

/// A context with every dialect numlir's stages use, collecting diagnostics
/// as "location: severity: message" lines. Passes nested on functions run
/// on compilePool()'s threads, one function per thread at a time.
class CompilationContext {
public:
  CompilationContext()
      : context(makeRegistry(), MLIRContext::Threading::DISABLED) {
    context.setThreadPool(compilePool());
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
inline std::string_view bufferOf(nb::handle source) {
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
inline OwningOpRef<ModuleOp> parse(CompilationContext &ctx, std::string_view text,
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
inline nb::object print(ModuleOp module, bool bytecode) {
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

/// Sets compileErrorType to numlir._compiler.CompileError, for a module
/// other than numlir._compiler itself.
inline void importCompileError() {
  compileErrorType =
      nb::module_::import_("numlir._compiler").attr("CompileError");
}

} // namespace numlir::python

#endif // NUMLIR_PYTHON_COMPILERSUPPORT_H
