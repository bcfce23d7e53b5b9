//===- Passes.td - numlir conversion passes --------------------------------===//

#ifndef NUMLIR_CONVERSION_PASSES_TD
#define NUMLIR_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertHLOToLinalg : Pass<"convert-hlo-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower hlo ops to linalg, tensor, arith and math";
  let description = [{
    Rewrites every hlo op into destination-passing tensor code:
    elementwise ops become `linalg.generic` (or `linalg.map`-style generics)
    over `tensor.empty`, `hlo.dot_general` becomes a `linalg.generic` with
    reduction iterators (or a named matmul where the dimension numbers
    match one), `hlo.reduce` becomes a `linalg.reduce`-shaped generic over a
    filled init, shape ops become `tensor.collapse_shape`/`expand_shape`,
    `linalg.transpose` and `linalg.broadcast`-style generics.

    Before:
    ```mlir
    %2 = hlo.add %0, %1 : tensor<4xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %2 = linalg.generic {...} ins(%0, %1 : ...) outs(%e : ...) {
      ^bb0(%a: f32, %b: f32, %o: f32):
        %s = arith.addf %a, %b : f32
        linalg.yield %s : f32
    } -> tensor<4xf32>
    ```
    After this pass no hlo op remains; an op without a lowering makes the
    pass fail with a diagnostic at that op.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::tensor::TensorDialect"
  ];
}

#endif // NUMLIR_CONVERSION_PASSES_TD
