//===- HLOBarrierOps.td - hlo.optimization_barrier -*- tablegen -*---------===//
//
// Included from HLOOps.td. See docs/hlo-dialect.md#optimization_barrier for
// the semantics.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_DIALECT_HLO_IR_HLOBARRIEROPS_TD
#define NUMLIR_DIALECT_HLO_IR_HLOBARRIEROPS_TD

// Pure: the results are new SSA values, so CSE cannot merge a computation on
// them with the same computation on the operands. The op deliberately has no
// folder; hlo-erase-optimization-barriers removes it just before
// bufferization, after the last tensor-level CSE and fusion.
def HLO_OptimizationBarrierOp : HLO_Op<"optimization_barrier", [Pure]> {
  let summary = "the identity, opaque to optimizations";
  let description = [{
    Returns its operands unchanged, but the compiler may not look through
    it: a computation on the results is never merged (CSE) or fused with
    one on the operands. Checkpointing uses it so that a recomputation in
    the backward pass is not replaced by the forward value it repeats. See
    docs/hlo-dialect.md#optimization_barrier.

    ```mlir
    %r:2 = hlo.optimization_barrier %a, %b : tensor<4xf32>, tensor<i32>
    ```
  }];
  let arguments = (ins Variadic<HLO_AnyTensor>:$operands);
  let results = (outs Variadic<HLO_AnyTensor>:$results);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

#endif // NUMLIR_DIALECT_HLO_IR_HLOBARRIEROPS_TD
