//===- Passes.td - numlir's target-independent and backend passes ---------===//

#ifndef NUMLIR_TRANSFORMS_PASSES_TD
#define NUMLIR_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def HLOSimplify : Pass<"hlo-simplify"> {
  let summary = "Algebraic simplification of hlo ops";
  let description = [{
    Applies algebraic identities that canonicalization alone does not:
    `x + 0`, `x * 1`, `x - 0`, `x / 1` become `x`; `--x` becomes `x`;
    reshape of reshape and transpose of transpose compose into one op;
    a reshape or transpose that does not change the value disappears;
    a broadcast of a splat constant becomes a larger splat constant.
    Patterns only fire when types match exactly, so no implicit broadcasting
    or type change is introduced.
  }];
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
    and size of the buffers before calling.
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
