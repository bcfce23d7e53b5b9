//===- HLOCustomCallOps.td - hlo.custom_call -*- tablegen -*---------------===//
//
// Included from HLOOps.td. See docs/hlo-dialect.md#custom_call for the
// targets and docs/runtime.md#library-calls for the ABI they lower to.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_DIALECT_HLO_IR_HLOCUSTOMCALLOPS_TD
#define NUMLIR_DIALECT_HLO_IR_HLOCUSTOMCALLOPS_TD

// Pure: a library routine reads its operands and writes only its results, so
// CSE may merge two equal calls and DCE may drop an unused one.
def HLO_CustomCallOp : HLO_Op<"custom_call", [Pure]> {
  let summary = "calls a routine of a library the runtime provides";
  let description = [{
    Computes its results with the routine `call_target_name` of a library
    the runtime links at run time, as XLA's custom calls reach LAPACK and
    ducc: `lapack.potrf`, `lapack.getrf` and `lapack.trsm` from LAPACK,
    `numlir.fft` from the runtime's own FFT library. `config` holds the
    routine's integer options. Only the targets below exist, and the
    verifier checks each one's operand and result types; backends without
    the library never see the op, because the frontend lowers the
    primitive to its portable composite for them. See
    docs/hlo-dialect.md#custom_call.

    ```mlir
    %l = hlo.custom_call "lapack.potrf" (%a) config = [] : (tensor<8x4x4xf32>) -> tensor<8x4x4xf32>
    %y = hlo.custom_call "numlir.fft" (%x) config = [0, 256] : (tensor<4x256xcomplex<f32>>) -> tensor<4x256xcomplex<f32>>
    ```
  }];
  let arguments = (ins StrAttr:$call_target_name, DenseI64ArrayAttr:$config,
                       Variadic<HLO_AnyTensor>:$operands);
  let results = (outs Variadic<HLO_AnyTensor>:$results);
  let assemblyFormat = [{
    $call_target_name `(` $operands `)` `config` `=` $config attr-dict `:`
    functional-type($operands, $results)
  }];
  let hasVerifier = 1;
}

#endif // NUMLIR_DIALECT_HLO_IR_HLOCUSTOMCALLOPS_TD
