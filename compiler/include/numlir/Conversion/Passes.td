//===- Passes.td - numlir conversion passes --------------------------------===//

#ifndef NUMLIR_CONVERSION_PASSES_TD
#define NUMLIR_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertHLOToLinalg : Pass<"convert-hlo-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower hlo ops to linalg, tensor, arith and math";
  let description = [{
    Rewrites every hlo op into destination-passing code on tensors:

    - elementwise ops (including compare, select, convert and iota) become
      one parallel `linalg.generic` with identity maps over `tensor.empty`;
    - `hlo.broadcast_in_dim` is a generic whose input map drops or pins to 0
      the broadcast dimensions; `hlo.transpose` is `linalg.transpose`;
      `hlo.reshape` is `tensor.collapse_shape`/`expand_shape` (through
      rank 1 when no single reassociation exists);
    - `hlo.reduce` is `linalg.reduce` over a `linalg.fill` of the
      combiner's identity;
    - `hlo.dot_general` is `linalg.matmul`/`linalg.batch_matmul` in the
      canonical dimension order, otherwise a generic with reduction
      iterators, accumulating into a zero fill.

    The lowering keeps XLA's semantics where arith's are weaker: integer
    division and remainder substitute a divisor of 1 for x / 0 and
    INT_MIN / -1 and select XLA's results (x / 0 = -1, x % 0 = x), so no
    trapping division is ever executed; float-to-int conversion saturates
    and maps NaN to 0; float max/min propagate NaN; integer power passes
    only non-negative exponents to `math.ipowi`.

    arith and linalg accept only signless integers, so unsigned types are
    converted to signless ones of the same width everywhere, function
    signatures, calls and returns included; the ops choose unsigned arith
    (divui, cmpi ult, uitofp, ...) from the hlo types. The pass does not
    fold (that is hlo-optimize's job), and an op without a lowering makes
    it fail with a diagnostic at that op.

    `hlo.optimization_barrier` is the one hlo op left in the output (with
    signless types): it keeps fusion, `canonicalize` and `cse` from merging
    computations on its results with those on its operands, until
    `hlo-erase-optimization-barriers` removes it before bufferization.

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
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::bufferization::BufferizationDialect",
    "mlir::complex::ComplexDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect"
  ];
}

#endif // NUMLIR_CONVERSION_PASSES_TD
