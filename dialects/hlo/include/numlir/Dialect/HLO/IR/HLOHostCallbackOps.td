//===- HLOHostCallbackOps.td - hlo.host_callback -*- tablegen -*-----------===//
//
// Included from HLOOps.td. See docs/hlo-dialect.md#host_callback for the
// semantics and docs/runtime.md#host-callbacks for the ABI it lowers to.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_DIALECT_HLO_IR_HLOHOSTCALLBACKOPS_TD
#define NUMLIR_DIALECT_HLO_IR_HLOHOSTCALLBACKOPS_TD

// The memory effects depend on `has_side_effect`: with it, the op writes the
// default resource, so DCE, CSE and code motion keep every call in program
// order; without it the op has no effect and may be removed when its results
// are unused (numlir.pure_callback, like jax's).
def HLO_HostCallbackOp : HLO_Op<"host_callback",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "calls a function of the host program with the operands";
  let description = [{
    Calls the host callback registered under `callback_id` in the running
    process with the operands' values and returns the tensors it produces.
    The id is process-local: the Python frontend allocates it when it traces
    the callback, so a module with a host callback is neither written to the
    persistent compilation cache nor saved. With `has_side_effect` the call
    is never removed or reordered with another effect (debug.print,
    debug.callback); without it the op is pure and may be removed when its
    results are unused (pure_callback). See docs/hlo-dialect.md#host_callback.

    ```mlir
    %r = hlo.host_callback id = 3 (%a, %b) : (tensor<4xf32>, tensor<i32>) -> tensor<2xf64>
    hlo.host_callback id = 4 (%a) {has_side_effect} : (tensor<4xf32>) -> ()
    ```
  }];
  let arguments = (ins I64Attr:$callback_id, UnitAttr:$has_side_effect,
                       Variadic<HLO_AnyTensor>:$operands);
  let results = (outs Variadic<HLO_AnyTensor>:$results);
  let assemblyFormat = [{
    `id` `=` $callback_id `(` $operands `)` attr-dict `:`
    functional-type($operands, $results)
  }];
  let hasVerifier = 1;
}

#endif // NUMLIR_DIALECT_HLO_IR_HLOHOSTCALLBACKOPS_TD
