//===- HLODialect.td - the hlo dialect and its op base class --------------===//
//
// The hlo dialect is numlir's high-level operation set: static-shaped tensor
// computations modelled on XLA HLO / StableHLO. The Python frontend emits it;
// numlir's passes simplify and fuse it; backends lower it to linalg and
// further. The semantics of every op are written down in docs/hlo-dialect.md.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_DIALECT_HLO_IR_HLODIALECT_TD
#define NUMLIR_DIALECT_HLO_IR_HLODIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def HLO_Dialect : Dialect {
  let name = "hlo";
  let cppNamespace = "::numlir::hlo";
  let summary = "numlir's high-level tensor operations";
  let description = [{
    Operations on statically shaped, ranked tensors, with XLA HLO semantics.
    See docs/hlo-dialect.md for the specification of each op.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
}

// Every operand and result of an hlo op holds at most 2^63 - 1 bytes (zero
// dims counted as 1), so no size, stride or linear index computed from a
// shape by a verifier, folder or lowering overflows int64.
def HLO_BoundedTensorSizes : NativeOpTrait<"BoundedTensorSizes"> {
  let cppNamespace = "::numlir::hlo";
}

class HLO_Op<string mnemonic, list<Trait> traits = []>
    : Op<HLO_Dialect, mnemonic, !listconcat([HLO_BoundedTensorSizes], traits)>;

//===----------------------------------------------------------------------===//
// Types accepted by hlo ops.
//===----------------------------------------------------------------------===//

// The summaries are what type-constraint errors print, e.g. "operand #0 must
// be statically shaped tensor of float (f16, bf16, f32, f64) values".
def HLO_Float : AnyTypeOf<[F16, BF16, F32, F64], "float (f16, bf16, f32, f64)">;
def HLO_SignedInt : AnyTypeOf<[I8, I16, I32, I64],
    "signed integer (i8, i16, i32, i64)">;
def HLO_UnsignedInt : AnyTypeOf<[UI8, UI16, UI32, UI64],
    "unsigned integer (ui8, ui16, ui32, ui64)">;
def HLO_Int : AnyTypeOf<[HLO_SignedInt, HLO_UnsignedInt],
    "integer (i8-i64, ui8-ui64)">;
def HLO_Pred : AnyTypeOf<[I1], "pred (i1)">;
def HLO_Element : AnyTypeOf<[HLO_Float, HLO_Int, HLO_Pred],
    "float, integer or pred">;
// Complex numbers are pairs (real, imaginary) of f32 or f64. Only the ops
// that opt in accept them: HLO_Tensor and the narrower constraints below
// stay real, so an op whose lowering knows nothing of complex rejects it.
def HLO_ComplexPart : AnyTypeOf<[F32, F64], "f32 or f64">;
def HLO_Complex : AnyTypeOf<[Complex<F32>, Complex<F64>],
    "complex (complex<f32>, complex<f64>)">;
def HLO_AnyElement : AnyTypeOf<[HLO_Element, HLO_Complex],
    "float, integer, pred or complex">;

// All hlo values are ranked tensors with a static shape.
def HLO_Tensor : StaticShapeTensorOf<[HLO_Element]>;
def HLO_FloatTensor : StaticShapeTensorOf<[HLO_Float]>;
def HLO_IntOrPredTensor : StaticShapeTensorOf<[HLO_Int, HLO_Pred]>;
def HLO_NumericTensor : StaticShapeTensorOf<[HLO_Float, HLO_Int]>;
def HLO_PredTensor : StaticShapeTensorOf<[HLO_Pred]>;
def HLO_IndexTensor : StaticShapeTensorOf<[HLO_Int]>;
def HLO_AnyTensor : StaticShapeTensorOf<[HLO_AnyElement]>;
def HLO_ComplexTensor : StaticShapeTensorOf<[HLO_Complex]>;
def HLO_ComplexPartTensor : StaticShapeTensorOf<[HLO_ComplexPart]>;
def HLO_FloatOrComplexTensor : StaticShapeTensorOf<[HLO_Float, HLO_Complex]>;
def HLO_NumericOrComplexTensor : StaticShapeTensorOf<[HLO_Float, HLO_Int,
                                                      HLO_Complex]>;

#endif // NUMLIR_DIALECT_HLO_IR_HLODIALECT_TD
