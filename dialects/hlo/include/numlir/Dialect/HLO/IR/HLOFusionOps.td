//===- HLOFusionOps.td - hlo.fusion -*- tablegen -*------------------------===//
//
// Included from HLOOps.td. A fusion is a group of hlo ops that a backend
// compiles as one kernel; hlo-fusion makes them and hlo-inline-fusions
// undoes them. See docs/hlo-dialect.md#fusion and docs/fusion.md.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_DIALECT_HLO_IR_HLOFUSIONOPS_TD
#define NUMLIR_DIALECT_HLO_IR_HLOFUSIONOPS_TD

def HLO_FusionKind : I32EnumAttr<"FusionKind",
    "what an hlo.fusion is built around, as in XLA", [
      I32EnumAttrCase<"Loop", 0, "loop">, I32EnumAttrCase<"Input", 1, "input">,
      I32EnumAttrCase<"Output", 2, "output">]> {
  let cppNamespace = "::numlir::hlo";
  let genSpecializedAttr = 0;
}
def HLO_FusionKindAttr : EnumAttr<HLO_Dialect, HLO_FusionKind, "fusion_kind"> {
  let assemblyFormat = "$value";
}

def HLO_FusionOp : HLO_Op<"fusion", [IsolatedFromAbove, SingleBlock,
    RecursiveMemoryEffects]> {
  let summary = "a group of hlo ops compiled as one kernel";
  let description = [{
    Computes its body on the operands, which the body takes as its block
    arguments (the region sees nothing from above), and returns what the
    body's `hlo.return` returns. The kind says what the group is built
    around: `loop` is elementwise, broadcast, reshape and data-movement ops
    only; `input` has at least one `hlo.reduce`, which the other ops feed
    (several reductions over the same rows, as in softmax, with broadcasts
    of their results back along those rows); `output` has one
    `hlo.dot_general` or `hlo.convolution` whose result the other ops
    consume (a bias and an activation). A result beyond the first is a
    value the group computes anyway and something outside also reads
    (multi-output fusion). See docs/hlo-dialect.md#fusion.

    ```mlir
    %r:2 = hlo.fusion input (%a = %x) : (tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
      %e = hlo.exp %a : tensor<4x8xf32>
      %s = hlo.reduce sum %e, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
      hlo.return %s, %e : tensor<4xf32>, tensor<4x8xf32>
    }
    ```
  }];
  let arguments = (ins HLO_FusionKindAttr:$kind, Variadic<HLO_AnyTensor>:$operands);
  let results = (outs Variadic<HLO_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
}

#endif // NUMLIR_DIALECT_HLO_IR_HLOFUSIONOPS_TD
