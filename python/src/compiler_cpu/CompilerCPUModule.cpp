//===- CompilerCPUModule.cpp - numlir._compiler_cpu, the CPU's calls ------===//
//
// The CPU backend's native calls, after its pipelines (numlir._compiler):
// the LLVM-dialect module to LLVM IR, LLVM IR to an object for this host,
// and the object linked into a shared object with lld in-process. The
// stage functions of python/numlir/_src/backends/cpu.py call them; failures
// raise numlir._compiler.CompileError, as the generic calls do.
//
//===----------------------------------------------------------------------===//

#include "CompilerSupport.h"

#include "numlir/Backends/CPU/ObjectEmitter.h"
#include "numlir/Backends/CPU/SharedObjectLinker.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

using namespace numlir::python;

namespace {

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

NB_MODULE(_compiler_cpu, m) {
  m.doc() = "numlir's CPU backend: LLVM IR, object code and linking for this host";
  importCompileError();
  m.attr("CompileError") = compileErrorType;

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
