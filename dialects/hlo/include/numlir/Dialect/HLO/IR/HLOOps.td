//===- HLOOps.td - operations of the hlo dialect ---------------------------===//
//
// One `def` per op. Each description says what the op computes; the full
// semantics (shapes, dtypes, edge cases) are in docs/hlo-dialect.md.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_DIALECT_HLO_IR_HLOOPS_TD
#define NUMLIR_DIALECT_HLO_IR_HLOOPS_TD

include "numlir/Dialect/HLO/IR/HLODialect.td"
include "numlir/Dialect/HLO/IR/HLOEnums.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Calls the op's `verifyShapes()`. Listed before `Elementwise`, so a shape
// mismatch is reported with the operands' names and shapes instead of the
// generic trait's message.
def HLO_VerifyShapesFirst : NativeOpTrait<"VerifyShapesFirst"> {
  let cppNamespace = "::numlir::hlo";
}

//===----------------------------------------------------------------------===//
// Constants and iota
//===----------------------------------------------------------------------===//

def HLO_ConstantOp : HLO_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "a tensor literal";
  let description = [{
    Produces the tensor given by the `value` attribute. See
    docs/hlo-dialect.md#constant.

    Complex elements are written `(re,im)`.

    ```mlir
    %0 = hlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %1 = hlo.constant dense<[(1.0,2.0), (3.0,-4.0)]> : tensor<2xcomplex<f32>>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HLO_IotaOp : HLO_Op<"iota", [Pure]> {
  let summary = "indices along one dimension";
  let description = [{
    Fills the result with the index of each element along dimension `dim`
    (0, 1, 2, ... converted to the element type). See
    docs/hlo-dialect.md#iota.

    ```mlir
    %0 = hlo.iota dim = 1 : tensor<2x3xi32>   // [[0, 1, 2], [0, 1, 2]]
    ```
  }];
  let arguments = (ins I64Attr:$iota_dimension);
  let results = (outs HLO_NumericTensor:$result);
  let assemblyFormat = "`dim` `=` $iota_dimension attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// `exampleType` is the type the description's example uses: one that
// TensorType accepts.
class HLO_UnaryElementwiseOp<string mnemonic, Type TensorType, string what,
                             string exampleType = "tensor<4xf32>">
    : HLO_Op<mnemonic, [Pure, SameOperandsAndResultType, Elementwise]> {
  let summary = what;
  let description = "Computes " # what # " of each element of `operand`. "
      # "See docs/hlo-dialect.md#elementwise-ops.\n\n```mlir\n%1 = hlo."
      # mnemonic # " %0 : " # exampleType # "\n```";
  let arguments = (ins TensorType:$operand);
  let results = (outs TensorType:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasFolder = 1;
}

def HLO_NegateOp : HLO_UnaryElementwiseOp<"negate", HLO_NumericOrComplexTensor, "the negation">;
def HLO_SignOp : HLO_UnaryElementwiseOp<"sign", HLO_NumericOrComplexTensor,
    "the sign (-1, 0 or 1; NaN for NaN; z / |z| for complex z, 0 for 0)">;
def HLO_ExpOp : HLO_UnaryElementwiseOp<"exp", HLO_FloatOrComplexTensor, "e raised to the power">;
def HLO_LogOp : HLO_UnaryElementwiseOp<"log", HLO_FloatOrComplexTensor, "the natural logarithm">;
def HLO_TanhOp : HLO_UnaryElementwiseOp<"tanh", HLO_FloatOrComplexTensor, "the hyperbolic tangent">;
def HLO_LogisticOp : HLO_UnaryElementwiseOp<"logistic", HLO_FloatOrComplexTensor,
    "the logistic sigmoid 1 / (1 + exp(-x))">;
def HLO_SqrtOp : HLO_UnaryElementwiseOp<"sqrt", HLO_FloatOrComplexTensor, "the square root">;
def HLO_RsqrtOp : HLO_UnaryElementwiseOp<"rsqrt", HLO_FloatOrComplexTensor, "the reciprocal square root">;
def HLO_SinOp : HLO_UnaryElementwiseOp<"sin", HLO_FloatOrComplexTensor, "the sine">;
def HLO_CosOp : HLO_UnaryElementwiseOp<"cos", HLO_FloatOrComplexTensor, "the cosine">;
def HLO_FloorOp : HLO_UnaryElementwiseOp<"floor", HLO_FloatTensor, "the largest integer not above">;
def HLO_CeilOp : HLO_UnaryElementwiseOp<"ceil", HLO_FloatTensor, "the smallest integer not below">;
def HLO_NotOp : HLO_UnaryElementwiseOp<"not", HLO_IntOrPredTensor,
    "the bitwise (logical for i1) complement", "tensor<4xi1>">;

def HLO_AbsOp : HLO_Op<"abs", [Pure, HLO_VerifyShapesFirst, Elementwise]> {
  let summary = "the absolute value";
  let description = [{
    Computes the absolute value of each element of `operand`. The modulus
    of a complex element is real: the result's element type is then the
    part type (`complex<f32>` gives `f32`), written after `->`; a real
    operand keeps its type, written once. See
    docs/hlo-dialect.md#elementwise-ops.

    ```mlir
    %1 = hlo.abs %0 : tensor<4xf32>
    %3 = hlo.abs %2 : tensor<4xcomplex<f32>> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins HLO_NumericOrComplexTensor:$operand);
  let results = (outs HLO_NumericTensor:$result);
  let assemblyFormat = [{
    $operand attr-dict `:` custom<AbsTypes>(type($operand), type($result))
  }];
  let extraClassDeclaration = "::mlir::LogicalResult verifyShapes();";
  let hasFolder = 1;
}

def HLO_ConjOp : HLO_UnaryElementwiseOp<"conj", HLO_ComplexTensor,
    "the complex conjugate", "tensor<4xcomplex<f32>>"> {
  let hasFolder = 0;
}

// hlo.real and hlo.imag: one part of each complex element.
class HLO_ComplexPartOp<string mnemonic, string what>
    : HLO_Op<mnemonic, [Pure, HLO_VerifyShapesFirst, Elementwise]> {
  let summary = what # " of complex values";
  let description = "Takes " # what # " of each complex element of "
      # "`operand`; the result has the operand's shape and its part type "
      # "(`complex<f32>` gives `f32`). See docs/hlo-dialect.md#" # mnemonic
      # ".\n\n```mlir\n%1 = hlo." # mnemonic
      # " %0 : tensor<4xcomplex<f32>> -> tensor<4xf32>\n```";
  let arguments = (ins HLO_ComplexTensor:$operand);
  let results = (outs HLO_ComplexPartTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let extraClassDeclaration = "::mlir::LogicalResult verifyShapes();";
}

def HLO_RealOp : HLO_ComplexPartOp<"real", "the real part">;
def HLO_ImagOp : HLO_ComplexPartOp<"imag", "the imaginary part">;

def HLO_ComplexOp : HLO_Op<"complex", [Pure, AllTypesMatch<["lhs", "rhs"]>,
    HLO_VerifyShapesFirst, Elementwise]> {
  let summary = "complex values from real and imaginary parts";
  let description = [{
    Element `i` of the result is `(lhs[i], rhs[i])`: `lhs` holds the real
    parts, `rhs` the imaginary parts. Both have one type, f32 or f64
    elements, which is the result's part type. See
    docs/hlo-dialect.md#complex.

    ```mlir
    %2 = hlo.complex %0, %1 : tensor<4xf32> -> tensor<4xcomplex<f32>>
    ```
  }];
  let arguments = (ins HLO_ComplexPartTensor:$lhs, HLO_ComplexPartTensor:$rhs);
  let results = (outs HLO_ComplexTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let extraClassDeclaration = "::mlir::LogicalResult verifyShapes();";
}

class HLO_BinaryElementwiseOp<string mnemonic, Type TensorType, string what,
                              string exampleType = "tensor<4xf32>">
    : HLO_Op<mnemonic, [Pure, SameOperandsAndResultType, Elementwise]> {
  let summary = what;
  let description = "Computes " # what # " of `lhs` and `rhs` element by "
      # "element; both operands and the result have one type. "
      # "See docs/hlo-dialect.md#elementwise-ops.\n\n```mlir\n%2 = hlo."
      # mnemonic # " %0, %1 : " # exampleType # "\n```";
  let arguments = (ins TensorType:$lhs, TensorType:$rhs);
  let results = (outs TensorType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let hasFolder = 1;
}

def HLO_AddOp : HLO_BinaryElementwiseOp<"add", HLO_NumericOrComplexTensor, "the sum">;
def HLO_SubtractOp : HLO_BinaryElementwiseOp<"subtract", HLO_NumericOrComplexTensor, "the difference">;
def HLO_MultiplyOp : HLO_BinaryElementwiseOp<"multiply", HLO_NumericOrComplexTensor, "the product">;
def HLO_DivideOp : HLO_BinaryElementwiseOp<"divide", HLO_NumericOrComplexTensor,
    "the quotient (integers round toward zero)">;
def HLO_RemainderOp : HLO_BinaryElementwiseOp<"remainder", HLO_NumericTensor,
    "the remainder with the sign of the dividend (C fmod)">;
def HLO_MaximumOp : HLO_BinaryElementwiseOp<"maximum", HLO_Tensor,
    "the larger value (NaN if either is NaN)">;
def HLO_MinimumOp : HLO_BinaryElementwiseOp<"minimum", HLO_Tensor,
    "the smaller value (NaN if either is NaN)">;
def HLO_PowerOp : HLO_BinaryElementwiseOp<"power", HLO_NumericOrComplexTensor,
    "`lhs` raised to the power `rhs`">;
def HLO_AndOp : HLO_BinaryElementwiseOp<"and", HLO_IntOrPredTensor, "the bitwise and",
    "tensor<4xi1>">;
def HLO_OrOp : HLO_BinaryElementwiseOp<"or", HLO_IntOrPredTensor, "the bitwise or",
    "tensor<4xui8>">;
def HLO_XorOp : HLO_BinaryElementwiseOp<"xor", HLO_IntOrPredTensor,
    "the bitwise exclusive or", "tensor<4xi32>">;

//===----------------------------------------------------------------------===//
// Integer bit ops, bitcast_convert and clamp
//===----------------------------------------------------------------------===//

def HLO_IntTensor : StaticShapeTensorOf<[HLO_Int]>;

def HLO_ShiftLeftOp : HLO_BinaryElementwiseOp<"shift_left", HLO_IntTensor,
    "`lhs` shifted left by `rhs` bits (0 once `rhs` is at least the bit width)",
    "tensor<4xi32>">;
def HLO_ShiftRightLogicalOp : HLO_BinaryElementwiseOp<"shift_right_logical",
    HLO_IntTensor, "`lhs` shifted right by `rhs` bits, filling with zeros "
    "(0 once `rhs` is at least the bit width)", "tensor<4xui32>">;
def HLO_ShiftRightArithmeticOp : HLO_BinaryElementwiseOp<
    "shift_right_arithmetic", HLO_IntTensor, "`lhs` shifted right by `rhs` "
    "bits, filling with the sign bit (all sign bits once `rhs` is at least "
    "the bit width)", "tensor<4xi32>">;
def HLO_PopcntOp : HLO_UnaryElementwiseOp<"popcnt", HLO_IntTensor,
    "the number of set bits", "tensor<4xui32>">;
def HLO_CountLeadingZerosOp : HLO_UnaryElementwiseOp<"count_leading_zeros",
    HLO_IntTensor, "the number of leading zero bits (the bit width for 0)",
    "tensor<4xi64>">;

def HLO_BitcastConvertOp : HLO_Op<"bitcast_convert",
    [Pure, HLO_VerifyShapesFirst, Elementwise]> {
  let summary = "elementwise reinterpretation of bits";
  let description = [{
    Reinterprets the bits of each element as the result's element type,
    which has the same bit width (e.g. ui32 <-> f32). The shape is
    unchanged. See docs/hlo-dialect.md#bitcast_convert.

    ```mlir
    %1 = hlo.bitcast_convert %0 : tensor<4xf32> -> tensor<4xui32>
    ```
  }];
  let arguments = (ins HLO_Tensor:$operand);
  let results = (outs HLO_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let extraClassDeclaration = "::mlir::LogicalResult verifyShapes();";
  let hasFolder = 1;
}

def HLO_ClampOp : HLO_Op<"clamp", [Pure, AllTypesMatch<["operand", "result"]>,
    HLO_VerifyShapesFirst]> {
  let summary = "elementwise clamp into [min, max]";
  let description = [{
    Computes `minimum(maximum(operand, min), max)` element by element.
    `min` and `max` are scalars (rank 0) or have the operand's shape; all
    three share one element type. NaN propagates like `maximum`/`minimum`.
    See docs/hlo-dialect.md#clamp.

    ```mlir
    %1 = hlo.clamp %lo, %x, %hi : tensor<f32>, tensor<4xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins HLO_NumericTensor:$min, HLO_NumericTensor:$operand,
                       HLO_NumericTensor:$max);
  let results = (outs HLO_NumericTensor:$result);
  let assemblyFormat = [{
    $min `,` $operand `,` $max attr-dict `:` type($min) `,` type($operand)
    `,` type($max)
  }];
  let extraClassDeclaration = "::mlir::LogicalResult verifyShapes();";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// More float math
//===----------------------------------------------------------------------===//

def HLO_LogPlusOneOp : HLO_UnaryElementwiseOp<"log_plus_one",
    HLO_FloatOrComplexTensor, "log(1 + x), accurate near 0">;
def HLO_ExponentialMinusOneOp : HLO_UnaryElementwiseOp<"exponential_minus_one",
    HLO_FloatOrComplexTensor, "exp(x) - 1, accurate near 0">;
def HLO_TanOp : HLO_UnaryElementwiseOp<"tan", HLO_FloatOrComplexTensor, "the tangent">;
def HLO_AsinOp : HLO_UnaryElementwiseOp<"asin", HLO_FloatOrComplexTensor, "the arcsine">;
def HLO_AcosOp : HLO_UnaryElementwiseOp<"acos", HLO_FloatOrComplexTensor, "the arccosine">;
def HLO_AtanOp : HLO_UnaryElementwiseOp<"atan", HLO_FloatOrComplexTensor, "the arctangent">;
def HLO_SinhOp : HLO_UnaryElementwiseOp<"sinh", HLO_FloatOrComplexTensor, "the hyperbolic sine">;
def HLO_CoshOp : HLO_UnaryElementwiseOp<"cosh", HLO_FloatOrComplexTensor, "the hyperbolic cosine">;
def HLO_AsinhOp : HLO_UnaryElementwiseOp<"asinh", HLO_FloatOrComplexTensor, "the inverse hyperbolic sine">;
def HLO_AcoshOp : HLO_UnaryElementwiseOp<"acosh", HLO_FloatOrComplexTensor, "the inverse hyperbolic cosine">;
def HLO_AtanhOp : HLO_UnaryElementwiseOp<"atanh", HLO_FloatOrComplexTensor, "the inverse hyperbolic tangent">;
def HLO_ErfOp : HLO_UnaryElementwiseOp<"erf", HLO_FloatTensor, "the error function">;
def HLO_ErfInvOp : HLO_UnaryElementwiseOp<"erf_inv", HLO_FloatTensor,
    "the inverse error function (+-inf at +-1, NaN outside [-1, 1])"> {
  // No libm function to fold with: it folds only after the lowering.
  let hasFolder = 0;
}
def HLO_CbrtOp : HLO_UnaryElementwiseOp<"cbrt", HLO_FloatTensor, "the cube root">;
def HLO_RoundNearestEvenOp : HLO_UnaryElementwiseOp<"round_nearest_even",
    HLO_FloatTensor, "the nearest integral value, ties to even">;
def HLO_RoundNearestAfzOp : HLO_UnaryElementwiseOp<"round_nearest_afz",
    HLO_FloatTensor, "the nearest integral value, ties away from zero">;
def HLO_LgammaOp : HLO_UnaryElementwiseOp<"lgamma", HLO_FloatTensor,
    "the log of the absolute value of the gamma function">;
def HLO_DigammaOp : HLO_UnaryElementwiseOp<"digamma", HLO_FloatTensor,
    "the digamma function (the derivative of lgamma)"> {
  // No libm function to fold with: it folds only after the lowering.
  let hasFolder = 0;
}
def HLO_Atan2Op : HLO_BinaryElementwiseOp<"atan2", HLO_FloatTensor,
    "the arctangent of `lhs / rhs` in the quadrant of (`rhs`, `lhs`)">;
def HLO_NextAfterOp : HLO_BinaryElementwiseOp<"next_after", HLO_FloatTensor,
    "the next representable value after `lhs` in the direction of `rhs`">;

def HLO_IsFiniteOp : HLO_Op<"is_finite", [Pure, HLO_VerifyShapesFirst,
    Elementwise]> {
  let summary = "elementwise finiteness test";
  let description = [{
    True where the element is neither infinite nor NaN. The result is an i1
    tensor of the operand's shape. See docs/hlo-dialect.md#is_finite.

    ```mlir
    %1 = hlo.is_finite %0 : tensor<4xf32> -> tensor<4xi1>
    ```
  }];
  let arguments = (ins HLO_FloatTensor:$operand);
  let results = (outs HLO_PredTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let extraClassDeclaration = "::mlir::LogicalResult verifyShapes();";
  let hasFolder = 1;
}

def HLO_CompareOp : HLO_Op<"compare", [Pure, AllTypesMatch<["lhs", "rhs"]>,
    HLO_VerifyShapesFirst, Elementwise]> {
  let summary = "elementwise comparison";
  let description = [{
    Compares `lhs` and `rhs` element by element with `comparison_direction`
    (EQ, NE, LT, LE, GT, GE) and yields an i1 tensor of the same shape.
    Floating-point comparisons are ordered except NE (any NaN compares
    unequal). Complex values compare only EQ or NE, both parts at once.
    See docs/hlo-dialect.md#compare.

    ```mlir
    %2 = hlo.compare LT, %0, %1 : tensor<4xf32> -> tensor<4xi1>
    ```
  }];
  let arguments = (ins HLO_ComparisonDirectionAttr:$comparison_direction,
                       HLO_AnyTensor:$lhs, HLO_AnyTensor:$rhs);
  let results = (outs HLO_PredTensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($comparison_direction) `,` $lhs `,` $rhs attr-dict
    `:` type($lhs) `->` type($result)
  }];
  let extraClassDeclaration = "::mlir::LogicalResult verifyShapes();";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HLO_SelectOp : HLO_Op<"select",
    [Pure, AllTypesMatch<["on_true", "on_false", "result"]>,
     HLO_VerifyShapesFirst, Elementwise]> {
  let summary = "elementwise choice";
  let description = [{
    Takes `on_true` where `pred` is true and `on_false` elsewhere. `pred` has
    the shape of the result. See docs/hlo-dialect.md#select.

    ```mlir
    %3 = hlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>
    ```
  }];
  let arguments = (ins HLO_PredTensor:$pred, HLO_AnyTensor:$on_true,
                       HLO_AnyTensor:$on_false);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    $pred `,` $on_true `,` $on_false attr-dict `:` type($pred) `,` type($result)
  }];
  let extraClassDeclaration = "::mlir::LogicalResult verifyShapes();";
  let hasFolder = 1;
}

def HLO_ConvertOp : HLO_Op<"convert",
    [Pure, HLO_VerifyShapesFirst, Elementwise]> {
  let summary = "elementwise element-type conversion";
  let description = [{
    Converts each element to the result's element type. Float to integer
    rounds toward zero; to i1 means `!= 0`; from i1 gives 0 or 1. A real
    value x becomes the complex (x, 0); a complex value becomes its real
    part, converted. See docs/hlo-dialect.md#convert.

    ```mlir
    %1 = hlo.convert %0 : tensor<4xf32> -> tensor<4xi32>
    ```
  }];
  let arguments = (ins HLO_AnyTensor:$operand);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let extraClassDeclaration = "::mlir::LogicalResult verifyShapes();";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def HLO_BroadcastInDimOp : HLO_Op<"broadcast_in_dim", [Pure]> {
  let summary = "broadcast into a larger shape";
  let description = [{
    Operand dimension `i` becomes result dimension `dims[i]`; `dims` is
    strictly increasing, and each operand dimension has size 1 or the size
    of the result dimension it maps to. See
    docs/hlo-dialect.md#broadcast_in_dim.

    ```mlir
    %1 = hlo.broadcast_in_dim %0, dims = [1] : tensor<3xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins HLO_AnyTensor:$operand,
                       DenseI64ArrayAttr:$broadcast_dimensions);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $broadcast_dimensions attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HLO_ReshapeOp : HLO_Op<"reshape", [Pure]> {
  let summary = "reinterpret the row-major element order as a new shape";
  let description = [{
    The result holds the operand's elements in row-major order; the element
    counts match. See docs/hlo-dialect.md#reshape.

    ```mlir
    %1 = hlo.reshape %0 : tensor<12xf32> -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins HLO_AnyTensor:$operand);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HLO_TransposeOp : HLO_Op<"transpose", [Pure]> {
  let summary = "permute dimensions";
  let description = [{
    Result dimension `i` is operand dimension `permutation[i]`. See
    docs/hlo-dialect.md#transpose.

    ```mlir
    %1 = hlo.transpose %0, dims = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins HLO_AnyTensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $permutation attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and contractions
//===----------------------------------------------------------------------===//

def HLO_ReduceOp : HLO_Op<"reduce", [Pure]> {
  let summary = "reduce dimensions with an associative combiner";
  let description = [{
    Combines the elements along each dimension in `dims` with `kind` (sum,
    prod, max, min, and, or) and removes those dimensions. The reduction
    starts from the identity of `kind` (0, 1, -inf/lowest, +inf/highest,
    true, false), so reducing zero elements gives the identity. Complex
    values reduce only by sum and prod. See docs/hlo-dialect.md#reduce.

    ```mlir
    %1 = hlo.reduce sum %0, dims = [1] : tensor<4x3xf32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins HLO_ReduceKindAttr:$kind, HLO_AnyTensor:$operand,
                       DenseI64ArrayAttr:$dimensions);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $operand `,` `dims` `=` $dimensions attr-dict
    `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HLO_DotGeneralOp : HLO_Op<"dot_general", [Pure]> {
  let summary = "general tensor contraction";
  let description = [{
    Contracts `lhs` and `rhs` over the paired `contracting_dims` and runs
    independently over the paired `batch_dims`. The result dimensions are
    the batch dimensions, then the remaining lhs dimensions, then the
    remaining rhs dimensions, each in operand order. Operands and result
    share one element type. See docs/hlo-dialect.md#dot_general.

    ```mlir
    %2 = hlo.dot_general %0, %1, batch_dims = [0] x [0],
           contracting_dims = [2] x [1]
         : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
    ```
  }];
  let arguments = (ins HLO_NumericOrComplexTensor:$lhs,
                       HLO_NumericOrComplexTensor:$rhs,
                       DenseI64ArrayAttr:$lhs_batching_dimensions,
                       DenseI64ArrayAttr:$rhs_batching_dimensions,
                       DenseI64ArrayAttr:$lhs_contracting_dimensions,
                       DenseI64ArrayAttr:$rhs_contracting_dimensions);
  let results = (outs HLO_NumericOrComplexTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` `batch_dims` `=` $lhs_batching_dimensions `x`
    $rhs_batching_dimensions `,` `contracting_dims` `=`
    $lhs_contracting_dimensions `x` $rhs_contracting_dimensions attr-dict
    `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def HLO_ArgReduceOp : HLO_Op<"arg_reduce", [Pure]> {
  let summary = "index of the extreme element along one dimension";
  let description = [{
    Returns, for each position of the other dimensions, the index along
    `dim` of the largest (`max`) or smallest (`min`) element; ties give the
    first occurrence, and NaN counts as the extreme (like jnp.argmax). The
    result drops `dim` and has element type i32 or i64. See
    docs/hlo-dialect.md#arg_reduce.

    ```mlir
    %i = hlo.arg_reduce max %x, dim = 1 : tensor<4x3xf32> -> tensor<4xi32>
    ```
  }];
  let arguments = (ins HLO_ReduceKindAttr:$kind, HLO_Tensor:$operand,
                       I64Attr:$dimension);
  let results = (outs HLO_IndexTensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $operand `,` `dim` `=` $dimension attr-dict
    `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
}

def HLO_CumulativeOp : HLO_Op<"cumulative",
    [Pure, AllTypesMatch<["operand", "result"]>]> {
  let summary = "inclusive scan along one dimension";
  let description = [{
    Element `i` along `dim` combines elements `0..i` (or `i..n-1` when
    `reverse`) with `kind` (sum, prod, max, min; complex values only sum
    and prod). The result has the operand's type. See
    docs/hlo-dialect.md#cumulative.

    ```mlir
    %1 = hlo.cumulative sum %0, dim = 0, reverse = false : tensor<5xf32>
    ```
  }];
  let arguments = (ins HLO_ReduceKindAttr:$kind, HLO_AnyTensor:$operand,
                       I64Attr:$dimension, BoolAttr:$reverse);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $operand `,` `dim` `=` $dimension `,`
    `reverse` `=` $reverse attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

// Op families kept in their own files.
include "numlir/Dialect/HLO/IR/HLOSlicingOps.td"
include "numlir/Dialect/HLO/IR/HLOWindowOps.td"
include "numlir/Dialect/HLO/IR/HLOControlFlowOps.td"
include "numlir/Dialect/HLO/IR/HLOSortOps.td"
include "numlir/Dialect/HLO/IR/HLOBarrierOps.td"
include "numlir/Dialect/HLO/IR/HLOFusionOps.td"
include "numlir/Dialect/HLO/IR/HLOHostCallbackOps.td"
include "numlir/Dialect/HLO/IR/HLOCustomCallOps.td"
include "numlir/Dialect/HLO/IR/HLOCollectiveOps.td"

#endif // NUMLIR_DIALECT_HLO_IR_HLOOPS_TD
