//===- Passes.td - numlir's target-independent and backend passes ---------===//

#ifndef NUMLIR_TRANSFORMS_PASSES_TD
#define NUMLIR_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def HLOSimplify : Pass<"hlo-simplify"> {
  let summary = "Algebraic simplification of hlo ops";
  let description = [{
    Rewrites hlo ops with algebraic identities, greedily, together with the
    ops' folders (constant folding, no-op reshape/transpose/broadcast/convert,
    broadcast or transpose of a splat). The identities live in this pass, not
    in the ops' folders or canonicalizers, so `canonicalize` alone only
    evaluates constants and removes no-ops; this pass is where numlir decides
    which algebra is safe. Every rewrite keeps the exact result type, so no
    implicit broadcasting or type change is introduced.

    - `x + 0`, `0 + x`, `x - 0`, `x * 1`, `1 * x`, `x / 1` become `x`, where
      the constant is a splat. For floats only the IEEE-exact forms fire:
      `x + (-0.0)`, `(-0.0) + x`, `x - (+0.0)`, `x * 1.0`, `x / 1.0`
      (`x + 0.0` is `+0.0` for `x = -0.0`, so it stays).
    - `negate(negate(x))` becomes `x`.
    - `reshape(reshape(x))` becomes one reshape; `transpose(transpose(x))`
      one transpose with the composed permutation;
      `broadcast_in_dim(broadcast_in_dim(x))` one broadcast with the
      composed dims. The folders then drop any that is the identity.
    - `convert(convert(x))` becomes `x` when the inner conversion keeps every
      value (e.g. f32 -> f64, i8 -> i32, ui8 -> i16, i16 -> f32, i1 -> any)
      and the outer one returns to x's type.
    - `select` with a splat-constant pred becomes the chosen branch;
      `select(p, x, x)` becomes `x`.
    - `compare(x, x)` on integers becomes a splat constant (true for EQ, LE,
      GE). Floats stay, since NaN != NaN.

    Before and after:

    ```mlir
    %z = hlo.constant dense<0> : tensor<4x3xi32>
    %0 = hlo.add %x, %z : tensor<4x3xi32>
    %1 = hlo.transpose %0, dims = [1, 0] : tensor<4x3xi32> -> tensor<3x4xi32>
    %2 = hlo.transpose %1, dims = [1, 0] : tensor<3x4xi32> -> tensor<4x3xi32>
    // becomes: uses of %2 use %x
    ```
  }];
}

def HLOWidenAccumulation : Pass<"hlo-widen-accumulation"> {
  let summary = "Accumulate 16-bit float sums, contractions and convolutions in f32";
  let description = [{
    Each `hlo.reduce`, `hlo.reduce_window` and `hlo.cumulative` of kind
    `sum` or `prod`, and each `hlo.dot_general` and `hlo.convolution`, whose
    result is bf16 or f16 is rewritten to run on f32: its 16-bit float
    operands are converted to f32, the op computes an f32 result, and one
    `hlo.convert` rounds it back to the original type. Rounding after every
    addition loses about log2(n) bits on a sum of n terms (300 additions of
    1.01 give 312 in bf16 steps and 302 with an f32 accumulator); XLA
    accumulates these ops in f32 as well, so numlir's answers agree with
    jax's. Max and min reductions are exact in any precision and are left
    alone, as are ops whose result is already f32 or wider.

    Before:
    ```mlir
    %0 = hlo.reduce sum %x, dims = [0] : tensor<300xbf16> -> tensor<bf16>
    ```
    After:
    ```mlir
    %w = hlo.convert %x : tensor<300xbf16> -> tensor<300xf32>
    %s = hlo.reduce sum %w, dims = [0] : tensor<300xf32> -> tensor<f32>
    %0 = hlo.convert %s : tensor<f32> -> tensor<bf16>
    ```
  }];
}

def EraseOptimizationBarriers : Pass<"numlir-erase-optimization-barriers"> {
  let summary = "Replace each hlo.optimization_barrier by its operands";
  let description = [{
    `hlo.optimization_barrier` survives `convert-hlo-to-linalg`, elementwise
    fusion, `canonicalize` and `cse` on tensors, so none of them merges a
    computation on its results (a checkpoint's recomputation) with the same
    computation on its operands (the forward value). Bufferization does not
    know the op, and once linalg ops work on memrefs nothing merges them any
    more, so the CPU pipeline runs this pass right before
    `one-shot-bufferize`: each barrier's results are replaced by its
    operands and the barrier is erased. Nothing else changes, so the
    recomputation stays in the program.

    Before:
    ```mlir
    %r:2 = hlo.optimization_barrier %a, %b : tensor<4xf32>, tensor<i32>
    %s = linalg.generic ... ins(%r#0 : tensor<4xf32>) ...
    ```
    After:
    ```mlir
    %s = linalg.generic ... ins(%a : tensor<4xf32>) ...
    ```
  }];
}

def CopyRepeatedResults : Pass<"numlir-copy-repeated-results"> {
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
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def FuseElementwiseOps : Pass<"numlir-fuse-elementwise-ops"> {
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

def CPUApproximateMath : Pass<"numlir-cpu-approximate-math"> {
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

def CPUExpandFloatConversions : Pass<"numlir-cpu-expand-float-conversions"> {
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

def CPUStoreBF16AsI16 : Pass<"numlir-cpu-store-bf16-as-i16"> {
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

def CPUOrderLoops : Pass<"numlir-cpu-order-loops"> {
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

def CPUVectorizeContractions : Pass<"numlir-cpu-vectorize-contractions"> {
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

def CPUStridedCopiesToLoops : Pass<"numlir-cpu-strided-copies-to-loops"> {
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

def RecordABISignature : Pass<"numlir-record-abi-signature", "mlir::ModuleOp"> {
  let summary = "Record the tensor-level signature of the entry function";
  let description = [{
    Stores the signature of `@<function>` as the string attribute
    `numlir.abi_signature`, e.g. `"ui8[4];f32[]->i1[4]"`, while the types
    still carry signedness (the linalg lowering makes integers signless).
    `numlir-emit-c-entry-point` exports this string when it is present.
    It also marks the arguments `bufferization.writable = false`: they are
    the caller's buffers, so an in-place update (scatter,
    dynamic_update_slice) must work on a copy.
  }];
  let options = [
    Option<"function", "function", "std::string", "\"main\"",
           "The function whose signature is recorded">
  ];
}

def EmitCEntryPoint : Pass<"numlir-emit-c-entry-point", "mlir::ModuleOp"> {
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
    `numlir.abi_signature` (see numlir-record-abi-signature) that string is
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
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::func::FuncDialect"];
}

#endif // NUMLIR_TRANSFORMS_PASSES_TD
