//===- Passes.td - numlir's target-independent passes ---------------------===//
//
// Passes every backend can run: they rewrite hlo, or (hlo-erase-
// optimization-barriers) the one hlo op that outlives convert-hlo-to-linalg.
// A pass that serves one backend's code generation or ABI lives with that
// backend (numlir/Backends/CPU/Passes.td).
//
//===----------------------------------------------------------------------===//

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
    - `transpose(dot_general(a, b))` whose permutation swaps a's and b's free
      dimensions becomes `dot_general(b, a)` (a weight gradient `(dy^T x)^T`
      is `x^T dy`), where the dot has no other use and the swapped operands
      are read along their layouts no worse (`(a @ b)^T` stays). Each
      element sums the same products in the same order.
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

def HLOSplitTransposedConvolutions
    : Pass<"hlo-split-transposed-convolutions"> {
  let summary = "Split lhs-dilated convolutions into one per output phase";
  let description = [{
    An `hlo.convolution` with `lhs_dilation` s > 1 (a transposed
    convolution, or the input gradient of a convolution with stride s)
    reads s - 1 inserted zeros between neighbouring input elements, so
    along that dimension only one kernel tap in s meets a real element:
    which ones depends on the output position modulo s (its phase). The
    convolution becomes one undilated convolution per phase, with that
    phase's taps (a strided `hlo.slice` of the kernel) and its own padding,
    and the phases' outputs interleave into the result through
    `hlo.reshape` and `hlo.concatenate` (then `hlo.slice` where the output
    size is not a multiple of s). A 2-D stride-2 transposed convolution
    does a quarter of the multiply-adds.

    Exact: each output sums the same nonzero products in the same tap
    order, and no tap is multiplied by an inserted zero (an infinite tap
    does not make NaNs there, as in XLA). Applies where every dilated
    dimension has window stride and rhs dilation 1 (what `conv_transpose`
    and convolution gradients produce), shapes are static, and there are
    at most 16 phases; other convolutions are left as they are.

    Before (1-D, stride-2 transposed convolution of a 3-tap kernel):
    ```mlir
    %0 = hlo.convolution %x, %k, dims = [b, 0, f]x[0, i, o]->[b, 0, f],
           padding = [[1, 2]], lhs_dilation = [2]
         : tensor<1x4x1xf32>, tensor<3x1x1xf32> -> tensor<1x8x1xf32>
    ```
    After: phase 0 (even outputs) reads taps 1 and phase 1 reads taps 0
    and 2; each phase's 4 outputs are interleaved.
  }];
}

def HLOAssignLayouts : Pass<"hlo-assign-layouts"> {
  let summary = "Give image-layout convolutions an HWIO kernel and NT dots a [K, N] rhs";
  let description = [{
    Each `hlo.convolution` whose input and output are batch-major and
    feature-minor (`[b, 0, 1, ..., f]`, NHWC) and whose kernel is not ordered
    as spatial dimensions, input features, output features (`[0, 1, ..., i,
    o]`, HWIO) reads an `hlo.transpose` of its kernel into that order, with
    its dimension numbers updated to match; the result is unchanged. The
    CPU vectorizes convolutions along the output features, which then are
    the kernel's contiguous dimension: an HWOI kernel (Haiku's transposed
    convolutions; the input gradient of every HWIO convolution) was read
    one element per lane, at twice the time of the transposed copy plus an
    HWIO convolution. The kernel is small next to the images, so the copy
    costs little. Convolutions in other layouts keep theirs (a kernel
    gradient reads its input with batch and features exchanged, which the
    CPU's convolution kernels already handle). CSE merges the transposes of
    a kernel that several convolutions read.

    Before:
    ```mlir
    %0 = hlo.convolution %x, %k, dims = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f]
         : tensor<8x7x7x64xf32>, tensor<5x5x32x64xf32> -> tensor<8x3x3x32xf32>
    ```
    After:
    ```mlir
    %t = hlo.transpose %k, dims = [0, 1, 3, 2]
         : tensor<5x5x32x64xf32> -> tensor<5x5x64x32xf32>
    %0 = hlo.convolution %x, %t, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
         : tensor<8x7x7x64xf32>, tensor<5x5x64x32xf32> -> tensor<8x3x3x32xf32>
    ```

    A float `hlo.dot_general` whose rhs has its batch dimensions first and a
    contracting dimension last (an "NT" product, such as a dense layer's
    input gradient `g @ w^T`), with at least 16 elements of free dimensions
    on each side, reads an `hlo.transpose` of its rhs ordered as batch,
    contracting (in the order given), free dimensions. The CPU's register
    tiles load the rhs along its free dimensions as vectors: in [N, K] order
    that is one element per row, and a 256x512x512 product ran at half the
    speed of the [K, N] one (0.93 against 0.49 ms on 2 cores; with the
    transpose, 0.68 ms).
  }];
}

def HLOFusion : Pass<"hlo-fusion"> {
  let summary = "Group hlo ops into hlo.fusion kernels, as XLA fuses";
  let description = [{
    Walks each block from its last op up. An op that no group holds roots a
    new group, which takes in its producers while these rules allow:

    - Only loop ops (elementwise, `broadcast_in_dim`, `reshape`,
      `transpose`, `slice`, `pad`, `concatenate`, `reverse`, `iota`, splat
      constants), `reduce`, `dot_general` and `convolution` with static
      shapes are grouped.
    - A producer whose users are all in the group moves in. One that is
      also read outside moves in as an extra result when those readers come
      after the group (multi-output fusion); a cheap one (`broadcast_in_dim`,
      `reshape`, `convert`, `iota`, splat constant) is copied instead.
    - A `dot_general` or `convolution` takes in its consumers (output
      fusion: a bias and an activation); nothing is fused into its operands,
      which would recompute each fused element once per use.
    - Reductions over the same rows share a group (input fusion), with the
      ops between them: softmax and layer norm are one group each.
    - An expensive op (`exp`, `log`, `tanh`, `power`, `rsqrt`, ...) is never
      copied, nor taken in where a broadcast would recompute it per element,
      except on the reduced values of a group with reductions (computed once
      per row).

    Groups that read a common input, iterate over the same shape and do not
    depend on each other then merge (multi-output fusion of siblings). A
    group of one op is left as it is. `hlo-inline-fusions` undoes the pass.
    docs/fusion.md walks through the decisions on softmax, layer norm, an
    MLP and a convolution with bias and relu.

    ```mlir
    %e = hlo.exp %x : tensor<4x8xf32>
    %s = hlo.reduce sum %e, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
    // becomes
    %s = hlo.fusion input (%a = %x) : (tensor<4x8xf32>) -> tensor<4xf32> {
      %e = hlo.exp %a : tensor<4x8xf32>
      %r = hlo.reduce sum %e, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
      hlo.return %r : tensor<4xf32>
    }
    ```
  }];
}

def HLOInlineFusions : Pass<"hlo-inline-fusions"> {
  let summary = "Replace each hlo.fusion by the ops of its body";
  let description = [{
    The inverse of `hlo-fusion`: each fusion's body is inlined in its place,
    its arguments replaced by the fusion's operands and its results by what
    the body returns. Backends that compile ops one at a time run it before
    lowering.
  }];
}

def HLOEraseOptimizationBarriers : Pass<"hlo-erase-optimization-barriers"> {
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

#endif // NUMLIR_TRANSFORMS_PASSES_TD
