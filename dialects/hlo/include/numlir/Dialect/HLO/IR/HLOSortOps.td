//===- HLOSortOps.td - hlo.sort -*- tablegen -*----------------------------===//
//
// Included from HLOOps.td. See docs/hlo-dialect.md#sort for the semantics.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_DIALECT_HLO_IR_HLOSORTOPS_TD
#define NUMLIR_DIALECT_HLO_IR_HLOSORTOPS_TD

def HLO_SortOp : HLO_Op<"sort", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "sort along one dimension, permuting every operand alike";
  let description = [{
    Sorts the operands (all of one shape) along `dim` in ascending order,
    comparing lexicographically by the first `num_keys` operands; the other
    operands are permuted alongside. Floats use a total order in which
    `-0.0` equals `0.0` and every NaN compares equal and above `+inf`.
    With `stable`, equal elements keep their order. See
    docs/hlo-dialect.md#sort.

    ```mlir
    %r:2 = hlo.sort(%keys, %values) dim = 0, num_keys = 1, stable
         : tensor<8xf32>, tensor<8xi32>
    ```
  }];
  let arguments = (ins Variadic<HLO_Tensor>:$inputs, I64Attr:$dimension,
                       I64Attr:$num_keys, UnitAttr:$is_stable);
  let results = (outs Variadic<HLO_Tensor>:$results);
  let assemblyFormat = [{
    `(` $inputs `)` `dim` `=` $dimension `,` `num_keys` `=` $num_keys
    (`,` `stable` $is_stable^)? attr-dict `:` type($inputs)
  }];
  let hasVerifier = 1;
}

#endif // NUMLIR_DIALECT_HLO_IR_HLOSORTOPS_TD
