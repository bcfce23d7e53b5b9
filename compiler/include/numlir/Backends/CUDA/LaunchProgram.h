//===- LaunchProgram.h - a CUDA module's launch program, as data -*- C++ -*-===//
//
// After cuda-launches-to-ptx, the entry function of a CUDA module is its
// launch program: buffers (arguments, allocations, globals), kernel
// launches with constant grids and one pointer per buffer, and copies.
// exportLaunchProgram reads it into what the runtime's cuda driver runs
// (docs/cuda-executable.md): the Python side packs it.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BACKENDS_CUDA_LAUNCHPROGRAM_H
#define NUMLIR_BACKENDS_CUDA_LAUNCHPROGRAM_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace numlir::cuda {

struct LaunchProgram {
  /// {"signature", "num_inputs", "num_outputs", "module_format", "buffers":
  /// [{"kind", "index", "size", "offset"}], "kernels": [{"name",
  /// "num_params"}], "steps": [{"kind": "launch", "kernel", "grid",
  /// "block", "args": [[buffer, byte_offset]]} | {"kind": "copy", "source",
  /// "destination", "bytes"}]}
  std::string json;
  /// The GPU module: PTX text, or a cubin.
  std::string module;
  /// Constant buffers' bytes, at their "offset"s.
  std::string constants;
};

/// Reads the launch program of `module`'s one public function and its one
/// gpu.binary; an error names what it cannot express.
llvm::Expected<LaunchProgram> exportLaunchProgram(mlir::ModuleOp module);

} // namespace numlir::cuda

#endif // NUMLIR_BACKENDS_CUDA_LAUNCHPROGRAM_H
