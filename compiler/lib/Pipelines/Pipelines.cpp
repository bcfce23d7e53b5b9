//===- Pipelines.cpp - numlir's named pass pipelines ----------------------===//
//
// Pipelines are written as pass-pipeline text, exactly what a compiler
// engineer would pass to hlo-opt, so a dumped stage replays with
// `hlo-opt --pass-pipeline=...` without translating C++ into flags. The CPU
// pipelines' options (Pipelines.h) go into the text as the options of the
// passes that read them.
//
//===----------------------------------------------------------------------===//

#include "numlir/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using numlir::CPUToLinalgOptions;
using numlir::CPUToLLVMOptions;
using numlir::CUDAToLaunchesOptions;
using numlir::CUDAToPTXOptions;

namespace {

constexpr llvm::StringLiteral kOptimize =
    "func.func(hlo-simplify,hlo-widen-accumulation),canonicalize,cse";

// The target-independent stage from hlo to fused hlo: each hlo.fusion is a
// kernel for a backend that compiles one per fusion. The CPU backend runs
// kOptimize alone and fuses later, in linalg and in loops
// (docs/compiler-stages.md says why); its lowering inlines the fusions of a
// module that has them.
constexpr llvm::StringLiteral kFuse = "func.func(hlo-fusion)";

// Transposed convolutions run as one convolution per output phase, which
// skips the products with their inserted zeros, and convolutions read
// their kernels as HWIO (hlo-assign-layouts), the order the CPU's
// convolution kernels vectorize along. Elementwise ops fuse into
// their consumers except where fusion would recompute them (into
// contractions), which CPU vectorization then tiles.
// Long reductions to a few outputs are split into partial reductions (which
// the threads share; see cpu-parallelize-loops below), and short float sums
// and products are then combined pairwise, as a tree.
// The CPU backend does not compile hlo-fusion's groups as kernels: a module
// that has them (from hlo-fuse) is inlined back into ops.
std::string cpuToLinalg(const CPUToLinalgOptions &options) {
  return "hlo-record-abi-signature,"
         "func.func(hlo-inline-fusions,hlo-split-transposed-convolutions,"
         "hlo-assign-layouts),cse,"
         "convert-hlo-to-linalg,"
         "func.func(cpu-fuse-elementwise-ops,"
         "cpu-split-reductions{min-reduction=" +
         std::to_string(options.minIterations) +
         "},"
         "cpu-tree-short-reductions),"
         "canonicalize,cse";
}

// Optimization barriers have kept tensor-level CSE and fusion from merging
// recomputations with the values they repeat; nothing merges linalg ops on
// buffers, so they are erased just before bufferization (which does not know
// them).
// Complex arithmetic expands into float arithmetic on the parts once the
// loops exist (convert-complex-to-standard), so the math passes below see
// it; building and taking apart complex values lowers with the rest
// (cpu-convert-to-llvm).
// Math and bf16 arithmetic run in f32, and every conversion to bf16 is
// integer arithmetic: otherwise LLVM calls __truncsfbf2/__truncdfbf2 (on
// CPUs without AVX-512 BF16) from the C compiler's runtime library, which
// gcc 12's libgcc lacks.
// Each use of an empty tensor gets its own (unshare-empty-tensors): CSE had
// made one empty tensor the destination of every op of its shape, one alias
// set that bufferization's pairwise analysis took quadratic time on.
// Bufferize with identity layouts at the function boundary so every
// argument is a dense row-major buffer, turn results into caller-provided
// out-params (writing into them directly where the result was a fresh
// allocation), free the buffers (the deallocation pipeline, where each
// buffer that nothing else can alias gets a dealloc of its own before the
// simplification compares the rest pairwise: split-unaliased-deallocs),
// add the runtime's C entry point, then lower to LLVM. Loops
// lowered from hlo.while may carry fresh buffers from one iteration to the
// next (allow-return-allocs-from-loops). Float convolutions become loops
// over their kernel taps around contractions (cpu-convolution-taps), and
// float contractions become register-tiled FMA loops on vectors; every other linalg op becomes scalar
// loops that LLVM vectorizes; before that, runs of row-local ops (softmax,
// layer norm) run row tile by row tile (cpu-fuse-row-loops), so their data
// crosses DRAM once, not once per op, and each loop nest becomes a function
// of its buffers, one per distinct loop nest, called from each place it
// occurred (cpu-share-kernels), so the kernel passes and LLVM build it once,
// its buffers are noalias, and a deep network's entry function is a line of
// calls. The passes nested on functions run on the compile threads, so
// every function-local step of the final lowering is nested. Once nothing asks any more
// whether two buffers are distinct allocations, a donated argument's output
// (jit's donate_argnums: the runtime passes one buffer as both) is written
// only after the argument's last use (alias-donated-buffers), and the
// temporaries get offsets
// in one arena from their live ranges (assign-buffers), so buffers that
// are never live together share memory. Heap buffers are allocated through the
// runtime's allocator table (cpu-emit-c-entry-point), so that a failed
// allocation is an error, not a crash; aligned allocations request the
// buffer's exact size, which the runtime's message reports. The last
// conversions (memref, arith, func, cf, index, ub, omp) run as one
// (cpu-convert-to-llvm): one walk of the module instead of seven.
std::string cpuToLLVM(const CPUToLLVMOptions &options) {
  std::string threads = "threads=" + std::to_string(options.threads);
  std::string minIterations =
      "min-iterations=" + std::to_string(options.minIterations);
  return "hlo-erase-optimization-barriers,"
         "func.func(cpu-copy-repeated-results,cpu-order-loops),"
         "unshare-empty-tensors,"
         "one-shot-bufferize{bufferize-function-boundaries "
         "allow-return-allocs-from-loops "
         "function-boundary-type-conversion=identity-layout-map},"
         "buffer-results-to-out-params{hoist-static-allocs "
         "modify-public-functions add-result-attr},"
         "expand-realloc{emit-deallocs=false},canonicalize,"
         "ownership-based-buffer-deallocation,canonicalize,"
         "split-unaliased-deallocs,buffer-deallocation-simplification,"
         "bufferization-lower-deallocations,cse,canonicalize,"
         "cpu-emit-c-entry-point,"
         "func.func(cpu-strided-copies-to-loops,"
         "cpu-fuse-row-loops{" +
         threads + " min-bytes=" + std::to_string(options.rowFusionMinBytes) +
         "}),"
         "cpu-share-kernels,"
         "func.func(cpu-parallelize-loops{" +
         threads + " " + minIterations +
         "},cpu-convolution-taps,cpu-vectorize-contractions),"
         "alias-donated-buffers,"
         "assign-buffers{max-buffer-bytes=" +
         std::to_string(options.arenaMaxBufferBytes) +
         "},"
         "func.func(convert-linalg-to-loops,convert-complex-to-standard,"
         "math-extend-to-supported-types{target-type=f32},"
         "cpu-round-before-discontinuities,cpu-approximate-math,"
         "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
         "cpu-round-before-discontinuities,"
         "cpu-expand-float-conversions,cpu-expand-arith,"
         "convert-vector-to-scf{full-unroll target-rank=1},"
         "expand-strided-metadata,lower-affine),"
         "convert-scf-to-openmp,func.func(canonicalize),convert-math-to-funcs,"
         "func.func(convert-scf-to-cf,convert-vector-to-llvm,"
         "convert-math-to-llvm),"
         "convert-math-to-libm,cpu-convert-to-llvm,reconcile-unrealized-casts,"
         "llvm.func(cpu-store-bf16-as-i16,canonicalize)";
}

std::string cpuToCPU(const CPUToLLVMOptions &options) {
  CPUToLinalgOptions linalg;
  linalg.minIterations = options.minIterations;
  return kOptimize.str() + "," + cpuToLinalg(linalg) + "," + cpuToLLVM(options);
}

// The CUDA backend compiles one kernel per hlo.fusion: each fusion (and
// each op outside one) becomes a private function, which the
// target-independent lowering and bufferization turn into linalg ops on
// buffers, and cuda-map-kernels-to-launches into one gpu.launch. The
// kernel functions are then inlined, leaving the entry function as the
// launch program: allocations, launches, copies and globals
// (docs/cuda-backend.md).
std::string cudaToLaunches(const CUDAToLaunchesOptions &options) {
  // Transposed convolutions skip the zeros their dilation inserts (jax's
  // values at infinite taps), as on the CPU.
  return kOptimize.str() + ",func.func(hlo-split-transposed-convolutions)," +
         kFuse.str() +
         ",func.func(hlo-erase-optimization-barriers),"
         "hlo-record-abi-signature,cuda-outline-fusions,"
         // fusions inside a control-flow op's regions run within its kernel
         "func.func(hlo-inline-fusions),"
         "convert-hlo-to-linalg,"
         "func.func(linalg-generalize-named-ops,linalg-fuse-elementwise-ops),"
         "canonicalize,cse,"
         "one-shot-bufferize{bufferize-function-boundaries "
         "allow-return-allocs-from-loops "
         "function-boundary-type-conversion=identity-layout-map},"
         "cuda-deduplicate-kernel-results,"
         "buffer-results-to-out-params{hoist-static-allocs "
         "modify-public-functions add-result-attr},"
         "canonicalize,"
         "cuda-map-kernels-to-launches{block-size=" +
         std::to_string(options.blockSize) +
         " tile-size=" + std::to_string(options.tileSize) +
         "},"
         "inline,symbol-dce,canonicalize,cse,"
         "func.func(cuda-write-results-in-place)";
}

// Launches become kernels in a gpu.module (upstream's outlining), which
// upstream's NVVM lowering turns into PTX. Kernels take one pointer per
// buffer (the bare-pointer convention): their shapes are static, and the
// runtime's launch program passes addresses (docs/cuda-executable.md).
std::string cudaLaunchesToPTX(const CUDAToPTXOptions &options) {
  std::string link =
      options.libdevice.empty() ? "" : " l=" + options.libdevice.getValue();
  return "gpu-launch-sink-index-computations,gpu-kernel-outlining,"
         "cuda-merge-kernel-modules,"
         "nvvm-attach-target{chip=" + options.chip.getValue() +
         " features=" + options.features.getValue() +
         " O=" + std::to_string(options.optLevel) + link +
         "},"
         "gpu.module(convert-linalg-to-loops,expand-strided-metadata,"
         "lower-affine,"
         "convert-complex-to-standard,convert-scf-to-cf,"
         "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=true},"
         "canonicalize,cse,reconcile-unrealized-casts),"
         "gpu-module-to-binary{format=isa}";
}

std::string cudaToPTX(const CUDAToPTXOptions &options) {
  CUDAToLaunchesOptions launches;
  launches.blockSize = options.blockSize;
  launches.tileSize = options.tileSize;
  return cudaToLaunches(launches) + "," + cudaLaunchesToPTX(options);
}

/// Builds `text` into `pm`. The texts are fixed at build time but for the
/// options' numbers, and covered by lit tests, so a parse failure is a
/// numlir bug, reported by the parser.
void addPipeline(OpPassManager &pm, const std::string &text) {
  (void)parsePassPipeline(text, pm);
}

/// The one table of named pipelines: hlo-opt registers these names and the
/// Python extension looks them up. `text` gives the pipeline with default
/// options; `registerWithOptions` registers one that takes options.
struct NamedPipeline {
  llvm::StringLiteral name, summary;
  std::string (*text)();
  void (*registerWithOptions)(llvm::StringRef name, llvm::StringRef summary);
};

template <typename Options, std::string (*Build)(const Options &)>
std::string defaultText() {
  return Build(Options());
}

/// The options' values that no pass of the pipeline accepts, as an error
/// naming the pipeline; "" when they are fine. Checked when the pipeline is
/// built, before any pass runs.
std::string checkOptions(llvm::StringRef name, const CPUToLinalgOptions &o) {
  if (o.minIterations >= 1)
    return "";
  return (name + " needs min-iterations >= 1, got " +
          llvm::Twine(o.minIterations))
      .str();
}

std::string checkOptions(llvm::StringRef name, const CPUToLLVMOptions &o) {
  if (o.threads >= 0 && o.minIterations >= 1 && o.rowFusionMinBytes >= -1 &&
      o.arenaMaxBufferBytes >= 0)
    return "";
  return (name +
          " needs threads >= 0, min-iterations >= 1, row-fusion-min-bytes "
          ">= -1 and arena-max-buffer-bytes >= 0, got threads=" +
          llvm::Twine(o.threads) + " min-iterations=" +
          llvm::Twine(o.minIterations) + " row-fusion-min-bytes=" +
          llvm::Twine(o.rowFusionMinBytes) +
          " arena-max-buffer-bytes=" + llvm::Twine(o.arenaMaxBufferBytes))
      .str();
}

std::string checkOptions(llvm::StringRef name,
                         const CUDAToLaunchesOptions &o) {
  int64_t tileThreads = o.tileSize * o.tileSize;
  if (o.blockSize >= 32 && o.blockSize <= 1024 && o.blockSize % 32 == 0 &&
      o.tileSize >= 0 && tileThreads <= 1024 && tileThreads % 32 == 0)
    return "";
  return (name + " needs a block-size that is a multiple of 32 from 32 to "
                 "1024 and a tile-size whose square is such a multiple (or 0), "
                 "got block-size=" +
          llvm::Twine(o.blockSize) + " tile-size=" + llvm::Twine(o.tileSize))
      .str();
}

std::string checkOptions(llvm::StringRef name, const CUDAToPTXOptions &o) {
  CUDAToLaunchesOptions launches;
  launches.blockSize = o.blockSize;
  launches.tileSize = o.tileSize;
  std::string error = checkOptions(name, launches);
  if (!error.empty())
    return error;
  if (!llvm::StringRef(o.chip).starts_with("sm_"))
    return (name + " needs a chip such as sm_90, got '" + o.chip + "'").str();
  if (o.optLevel < 0 || o.optLevel > 3)
    return (name + " needs opt-level from 0 to 3, got " +
            llvm::Twine(o.optLevel))
        .str();
  return "";
}

template <typename Options, std::string (*Build)(const Options &)>
void registerWithOptions(llvm::StringRef name, llvm::StringRef summary) {
  registerPassPipeline(
      name, summary,
      [name](OpPassManager &pm, llvm::StringRef text,
             llvm::function_ref<LogicalResult(const llvm::Twine &)> fail) {
        Options options;
        if (failed(options.parseFromString(text)))
          return fail("invalid options of " + name + ": '" + text + "'");
        std::string error = checkOptions(name, options);
        if (!error.empty())
          return fail(error);
        addPipeline(pm, Build(options));
        return success();
      },
      [](llvm::function_ref<void(const detail::PassOptions &)> print) {
        print(Options());
      });
}

llvm::ArrayRef<NamedPipeline> namedPipelines() {
  static const NamedPipeline pipelines[] = {
      {"hlo-optimize", "Target-independent simplification of hlo",
       [] { return kOptimize.str(); }, nullptr},
      {"hlo-fuse",
       "Target-independent: hlo-optimize, then hlo-fusion's kernels",
       [] { return (kOptimize + "," + kFuse).str(); }, nullptr},
      {"hlo-cpu-to-linalg", "Lower hlo to fused linalg on tensors",
       defaultText<CPUToLinalgOptions, cpuToLinalg>,
       registerWithOptions<CPUToLinalgOptions, cpuToLinalg>},
      {"hlo-cpu-to-llvm",
       "Bufferize linalg, add the C entry point and lower to LLVM",
       defaultText<CPUToLLVMOptions, cpuToLLVM>,
       registerWithOptions<CPUToLLVMOptions, cpuToLLVM>},
      {"hlo-to-cpu", "Lower hlo to the LLVM dialect for the host CPU",
       defaultText<CPUToLLVMOptions, cpuToCPU>,
       registerWithOptions<CPUToLLVMOptions, cpuToCPU>},
      {"hlo-cuda-to-launches",
       "Lower hlo to one gpu.launch per fusion, on buffers",
       defaultText<CUDAToLaunchesOptions, cudaToLaunches>,
       registerWithOptions<CUDAToLaunchesOptions, cudaToLaunches>},
      {"cuda-launches-to-ptx",
       "Outline gpu.launch ops into kernels and compile them to PTX",
       defaultText<CUDAToPTXOptions, cudaLaunchesToPTX>,
       registerWithOptions<CUDAToPTXOptions, cudaLaunchesToPTX>},
      {"cuda-emulate-on-host",
       "Run gpu.launch bodies as host loops (a test path for CUDA kernels)",
       [] {
         // Linalg ops left in one-thread kernels become loops as in
         // cuda-launches-to-ptx, before the CPU's passes see them.
         return std::string("func.func(cuda-emulate-launches-on-host,"
                            "convert-linalg-to-loops),canonicalize,cse");
       },
       nullptr},
      {"hlo-to-cuda",
       "Lower hlo to a launch program and PTX for an NVIDIA GPU",
       defaultText<CUDAToPTXOptions, cudaToPTX>,
       registerWithOptions<CUDAToPTXOptions, cudaToPTX>},
  };
  return pipelines;
}

} // namespace

std::string numlir::getPipelineText(llvm::StringRef name) {
  for (const NamedPipeline &pipeline : namedPipelines())
    if (pipeline.name == name)
      return pipeline.text();
  return "";
}

void numlir::registerPipelines() {
  for (const NamedPipeline &pipeline : namedPipelines()) {
    if (pipeline.registerWithOptions) {
      pipeline.registerWithOptions(pipeline.name, pipeline.summary);
      continue;
    }
    // Upstream's option-less registration fails without saying why.
    llvm::StringRef name = pipeline.name;
    std::string text = pipeline.text();
    registerPassPipeline(
        name, pipeline.summary,
        [name, text](OpPassManager &pm, llvm::StringRef options,
                     llvm::function_ref<LogicalResult(const llvm::Twine &)> fail) {
          if (!options.empty())
            return fail(name + " takes no options, got '" + options + "'");
          addPipeline(pm, text);
          return success();
        },
        [](llvm::function_ref<void(const detail::PassOptions &)>) {});
  }
}
