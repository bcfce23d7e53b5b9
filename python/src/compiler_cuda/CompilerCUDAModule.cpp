//===- CompilerCUDAModule.cpp - numlir._compiler_cuda, the CUDA's calls ---===//
//
// The CUDA backend's native call after its pipelines (numlir._compiler):
// the final module's launch program, which python/numlir/_src/backends/
// cuda.py packs into the cuda driver's payload. Failures raise
// numlir._compiler.CompileError, as the generic calls do.
//
//===----------------------------------------------------------------------===//

#include "CompilerSupport.h"

#include "numlir/Backends/CUDA/LaunchProgram.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

using namespace numlir::python;

namespace {

std::tuple<std::string, nb::bytes, nb::bytes> launchProgram(nb::handle source) {
  std::string_view input = bufferOf(source);
  ContextLease ctx(input.size());
  OwningOpRef<ModuleOp> module = parse(*ctx, input, "cuda");
  numlir::cuda::LaunchProgram program;
  std::string error;
  runGuarded("reading the launch program", [&] {
    llvm::Expected<numlir::cuda::LaunchProgram> read =
        numlir::cuda::exportLaunchProgram(*module);
    if (read)
      program = std::move(*read);
    else
      error = llvm::toString(read.takeError());
  });
  if (!error.empty())
    ctx->fail(error);
  ctx.keep();
  return {program.json, nb::bytes(program.module.data(), program.module.size()),
          nb::bytes(program.constants.data(), program.constants.size())};
}

} // namespace

NB_MODULE(_compiler_cuda, m) {
  m.doc() = "numlir's CUDA backend: the launch program of a compiled module";
  importCompileError();
  m.attr("CompileError") = compileErrorType;
  m.def("launch_program", &launchProgram, nb::arg("module"),
        "(json, GPU module bytes, constant bytes) of a module after "
        "cuda-launches-to-ptx: docs/cuda-executable.md");
}
