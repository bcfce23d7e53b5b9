//===- HLOEnums.td - enum attributes of the hlo dialect -------------------===//

#ifndef NUMLIR_DIALECT_HLO_IR_HLOENUMS_TD
#define NUMLIR_DIALECT_HLO_IR_HLOENUMS_TD

include "numlir/Dialect/HLO/IR/HLODialect.td"
include "mlir/IR/EnumAttr.td"

def HLO_ComparisonDirection : I32EnumAttr<"ComparisonDirection",
    "which comparison hlo.compare performs", [
      I32EnumAttrCase<"EQ", 0>, I32EnumAttrCase<"NE", 1>,
      I32EnumAttrCase<"LT", 2>, I32EnumAttrCase<"LE", 3>,
      I32EnumAttrCase<"GT", 4>, I32EnumAttrCase<"GE", 5>]> {
  let cppNamespace = "::numlir::hlo";
  let genSpecializedAttr = 0;
}
def HLO_ComparisonDirectionAttr
    : EnumAttr<HLO_Dialect, HLO_ComparisonDirection, "comparison_direction"> {
  let assemblyFormat = "$value";
}

def HLO_ReduceKind : I32EnumAttr<"ReduceKind",
    "the associative combiner of hlo.reduce", [
      I32EnumAttrCase<"Sum", 0, "sum">, I32EnumAttrCase<"Prod", 1, "prod">,
      I32EnumAttrCase<"Max", 2, "max">, I32EnumAttrCase<"Min", 3, "min">,
      I32EnumAttrCase<"And", 4, "and">, I32EnumAttrCase<"Or", 5, "or">]> {
  let cppNamespace = "::numlir::hlo";
  let genSpecializedAttr = 0;
}
def HLO_ReduceKindAttr : EnumAttr<HLO_Dialect, HLO_ReduceKind, "reduce_kind"> {
  let assemblyFormat = "$value";
}

def HLO_ScatterKind : I32EnumAttr<"ScatterKind",
    "how hlo.scatter combines an update with the element it lands on", [
      I32EnumAttrCase<"Set", 0, "set">, I32EnumAttrCase<"Add", 1, "add">,
      I32EnumAttrCase<"Mul", 2, "mul">, I32EnumAttrCase<"Min", 3, "min">,
      I32EnumAttrCase<"Max", 4, "max">]> {
  let cppNamespace = "::numlir::hlo";
  let genSpecializedAttr = 0;
}
def HLO_ScatterKindAttr
    : EnumAttr<HLO_Dialect, HLO_ScatterKind, "scatter_kind"> {
  let assemblyFormat = "$value";
}

#endif // NUMLIR_DIALECT_HLO_IR_HLOENUMS_TD
