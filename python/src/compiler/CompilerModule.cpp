//===- CompilerModule.cpp - numlir._compiler, the Python extension --------===//
//
// The target-independent compiler calls: parse and verify, run a named
// pipeline or pipeline text, and the named pipelines' text. Between stages
// that nobody reads (no dump asked for), MLIR bytecode saves printing and
// parsing megabytes of text. A backend's own calls (object code, linking)
// live in its module: numlir._compiler_cpu for the CPU
// (python/src/compiler_cpu/).
//
//===----------------------------------------------------------------------===//

#include "CompilerSupport.h"

#include "numlir/Target/StableHLO.h"

#include <nanobind/stl/string.h>

using namespace numlir::python;

namespace {

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

/// `source` (hlo) written as StableHLO for PJRT (numlir/Target/StableHLO.h).
std::string translateToStableHLO(nb::handle source,
                                 const std::string &bufferName) {
  std::string_view input = bufferOf(source);
  ContextLease ctx(input.size());
  OwningOpRef<ModuleOp> module = parse(*ctx, input, bufferName);
  std::string text;
  llvm::raw_string_ostream os(text);
  bool translated = false;
  runGuarded("translating to StableHLO", [&] {
    translated = succeeded(numlir::translateToStableHLO(*module, os));
  });
  if (!translated)
    ctx->fail("translating " + bufferName + " to StableHLO failed");
  ctx.keep();
  return text;
}

} // namespace

NB_MODULE(_compiler, m) {
  m.doc() = "numlir's native compiler: MLIR in, pipeline stages out";

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
        "Runs a named pipeline (hlo-optimize, hlo-fuse, hlo-cpu-to-linalg, "
        "hlo-cpu-to-llvm, hlo-to-cpu) or builtin.module(...) pipeline text, "
        "such as builtin.module(hlo-cpu-to-llvm{threads=2}), "
        "on MLIR (str text or bytes bytecode) and returns the resulting "
        "MLIR: text, or bytecode (bytes) when `bytecode`.");
  m.def("translate_to_stablehlo", &translateToStableHLO, nb::arg("text"),
        nb::arg("name") = "module",
        "Writes an hlo module (str text or bytes bytecode) as StableHLO and "
        "CHLO in MLIR's generic form, for PJRT; raises CompileError naming "
        "the first op without a translation.");
  m.def("compilation_contexts_created", &ContextLease::getCreatedCount,
        "How many MLIR contexts this process has created for compilations: "
        "one is kept between calls, replaced after a failure and when worn "
        "out (512 uses or 256 MiB of input).");
  m.def("pipeline_text",
        [](const std::string &name) {
          return numlir::getPipelineText(name);
        },
        nb::arg("name"), "The pass pipeline behind a named pipeline.");
}
