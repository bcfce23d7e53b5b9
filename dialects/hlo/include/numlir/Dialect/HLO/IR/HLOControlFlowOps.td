//===- HLOControlFlowOps.td - ControlFlow ops of the hlo dialect -*- tablegen -*-===//
//
// Included from HLOOps.td. See docs/hlo-dialect.md for each op's semantics.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_DIALECT_HLO_IR_HLOCONTROLFLOWOPS_TD
#define NUMLIR_DIALECT_HLO_IR_HLOCONTROLFLOWOPS_TD

#endif // NUMLIR_DIALECT_HLO_IR_HLOCONTROLFLOWOPS_TD
