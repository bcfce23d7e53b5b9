//===- HLOCollectiveOps.td - collectives over replicas -*- tablegen -*-----===//
//
// Included from HLOOps.td. An SPMD module (pmap's) runs once per replica;
// these ops exchange values between the replicas. See
// docs/hlo-dialect.md#collectives for the semantics and docs/runtime.md for
// the runtime calls they lower to on the CPU.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_DIALECT_HLO_IR_HLOCOLLECTIVEOPS_TD
#define NUMLIR_DIALECT_HLO_IR_HLOCOLLECTIVEOPS_TD

// What every collective reads and writes: the values of the other replicas.
// With it CSE, DCE and code motion never merge, drop or move a collective,
// so every replica reaches them in one program order.
def HLO_CollectiveResource : Resource<"::numlir::hlo::CollectiveResource">;

def HLO_AllReduceOp : HLO_Op<"all_reduce", [SameOperandsAndResultType,
    MemoryEffects<[MemRead<HLO_CollectiveResource>,
                   MemWrite<HLO_CollectiveResource>]>]> {
  let summary = "combines the operand of every replica in a group";
  let description = [{
    Every replica of a group gets `kind` (sum, prod, max, min, and, or) of
    the operands of the group's replicas, element by element, combined in
    the group's order. `replica_groups` lists the groups, one row each, by
    replica id; together they cover every replica once. The kinds take the
    element types hlo.reduce takes them for. See
    docs/hlo-dialect.md#all_reduce.

    ```mlir
    %s = hlo.all_reduce sum %x, replica_groups = [[0, 1, 2, 3]] : tensor<8x3xf32>
    %m = hlo.all_reduce max %y, replica_groups = [[0, 2], [1, 3]] : tensor<i32>
    ```
  }];
  let arguments = (ins HLO_ReduceKindAttr:$kind, HLO_AnyTensor:$operand,
                       I64ElementsAttr:$replica_groups);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $operand `,` `replica_groups` `=`
    custom<ReplicaGroups>($replica_groups) attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

// Pure: within one replica the id never changes, so two reads may be merged
// or hoisted.
def HLO_ReplicaIdOp : HLO_Op<"replica_id", [Pure]> {
  let summary = "the id of the replica that runs the module";
  let description = [{
    The replica's id, from 0 to the number of replicas minus 1 (0 where the
    module runs on one device). See docs/hlo-dialect.md#replica_id.

    ```mlir
    %i = hlo.replica_id : tensor<ui32>
    ```
  }];
  let results = (outs 0DTensorOf<[UI32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

#endif // NUMLIR_DIALECT_HLO_IR_HLOCOLLECTIVEOPS_TD
