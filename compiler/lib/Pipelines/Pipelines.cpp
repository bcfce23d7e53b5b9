//===- Pipelines.cpp - numlir's named pass pipelines ----------------------===//
//
// Pipelines are written as pass-pipeline text, exactly what a compiler
// engineer would pass to hlo-opt, so a dumped stage replays with
// `hlo-opt --pass-pipeline=...` without translating C++ into flags.
//
//===----------------------------------------------------------------------===//

#include "numlir/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/ArrayRef.h"

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kOptimize =
    "func.func(hlo-simplify,hlo-widen-accumulation),canonicalize,cse";

// Transposed convolutions run as one convolution per output phase, which
// skips the products with their inserted zeros, and convolutions read
// their kernels as HWIO (hlo-assign-layouts), the order the CPU's
// convolution kernels vectorize along. Elementwise ops fuse into
// their consumers except where fusion would recompute them (into
// contractions), which CPU vectorization then tiles.
// Long reductions to a few outputs are split into partial reductions (which
// the threads share; see cpu-parallelize-loops below), and short float sums
// and products are then combined pairwise, as a tree.
// The CPU backend does not compile hlo-fusion's groups as kernels yet: a
// module that has them (from hlo-opt --hlo-fusion) is inlined back into ops.
constexpr llvm::StringLiteral kCPUToLinalg =
    "cpu-record-abi-signature,"
    "func.func(hlo-inline-fusions,hlo-split-transposed-convolutions,"
    "hlo-assign-layouts),cse,"
    "convert-hlo-to-linalg,"
    "func.func(cpu-fuse-elementwise-ops,cpu-split-reductions,"
    "cpu-tree-short-reductions),"
    "canonicalize,cse";

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
// Bufferize with identity layouts at the function boundary so every
// argument is a dense row-major buffer, turn results into caller-provided
// out-params (writing into them directly where the result was a fresh
// allocation), add the runtime's C entry point, then lower to LLVM. Loops
// lowered from hlo.while may carry fresh buffers from one iteration to the
// next (allow-return-allocs-from-loops). Float convolutions become loops
// over their kernel taps around contractions (cpu-convolution-taps), and
// float contractions become register-tiled FMA loops on vectors; every other linalg op becomes scalar
// loops that LLVM vectorizes; before that, runs of row-local ops (softmax,
// layer norm) run row tile by row tile (cpu-fuse-row-loops), so their data
// crosses DRAM once, not once per op, and a contraction that occurs several
// times becomes one function called from each place (cpu-share-kernels), so
// the kernel passes and LLVM build it once. Once nothing asks any more
// whether two buffers are distinct allocations, a donated argument's output
// (jit's donate_argnums: the runtime passes one buffer as both) is written
// only after the argument's last use (cpu-alias-donated-buffers), and the
// temporaries get offsets
// in one arena from their live ranges (cpu-assign-buffers), so buffers that
// are never live together share memory. Heap buffers are allocated through the
// runtime's allocator table (cpu-emit-c-entry-point), so that a failed
// allocation is an error, not a crash; aligned allocations request the
// buffer's exact size, which the runtime's message reports. The last
// conversions (memref, arith, func, cf, index, ub, omp) run as one
// (cpu-convert-to-llvm): one walk of the module instead of seven.
constexpr llvm::StringLiteral kCPUToLLVM =
    "hlo-erase-optimization-barriers,"
    "func.func(cpu-copy-repeated-results,cpu-order-loops),one-shot-bufferize{bufferize-function-boundaries "
    "allow-return-allocs-from-loops "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{hoist-static-allocs "
    "modify-public-functions add-result-attr},"
    "buffer-deallocation-pipeline,canonicalize,"
    "cpu-emit-c-entry-point,"
    "func.func(cpu-strided-copies-to-loops,cpu-fuse-row-loops),"
    "cpu-share-kernels,"
    "func.func(cpu-parallelize-loops,cpu-convolution-taps,cpu-vectorize-contractions),"
    "cpu-alias-donated-buffers,cpu-assign-buffers,"
    "func.func(convert-linalg-to-loops,convert-complex-to-standard,"
    "math-extend-to-supported-types{target-type=f32},"
    "cpu-approximate-math,"
    "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
    "cpu-expand-float-conversions,cpu-expand-arith,"
    "convert-vector-to-scf{full-unroll target-rank=1}),"
    "expand-strided-metadata,lower-affine,convert-scf-to-openmp,canonicalize,"
    "convert-math-to-funcs,convert-scf-to-cf,convert-vector-to-llvm,"
    "convert-math-to-llvm,convert-math-to-libm,cpu-convert-to-llvm,"
    "reconcile-unrealized-casts,cpu-store-bf16-as-i16,canonicalize";

/// The one table of named pipelines: hlo-opt registers these names and the
/// Python extension looks them up.
struct NamedPipeline {
  llvm::StringLiteral name, summary;
  std::string text;
};

llvm::ArrayRef<NamedPipeline> namedPipelines() {
  static const NamedPipeline pipelines[] = {
      {"hlo-optimize", "Target-independent simplification of hlo",
       kOptimize.str()},
      {"hlo-cpu-to-linalg", "Lower hlo to fused linalg on tensors",
       kCPUToLinalg.str()},
      {"hlo-cpu-to-llvm",
       "Bufferize linalg, add the C entry point and lower to LLVM",
       kCPUToLLVM.str()},
      {"hlo-to-cpu", "Lower hlo to the LLVM dialect for the host CPU",
       (kOptimize + "," + kCPUToLinalg + "," + kCPUToLLVM).str()},
  };
  return pipelines;
}

} // namespace

llvm::StringRef numlir::getPipelineText(llvm::StringRef name) {
  for (const NamedPipeline &pipeline : namedPipelines())
    if (pipeline.name == name)
      return pipeline.text;
  return "";
}

void numlir::registerPipelines() {
  for (const NamedPipeline &pipeline : namedPipelines()) {
    StringRef text = pipeline.text;
    PassPipelineRegistration<>(
        pipeline.name, pipeline.summary, [text](OpPassManager &pm) {
          // The texts are fixed at build time and covered by lit tests, so
          // a parse failure here is a numlir bug, reported by the parser.
          (void)parsePassPipeline(text, pm);
        });
  }
}
