//===- Passes.td - the CPU backend's passes -------------------------------===//
//
// Passes of the CPU pipelines (hlo-cpu-to-linalg, hlo-cpu-to-llvm), in the
// order they run: bufferization and the C entry point, then code generation
// for the host CPU. Each exists for a CPU code-generation choice or for the
// CPU executable's C entry point; the buffer passes any backend may run are
// in numlir/Bufferization/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BACKENDS_CPU_PASSES_TD
#define NUMLIR_BACKENDS_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def CPUFuseElementwiseOps : Pass<"cpu-fuse-elementwise-ops"> {
  let summary = "Fuse elementwise linalg ops unless fusion recomputes them";
  let description = [{
    Runs the patterns of upstream `linalg-fuse-elementwise-ops` (producer
    fusion of single-use elementwise generics, reshape propagation,
    constant folding), except that an elementwise producer is fused into a
    consumer with reduction loops only when the consumer's indexing map of
    the fused operand is a permutation, i.e. each produced element is read
    once. Upstream fuses `tanh(x)` into the contraction of `tanh(x)^T @ y`,
    which recomputes every tanh once per column of `y` and turns the
    contraction into a generic that CPU vectorization does not recognize.

    Before: `%t = linalg.generic {tanh} ins(%x)` feeding the `(d2, d0)`
            operand of a matmul-like generic.
    After:  unchanged (a row-sum of `%t` with identity maps is still fused).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::tensor::TensorDialect"];
}

def CPUSplitReductions : Pass<"cpu-split-reductions"> {
  let summary = "Split long reductions with few outputs into partial reductions";
  let description = [{
    A full reduction (`sum(x * x)`) or a reduction to a few outputs has no
    parallel loop that `cpu-parallelize-loops` could split across threads.
    This pass rewrites each `linalg.generic` on tensors with one reduction
    loop of static extent at least `min-reduction`, at most `max-outputs`
    output elements and one output whose combiner may be reordered
    (integer and max/min combiners, or a float sum or product marked
    `reassoc`, as `hlo.reduce` marks them) into partial reductions
    (upstream `linalg::splitReduction`): the loop becomes (partial, rest),
    partial outermost and parallel, so partial k reduces the k-th
    contiguous block into a `ratio`-element tensor filled with the
    combiner's identity, and a second generic reduces the partials into
    the original output. The number of partials is the largest power of
    two up to `ratio` that divides the loop (none: unchanged). It does not
    depend on the thread count, so results are the same for any number of
    threads. `cpu-tree-short-reductions` then sums the partials as a tree.

    Before: `linalg.generic` over (d0), a reduction of 16777216 iterations
            into `tensor<f32>`.
    After:  `tensor.expand_shape` to 16x1048576, a `linalg.generic` over
            (d0 parallel, d1 reduction) into `tensor<16xf32>`, then a
            `linalg.generic` reducing the 16 partials into `tensor<f32>`.
  }];
  let options = [
    Option<"ratio", "ratio", "int64_t", /*default=*/"16",
           "Most partial reductions made of one reduction">,
    Option<"minReduction", "min-reduction", "int64_t", /*default=*/"131072",
           "Shortest reduction loop split">,
    Option<"maxOutputs", "max-outputs", "int64_t", /*default=*/"16",
           "Most output elements of a reduction split">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def CPUTreeShortReductions : Pass<"cpu-tree-short-reductions"> {
  let summary = "Sum short float reductions as a balanced tree";
  let description = [{
    A loop adds the elements of a reduction one after another, so the
    k-th partial sum is rounded k - 1 times. For reductions long enough to
    vectorize, LLVM splits the loop into many partial sums; a short one
    (a few elements per output) stays a serial chain. Then the mean of 5
    equal floats is not the float itself, and the std of equal values is
    1 ulp instead of 0 (XLA's is 0).

    This pass rewrites every `linalg.generic` on tensors whose reduction
    loops have static extents with at most 16 iterations in all and whose
    body combines one value into its accumulator with a reassociable
    `arith.addf` or `arith.mulf` (what `hlo.reduce sum`/`prod` lowers to):
    the reduction loops disappear, each operand indexed by them is read
    once per reduction position (a constant in its indexing map), and
    the body combines the values pairwise, level by level (positions
    0+1, 2+3, ..., then the pairs' sums), before adding the accumulator.
    Rounding error then grows with log2 of the length, not the length.
    Integer and max/min reductions are exact in any order and are left
    alone, as are contractions (their combiners are not reassociable).

    Before: `linalg.generic` over (d0, d1), d1 a reduction of extent 5,
            body `addf %x, %acc fastmath<reassoc>`.
    After:  `linalg.generic` over (d0) with five operands indexed
            (d0) -> (d0, 0) ... (d0) -> (d0, 4), body
            `((x0 + x1) + (x2 + x3)) + x4`, then `+ %acc`.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::arith::ArithDialect"];
}

def CPUCopyRepeatedResults : Pass<"cpu-copy-repeated-results"> {
  let summary = "Give every result of a function a tensor of its own";
  let description = [{
    A function may return one value twice (`jit(lambda x: (e, e))`, or two
    results CSE made equal). Each result becomes a caller-provided output
    buffer (`buffer-results-to-out-params`), which cannot fill two buffers
    from one allocation, so before bufferization every repeated return
    operand is replaced by a copy: `bufferization.alloc_tensor() copy(%v)`.

    Before:
    ```mlir
    return %e, %e : tensor<3xf32>, tensor<3xf32>
    ```
    After:
    ```mlir
    %c = bufferization.alloc_tensor() copy(%e) : tensor<3xf32>
    return %e, %c : tensor<3xf32>, tensor<3xf32>
    ```

    IR already on buffers (hlo-opt takes it) gets the same for a repeated
    buffer of static shape with the identity layout: `memref.alloc` and
    `memref.copy`. Any other repeated buffer is an error, since upstream's
    pass crashed on a function returning one allocation twice.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect"];
}

def CPUOrderLoops : Pass<"cpu-order-loops"> {
  let summary = "Make the innermost loop of each linalg op walk memory contiguously";
  let description = [{
    `convert-linalg-to-loops` nests loops in iterator order, so
    `linalg.matmul` (i, j, k) becomes a k-innermost loop that strides
    through the right-hand matrix and cannot be vectorized. This pass
    generalizes contractions and, for every `linalg.generic`, moves to the
    innermost position the loop that indexes the last (contiguous)
    dimension of the most operands, preferring the current innermost loop
    and then parallel loops on ties. For matmul this yields the (i, k, j)
    order, whose inner loop LLVM vectorizes.

    Before: `linalg.matmul ins(%a, %b) outs(%c)` (loops i, j, k)
    After:  `linalg.generic` with loops (i, k, j): iterator types
            [parallel, reduction, parallel].
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def CPUEmitCEntryPoint : Pass<"cpu-emit-c-entry-point", "mlir::ModuleOp"> {
  let summary = "Add the runtime's C entry point to a bufferized module";
  let description = [{
    numlir's CPU executables export one function with the C signature
    `void <entry>(void **buffers)`: `buffers` holds one pointer per
    argument of the public function `@<function>`, in order: the inputs,
    then the output buffers that `buffer-results-to-out-params{add-result-attr}`
    made (marked `bufferize.result`). Each pointer addresses dense
    row-major data of the argument's static shape.

    The pass runs on memref-level IR. It adds `func.func @<entry>(!llvm.ptr)`
    that loads each pointer, wraps it in a memref descriptor (through an
    `unrealized_conversion_cast` that the LLVM lowering folds away) and calls
    `@<function>`, which becomes internal so LLVM can inline it. It also
    exports the NUL-terminated string `@<entry>_signature`, e.g.
    `"f32[4,8];f32[8,3]->f32[4]"`, so a runtime can check the number, type
    and size of the buffers before calling. Where the function carries
    `numlir.abi_signature` (see hlo-record-abi-signature) that string is
    exported instead, after checking it describes the same buffer sizes.

    Heap allocations go through the runtime: the pass defines the functions
    `finalize-memref-to-llvm{use-generic-functions}` calls
    (`_mlir_memref_to_llvm_alloc`, `_mlir_memref_to_llvm_aligned_alloc`,
    `_mlir_memref_to_llvm_free`) as internal calls through the exported,
    writable table `@<entry>_allocator`, three pointers initialized to
    libc's `malloc`, `aligned_alloc` and `free`, which the runtime replaces
    with its checked allocator at load time. The constant string
    `@<entry>_allocation_sites` lists each static `memref.alloc` that comes
    from a user's line as `<bytes> <type> <file:line:col>`, one per line,
    so that an out-of-memory error can name the line.
  }];
  let options = [
    Option<"function", "function", "std::string", "\"main\"",
           "The bufferized public function to wrap">,
    Option<"entry", "entry", "std::string", "\"numlir_entry\"",
           "The exported symbol of the C entry point">
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::func::FuncDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def CPUStridedCopiesToLoops : Pass<"cpu-strided-copies-to-loops"> {
  let summary = "Turn memref.copy between non-contiguous buffers into linalg.copy";
  let description = [{
    finalize-memref-to-llvm lowers a copy between contiguous buffers to
    `llvm.memcpy` but any other `memref.copy` to a call into MLIR's C runner
    library (`memrefCopy`), which numlir executables do not link, so they
    would fail to load. Bufferization makes such copies for strided views
    (slices, `tensor.insert_slice`). This pass rewrites them into
    `linalg.copy`, which `convert-linalg-to-loops` turns into plain loops;
    contiguous copies are left to become `llvm.memcpy`.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def CPUFuseRowLoops : Pass<"cpu-fuse-row-loops"> {
  let summary = "Run runs of row-local linalg ops on buffers row tile by row tile";
  let description = [{
    Softmax, layer norm and other chains of row reductions and elementwise
    ops are, on buffers, consecutive linalg ops that each compute row i of
    their outputs from row i of their inputs. This pass finds each run of
    at least two such ops in a block (pure ops, allocations and
    deallocations between them may move out of the way) whose buffers hold
    at least `min-bytes` bytes, and runs the whole run on a few rows at a
    time: an `scf.parallel` over one chunk of rows per thread, around an
    `scf.for` over tiles of rows whose buffers take about `tile-bytes`
    bytes, each member applied to the tile's `memref.subview`s in program
    order. Each element is computed by the same operations in the same
    order as before (LLVM may still vectorize a float sum marked `reassoc`
    in another order, as in any loop), and the data goes through DRAM once
    instead of once per op. A temporary allocation used
    only by the run's members becomes one tile-sized buffer per thread.

    An op is row-local when its outermost output dimension is a parallel
    loop that indexes dimension 0 of every operand it reaches (through
    reshapes that keep the memory's rows) and no other dimension; other
    inputs (a bias, a scalar) are read whole, and no member may write a
    buffer that a member reads whole. Contractions, convolutions, ops
    using `linalg.index` and ops with dynamic shapes are not members. A run
    with fewer rows than threads is left alone: cpu-parallelize-loops can
    still split its ops along other loops.
    `min-bytes=-1` turns the pass off.

    Before: the four linalg ops of a 4096x1024 softmax, one after another.
    After:  `scf.parallel (%c) = (0) to (4096) step (2048)` around
            `scf.for %r = %c to %c + 2048 step 32` holding the four ops on
            32x1024 (and 32x1) subviews.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"0",
           "Chunks of rows, one per thread (0: the cores of the compiling "
           "host); 1 makes one sequential loop">,
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"1048576",
           "Smallest run fused, in bytes of the buffers it reaches by rows "
           "(-1: none)">,
    Option<"tileBytes", "tile-bytes", "int64_t", /*default=*/"131072",
           "Bytes a tile's rows take in all the run's row-indexed buffers">,
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def CPUShareKernels : Pass<"cpu-share-kernels", "mlir::ModuleOp"> {
  let summary = "Give each distinct loop nest one function, called where it occurred";
  let description = [{
    A training step repeats its work: a GAN's discriminator runs on real
    and on generated images, and again in the generator's step, and a deep
    network's layers are one layer many times over, forward and backward.
    The passes that follow and LLVM would lower, optimize and generate code
    for each copy separately, and the entry function would hold every copy
    inline, one loop nest after another: its compile time grew faster than
    the program. This pass moves every loop nest in the top-level blocks of
    the module's functions (a linalg op on buffers with static loops: a
    contraction, a convolution, an elementwise op, a reduction; or a
    row-fused `scf.parallel` from cpu-fuse-row-loops) into a private
    function (`numlir_kernel`, internal and `noinline`), one function per
    class of identical loop nests (the same op, attributes, regions and
    argument types; constants are compared by value), and replaces each
    occurrence with a call. The kernel takes the op's operands that are not
    constants, then the values its regions use from outside (a buffer a
    gather loads from, a size computed outside, the buffers a row-fused
    loop reads and writes through views), in the order they are first used;
    constants are copied in, so loop bounds and fill values stay constant.

    Loop nests that occur once move too. In a kernel each memref argument
    is `llvm.noalias` (cpu-convert-to-llvm moves the mark to the
    descriptor's aligned pointer), so LLVM vectorizes its loops without
    runtime alias checks and the scalar loop copies they guard. And the
    passes nested on functions then spread over the compile threads, where
    one entry function holding every loop nest kept one thread busy.

    A loop nest stays where it is when a buffer it writes (or frees) could
    be reached through another of its arguments (the same function argument
    or allocation behind two of them), when the pass cannot tell which
    buffer a write goes to (an op of unknown effects, a buffer whose origin
    it cannot see), or when an argument would be a bf16 value: LLVM rounds a
    `bfloat` argument with `__truncsfbf2`, which GCC 12's libgcc lacks. The
    kernel's noalias arguments, and the contraction kernel's accumulator
    kept in registers, need the written buffers distinct; buffers that are
    only read may be one (`x * x`): noalias says nothing about memory that
    is only read.

    Before: two `linalg.matmul` on 64x64 buffers `(%a, %b) -> %c` and
            `(%d, %e) -> %f`.
    After:  `func.call @numlir_kernel(%a, %b, %c)` and
            `func.call @numlir_kernel(%d, %e, %f)`, the matmul inside
            `@numlir_kernel`.
  }];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def CPUParallelizeLoops : Pass<"cpu-parallelize-loops"> {
  let summary = "Split large linalg ops on buffers into one chunk per thread";
  let description = [{
    Every linalg op on buffers with static loops and at least
    `min-iterations` units of work is tiled along its outermost loop
    that is parallel and indexes every output (so chunks write disjoint
    elements), into `threads` chunks, as an `scf.parallel` over the chunks;
    `convert-scf-to-openmp` later runs those iterations on the OpenMP
    runtime's threads. A loop shorter than `threads` is not split.
    Contractions are split only into equal chunks (the loop's extent a
    multiple of `threads`), since their register tiling needs static
    shapes. Ops already inside an `scf.parallel` are left alone.

    The work of an op is the iterations of its loop nest, except that 16
    iterations of a contraction or convolution count as one: those become
    register-tiled vector FMAs, so a product of 131072 multiply-adds takes
    about as long as a 8192-element elementwise op, less than a fork and
    join of the threads would save.

    Before: `linalg.generic` over 1024x1024 (parallel, parallel)
    After:  `scf.parallel (%i) = (0) to (1024) step (512)` holding the same
            `linalg.generic` on a 512x1024 `memref.subview` of each operand.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"0",
           "Chunks per op (0: the cores of the compiling host); below 2, "
           "nothing is split">,
    Option<"minIterations", "min-iterations", "int64_t",
           /*default=*/"131072",
           "Smallest op, in units of work (iterations; 16 of a contraction's "
           "count as one), worth a fork">,
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def CPUConvolutionTaps : Pass<"cpu-convolution-taps"> {
  let summary = "Rewrite float convolutions as contractions per kernel tap";
  let description = [{
    A convolution reads its input at `stride * out + dilation * tap` along
    each spatial dimension, which is not a contraction, so it ran as scalar
    loops. For one tap the input read is a strided window of the input, so
    the convolution is a sum over taps of contractions. This pass rewrites
    every f32/f64 `linalg.generic` convolution on static buffers (body
    `out + in0 * in1`; input 0 read through `s * d_out + r * d_tap` windows
    and plain loops; the kernel and output through plain loops) into
    `scf.for` loops over the tap loops around a `linalg.generic`
    contraction of the tap's input window (a `memref.subview` at offset
    `r * tap` with stride `s`) and the tap's kernel slice (a rank-reduced
    subview), which `cpu-vectorize-contractions` register-tiles. A
    convolution whose output is larger than `tile-bytes` is first tiled
    along the outermost output dimension it can divide evenly, so one
    tile's output stays in cache across the taps. The products of each
    output element are summed tap by tap instead of in the original loop
    order.

    Before: `linalg.generic` over (n, oh, ow, co, ci, kh, kw) reading
            `in[n, oh + kh, ow + kw, ci] * k[kh, kw, ci, co]`
    After:  `scf.for %kh`, `scf.for %kw` around a `linalg.generic` over
            (n, oh, ow, co, ci) reading a subview of `in` at (0, %kh, %kw, 0)
            and `k[%kh, %kw]`.
  }];
  let options = [
    Option<"tileBytes", "tile-bytes", "int64_t", /*default=*/"262144",
           "Largest output tile, in bytes, kept across the taps (0: the "
           "output is not tiled)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def CPUVectorizeContractions : Pass<"cpu-vectorize-contractions"> {
  let summary = "Register-tile and vectorize floating-point linalg contractions";
  let description = [{
    Scalar loops over a contraction reload the accumulator for every
    product and cannot be vectorized along the reduction without
    reassociating it. This pass tiles every f32/f64 linalg contraction on
    buffers (matmul, batch_matmul, or a generic that
    `linalg::isaContractionOpInterface` accepts) with static shapes first
    into cache tiles (`cache-lanes` of the output's contiguous dimension by
    `cache-reduction` of the innermost reduction dimension, so a block of
    the operand read along the lanes stays in L1/L2), then into
    register tiles of `rows` x (two vector registers of lanes) x 1
    reduction step: the lane loop walks the output's contiguous dimension
    and the row loop the innermost free dimension of the other operand;
    batch and other free loops stay outermost with tile size 1 and the
    reduction loops innermost. Tiles that do not divide a dimension are
    peeled into remainder loops of static size. Each tile becomes a
    `vector.contract` whose accumulator is hoisted out of the reduction
    loop and which is lowered to broadcasts and `vector.fma`; transfers are
    lowered to rank-1 form for `convert-vector-to-scf` and
    `convert-vector-to-llvm`. Other element types, dynamic shapes,
    mat-vec products and outputs whose contiguous dimension is a batch
    dimension keep the scalar loops of `convert-linalg-to-loops`.

    Before: `linalg.matmul ins(%a, %b : memref<16x64xf32>, ...) outs(%c)`
    After:  `scf.for` over 8-row by 32-lane tiles, each with an `scf.for`
            over k carrying a `vector<8x32xf32>` accumulator updated by
            `vector.fma`.
  }];
  let options = [
    Option<"rows", "rows", "int64_t", /*default=*/"0",
           "Output rows of one register tile (0: 12 for 512-bit registers, "
           "else 6)">,
    Option<"registerBits", "register-bits", "int64_t", /*default=*/"0",
           "Vector register width in bits (0: the host's, 512 with AVX-512 "
           "else 256); a tile is two registers wide">,
    Option<"cacheLanes", "cache-lanes", "int64_t", /*default=*/"512",
           "Lane-dimension extent of one cache tile (0: untiled)">,
    Option<"cacheReduction", "cache-reduction", "int64_t", /*default=*/"128",
           "Reduction extent of one cache tile (0: untiled)">,
    Option<"lowerVectors", "lower-vectors", "bool", /*default=*/"true",
           "Lower vector.contract to FMAs and transfers to rank 1">,
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect"];
}

def CPUConvertToLLVM : Pass<"cpu-convert-to-llvm", "mlir::ModuleOp"> {
  let summary = "Convert memref, arith, func, cf, index, ub and omp to LLVM in one conversion";
  let description = [{
    Runs the patterns of upstream's `finalize-memref-to-llvm{use-aligned-alloc
    use-generic-functions}`, `convert-arith-to-llvm`, `convert-func-to-llvm`,
    `convert-cf-to-llvm`, `convert-index-to-llvm`, `convert-ub-to-llvm` and
    `convert-openmp-to-llvm` as one dialect conversion. Each of those passes
    walks the whole module and sets up a conversion of its own; on a large
    training step (W7, 2.7 MB of IR) the seven took about a quarter of the
    MLIR lowering. The patterns, type converter options and legality are
    the upstream passes' own, so the result is what the chain of passes
    gives, with fewer `builtin.unrealized_conversion_cast`s in between
    (`reconcile-unrealized-casts` removes what is left). Vector and math
    lowering stay separate passes: vector's runs its own rewrites before
    converting, and math ops take LLVM intrinsics before libm calls.

    Upstream's function conversion drops a memref argument's attributes; a
    memref argument marked `llvm.noalias` (cpu-share-kernels' kernels)
    passes the mark to its descriptor's aligned pointer instead.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def CPUExpandArith : Pass<"cpu-expand-arith"> {
  let summary = "arith-expand, except that float min and max stay ops";
  let description = [{
    Expands what convert-arith-to-llvm cannot lower (`ceildivsi`,
    `floordivsi`, bf16 `extf`/`truncf`, scaling conversions) as upstream
    `arith-expand{include-bf16}` does, but keeps `arith.maximumf`,
    `minimumf`, `maxnumf` and `minnumf`. They lower to `llvm.maximum` and
    friends, which keep their NaN and signed-zero semantics and which
    LLVM's loop vectorizer turns into vector reductions; the expanded
    compare-and-select chains left `max(x, axis=1)` a scalar loop.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::vector::VectorDialect"];
}

def CPUApproximateMath : Pass<"cpu-approximate-math"> {
  let summary = "Replace f32 transcendental calls by vectorizable polynomials";
  let description = [{
    On the CPU, `math.exp`, `math.tanh` and friends otherwise become calls
    into libm, one element at a time, which stops LLVM from vectorizing the
    loop around them. This pass rewrites the f32 forms of exp, expm1, log,
    log1p, log2, tanh, erf and erfc into MLIR's polynomial approximations
    (plain arithmetic, accurate to a few ulp over the whole range), so
    elementwise loops vectorize (f16 and bf16 math reaches it as f32 after
    `math-extend-to-supported-types`). f64 keeps the libm calls, and
    sin/cos keep them too because their range reduction matters for large
    arguments.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect"];
}

def CPUExpandFloatConversions : Pass<"cpu-expand-float-conversions"> {
  let summary = "Restate f64 <-> bf16/f16 conversions through f32";
  let description = [{
    LLVM lowers `fptrunc double to bfloat` and `to half` to the libcalls
    `__truncdfbf2` and `__truncdfhf2` of the C compiler's runtime library;
    GCC 12's libgcc has no `__truncdfbf2`, so such an executable fails to
    load on Debian 12. Generated code must not depend on the host
    compiler's runtime, so this pass rewrites `arith.truncf` from f64 to
    bf16/f16 as a truncation to f32 rounded to odd (round to nearest, step
    toward zero where that overshot, set the last bit where inexact)
    followed by the f32 truncation, which rounds once in effect (f32 has
    more than twice the target's precision plus two bits), and
    `arith.extf` from bf16/f16 to f64 as two exact extensions through f32.
    f32 <-> bf16 is left to `arith-expand{include-bf16}`.

    Before: `%y = arith.truncf %x : f64 to bf16`
    After:  `arith.truncf %x : f64 to f32`, compare/bitcast/select to round
            to odd, then `arith.truncf %r : f32 to bf16`.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::math::MathDialect"];
}

def CPURoundBeforeDiscontinuities : Pass<"cpu-round-before-discontinuities"> {
  let summary = "Keep the rounding of a 16-bit float that feeds a comparison, "
                "a rounding to integer or a bit cast";
  let description = [{
    `math-extend-to-supported-types` and `arith-emulate-unsupported-floats`
    compute a bf16/f16 operation in f32 as `truncf(op(extf(x)))`, marking the
    casts `contract`; the arith folder then drops `extf(truncf(y))` pairs, so
    the next operation sees the unrounded f32 value. That is an ulp of excess
    precision in a continuous function but a different answer in a
    discontinuous one: `argmax(exp(x))` in bf16 under jit broke a tie the
    other way, `floor(exp(log(x)))` gave 89 for 90. This pass clears the
    fastmath flags of each `extf` of a `truncf` result on which an
    `arith.cmpf`, `fptosi`/`fptoui`, `remf`, `bitcast`, `math.floor`/`ceil`/
    `round`/`roundeven`/`trunc` or a float class test depends through arith
    and math operations, so those pairs stay and every value on the way is
    rounded as the program says. Chains that end elsewhere (a store, an
    accumulator) keep the excess precision. It runs after each pass that
    introduces the pairs and before anything that folds them.

    Before:
    ```mlir
    %t = arith.truncf %y fastmath<contract> : f32 to bf16
    %e = arith.extf %t fastmath<contract> : bf16 to f32
    %c = arith.cmpf ogt, %e, %best : f32
    ```
    After: the same, with `%e = arith.extf %t : bf16 to f32`.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def CPUScopeNoAliasArguments : Pass<"cpu-scope-noalias-arguments", "mlir::ModuleOp"> {
  let summary = "State a function's noalias pointer arguments on its accesses, as alias scopes";
  let description = [{
    A kernel's buffers are `llvm.noalias` pointer arguments (cpu-share-kernels,
    cpu-convert-to-llvm). LLVM uses them within the function's own body, but
    the body of an `omp.parallel` becomes a function of its own when it is
    translated, and reaches the buffers through pointers loaded from a
    struct: there the arguments say nothing. This pass gives each noalias
    pointer argument an alias scope (one domain per function) and marks
    every load, store and memory intrinsic whose address is computed from
    that argument by `llvm.getelementptr` alone: in the argument's scope, and
    not aliasing the other arguments' scopes. The metadata travels with the
    accesses into the outlined function, as LLVM's inliner does with the
    noalias arguments of a call it inlines. Accesses through any other
    pointer, or already scoped, are left alone. It runs on the module, one
    function after another, so that the scopes (distinct attributes) are
    made, and numbered, in the same order in every compile. The CPU
    backend runs it as the translation to LLVM IR begins, not in
    `hlo-cpu-to-llvm`: MLIR bytecode, which the stages hand each other,
    reads each use of a distinct attribute back as a distinct attribute of
    its own, which would split every scope into unrelated ones.

    Before: `llvm.func @k(%a: !llvm.ptr {llvm.noalias}, %b: !llvm.ptr {llvm.noalias})`
            with `llvm.load %a` and `llvm.store %v, %b` inside an `omp.parallel`.
    After:  the load has `alias_scopes = [#scope_a], noalias_scopes = [#scope_b]`
            and the store the reverse.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def CPUStoreBF16AsI16 : Pass<"cpu-store-bf16-as-i16"> {
  let summary = "Carry bf16 values between memory and blocks as i16 in the LLVM dialect";
  let description = [{
    On x86 CPUs without AVX-512 BF16, LLVM promotes every `bfloat` value to
    f32 and rounds it back with a call to `__truncsfbf2` (absent from
    GCC 12's libgcc) wherever the value must exist as 16 bits: a store, a
    bitcast, a value passed between blocks. Once `arith-expand` has made
    bf16 arithmetic into integer arithmetic on bitcasts, the only bf16
    values left are loaded, stored, selected or passed along; this pass
    gives those i16 types (bf16 views through `llvm.bitcast` for any other
    user), and canonicalization folds the bitcast pairs away, so LLVM sees
    no bfloat value at all.

    Before: `%v = llvm.load %p : !llvm.ptr -> bf16` ... `llvm.br ^bb1(%v : bf16)`
    After:  `%v = llvm.load %p : !llvm.ptr -> i16` ... `llvm.br ^bb1(%v : i16)`
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // NUMLIR_BACKENDS_CPU_PASSES_TD
