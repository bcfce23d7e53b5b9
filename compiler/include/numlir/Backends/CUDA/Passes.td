//===- Passes.td - the CUDA backend's passes ------------------------------===//
//
// Passes of the CUDA pipelines (hlo-cuda-to-launches, cuda-launches-to-ptx),
// in the order they run: each hlo.fusion becomes a function, the functions
// are lowered and bufferized with the target-independent passes, and each
// function's linalg ops become one gpu.launch, which upstream's outlining
// and NVVM lowering turn into a kernel.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BACKENDS_CUDA_PASSES_TD
#define NUMLIR_BACKENDS_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def CUDAOutlineFusions : Pass<"cuda-outline-fusions", "mlir::ModuleOp"> {
  let summary = "Make each hlo.fusion, and each op outside one, a kernel function";
  let description = [{
    A GPU runs the program kernel by kernel, so every op of a public
    function that computes something belongs to exactly one kernel: each
    `hlo.fusion` body becomes a private function `@<entry>_kernel_<n>`, and
    each op that `hlo-fusion` left alone becomes a function of that one op.
    The public function is left with constants and calls, in order. A
    control-flow op (`hlo.while`, `hlo.if`, `hlo.case`) is a kernel too, whose
    arguments include the values its regions read from above; it runs on one
    thread (cuda-map-kernels-to-launches) until the launch program can loop
    on the host. Host callbacks and collectives, which need the runtime
    between kernels, are rejected with an error that names them.

    ```mlir
    %0 = hlo.fusion loop (%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {...}
    // becomes
    %0 = call @main_kernel_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
    func.func private @main_kernel_0(%a: tensor<4xf32>) -> tensor<4xf32> {...}
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def CUDADeduplicateKernelResults
    : Pass<"cuda-deduplicate-kernel-results", "mlir::ModuleOp"> {
  let summary = "Return each value of a kernel function once";
  let description = [{
    A bufferized kernel function can return one buffer several times (two
    zero-sized results of a multi-output fusion bufferized in place into one
    allocation). Upstream's
    `buffer-results-to-out-params` does not handle that: it replaces the one
    allocation by the first out-parameter and leaves the others pointing at
    an erased buffer. The function returns each value once instead, and at
    every call the duplicate results take the first one's value.
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def CUDAMapKernelsToLaunches : Pass<"cuda-map-kernels-to-launches", "mlir::ModuleOp"> {
  let summary = "Turn each kernel function's linalg ops into one gpu.launch";
  let description = [{
    Runs on the bufferized kernel functions of `cuda-outline-fusions`
    (their linalg ops generalized). Each function becomes one `gpu.launch`
    when its ops share a row space: leading parallel loops of equal extent
    along which every op writes, and reads what another op of the function
    wrote, at its own row. One block then runs each row, and its threads
    run the ops in order, with a barrier between them:

    - an op with no loops left beside the rows runs on thread 0;
    - an op whose remaining loops are all parallel strides its elements
      across the threads;
    - an op whose remaining loops are all reductions with a known combiner
      (`addf`, `maximumf`, `addi`, `andi`, ...) accumulates a partial per
      thread from the combiner's identity and combines the partials with
      `gpu.all_reduce` (warp shuffles and shared memory); thread 0 combines
      the result with the output's initial value;
    - any other op strides its outputs across the threads and runs its
      reduction loops in order for each.

    A function of fills of a contraction's output, one contraction and
    elementwise consumers that touch what the function writes only at their
    own element is instead tiled. The contraction's body is `out + f(a, b)`
    on integers or floats, where side `a` (an input's element, or a value
    the body gathers, like a convolution's image element) reads no loop
    that side `b` reads beside the shared (batch) loops and the reductions,
    and the other way round; `a`'s own loops are the rows, `b`'s the
    columns, the reductions the depth, each linearized in loop order. A
    block runs each `tile-size` x `tile-size` output tile per batch (a 1-D
    grid), one thread per tile element, with the A and B tiles in workgroup
    memory and a loop over the depth in steps of `tile-size`: a barrier
    after the tiles' copy and one after their use. Each thread starts from
    its element's initial value and applies the body for the valid depth
    only, in order; then stores it and runs the consumers at it.

    A function of one op without reductions is instead one thread per
    element over a 1-D grid. A function whose ops share no row space gets
    one launch per op. Grid and block sizes are constants, and every memref
    the launch reads is a function argument, an allocation or a global:
    views are rebuilt inside the launch, so the outlined kernel takes one
    pointer per buffer. An op other than linalg ops, views, copies and
    allocations is an error naming it.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block (a multiple of 32, at most 1024)">,
    Option<"tileSize", "tile-size", "int64_t", /*default=*/"16",
           "Side of the output tiles of a tiled contraction (a block of "
           "tile-size^2 threads, a multiple of 32 up to 1024); 0 keeps a "
           "block reduction per output element">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::linalg::LinalgDialect"];
}

def CUDAWriteResultsInPlace
    : Pass<"cuda-write-results-in-place", "mlir::func::FuncOp"> {
  let summary = "Let kernels write an output instead of a temporary copied into it";
  let description = [{
    After the kernel functions are inlined, a result is often computed into
    a temporary (`memref.alloc`) that a `memref.copy` then moves into the
    function's out-parameter: bufferization made the kernel's result buffer
    before the out-parameter existed. Where the copy is the temporary's last
    use, in the same block, and the out-parameter has no other use, the
    temporary is replaced by the out-parameter and the copy disappears.

    ```mlir
    %t = memref.alloc() : memref<4xf32>
    gpu.launch ... { ... memref.store %v, %t[%i] ... }
    memref.copy %t, %out : memref<4xf32> to memref<4xf32>
    // becomes
    gpu.launch ... { ... memref.store %v, %out[%i] ... }
    ```
  }];
}

def CUDAMergeKernelModules : Pass<"cuda-merge-kernel-modules", "mlir::ModuleOp"> {
  let summary = "Move every outlined kernel into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` makes a `gpu.module` per launch. The cuda
    executable carries one GPU module, loaded once, so the kernels (and
    anything else the modules hold) move into the first module, and every
    `gpu.launch_func` names it. Outlining gives modules unique names but
    may give the kernels inside them the same one: a kernel whose name is
    taken takes its module's.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def CUDAEmulateLaunchesOnHost
    : Pass<"cuda-emulate-launches-on-host", "mlir::func::FuncOp"> {
  let summary = "Run gpu.launch bodies as loops on the host (a test path)";
  let description = [{
    Replaces each `gpu.launch` of `cuda-map-kernels-to-launches` by loops
    that run it on the CPU, so that the CUDA backend's kernels can be
    checked against the CPU backend without a GPU. A block runs its body in
    segments cut at top-level `gpu.barrier` and `gpu.all_reduce` ops: every
    thread finishes a segment before any starts the next. A value a thread
    keeps across a cut lives in a per-thread slot (`memref.alloca` of the
    block size); ops that no thread id reaches run once per block. A
    `gpu.all_reduce` combines the threads' values in thread order.

    An `scf.for` at the top level (or in such a loop) that holds barriers
    must have bounds no thread id reaches: the block runs it as one loop
    whose body is cut into segments the same way; the values it carries are
    per thread, in slots stored before the loop and at the end of each
    iteration, and its results are read from those slots. Workgroup memory
    attributions become one `memref.alloca` (without the memory space) that
    the blocks use in turn. Barriers or reductions anywhere else (in an
    `scf.if`, in a loop with thread-dependent bounds), shuffles, grids of
    more than one dimension, private attributions and dynamic shared memory
    are rejected: the CUDA backend does not write them.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

#endif // NUMLIR_BACKENDS_CUDA_PASSES_TD
