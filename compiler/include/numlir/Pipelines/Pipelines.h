//===- Pipelines.h - numlir's named pass pipelines --------------*- C++ -*-===//
//
// The named pipelines are the stages every backend is built from; hlo-opt
// and the Python extension see the same names, from the one table in
// lib/Pipelines/Pipelines.cpp. Target-independent: hlo-optimize, and
// hlo-fuse (hlo-optimize, then hlo-fusion's kernel boundaries). The CPU's:
// hlo-cpu-to-linalg, hlo-cpu-to-llvm, and hlo-to-cpu, which runs
// hlo-optimize and both. The CPU pipelines take typed options
// (`hlo-opt --hlo-cpu-to-llvm="threads=2 min-iterations=1024"`, or
// `hlo-cpu-to-llvm{threads=2}` in pipeline text); docs/compiler-stages.md.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_PIPELINES_PIPELINES_H
#define NUMLIR_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace numlir {

/// Options of hlo-cpu-to-linalg.
struct CPUToLinalgOptions : mlir::PassPipelineOptions<CPUToLinalgOptions> {
  Option<int64_t> minIterations{
      *this, "min-iterations",
      llvm::cl::desc("The shortest reduction to a few outputs that is split "
                     "into partial reductions for the threads, in loop "
                     "iterations (cpu-split-reductions' min-reduction)"),
      llvm::cl::init(131072)};
};

/// Options of hlo-cpu-to-llvm and hlo-to-cpu. Each pass checks its own
/// setting: a bad value is that pass's error.
struct CPUToLLVMOptions : mlir::PassPipelineOptions<CPUToLLVMOptions> {
  Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Chunks a large op is split into for the threads, and "
                     "row tiles' chunks (0: the compiling host's cores; 1 "
                     "splits nothing)"),
      llvm::cl::init(0)};
  Option<int64_t> minIterations{
      *this, "min-iterations",
      llvm::cl::desc("The smallest op split across threads, in iterations of "
                     "its loop nest (cpu-parallelize-loops); hlo-to-cpu also "
                     "gives it to hlo-cpu-to-linalg"),
      llvm::cl::init(131072)};
  Option<int64_t> rowFusionMinBytes{
      *this, "row-fusion-min-bytes",
      llvm::cl::desc("The smallest run of row-local ops run row tile by row "
                     "tile, in bytes it reads and writes by rows "
                     "(cpu-fuse-row-loops' min-bytes); -1 turns that off"),
      llvm::cl::init(1 << 20)};
  Option<int64_t> arenaMaxBufferBytes{
      *this, "arena-max-buffer-bytes",
      llvm::cl::desc("The largest temporary given an offset in the arena "
                     "(assign-buffers' max-buffer-bytes); 0 places none"),
      llvm::cl::init(int64_t(64) << 20)};
};

/// Options of hlo-cuda-to-launches.
struct CUDAToLaunchesOptions
    : mlir::PassPipelineOptions<CUDAToLaunchesOptions> {
  Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block (cuda-map-kernels-to-launches)"),
      llvm::cl::init(256)};
  Option<int64_t> tileSize{
      *this, "tile-size",
      llvm::cl::desc("Output tile side of contractions through shared memory "
                     "(cuda-map-kernels-to-launches; 0: untiled)"),
      llvm::cl::init(16)};
};

/// Options of cuda-launches-to-ptx and hlo-to-cuda: the target chip and
/// what its code links.
struct CUDAToPTXOptions : mlir::PassPipelineOptions<CUDAToPTXOptions> {
  Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block (hlo-to-cuda gives it to "
                     "hlo-cuda-to-launches)"),
      llvm::cl::init(256)};
  Option<int64_t> tileSize{
      *this, "tile-size",
      llvm::cl::desc("Output tile side of contractions (hlo-to-cuda gives it "
                     "to hlo-cuda-to-launches; 0: untiled)"),
      llvm::cl::init(16)};
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("The GPU architecture (sm_80, sm_90)"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features: the PTX ISA version (+ptx80)"),
      llvm::cl::init("+ptx80")};
  Option<std::string> libdevice{
      *this, "libdevice",
      llvm::cl::desc("Path of libdevice.10.bc, which math functions link "
                     "(nvidia-nvvm's or a CUDA toolkit's)"),
      llvm::cl::init("")};
  Option<int64_t> optLevel{*this, "opt-level",
                           llvm::cl::desc("LLVM optimization level of kernels"),
                           llvm::cl::init(3)};
};

/// The textual pass pipeline (nested in builtin.module) behind a named
/// pipeline with its default options, or an empty string if there is none
/// by that name.
std::string getPipelineText(llvm::StringRef name);

/// Registers the named pipelines with MLIR's pass registry.
void registerPipelines();

} // namespace numlir

#endif // NUMLIR_PIPELINES_PIPELINES_H
