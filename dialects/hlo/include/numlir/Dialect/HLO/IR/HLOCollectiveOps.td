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

class HLO_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : HLO_Op<mnemonic, !listconcat(traits, [
        MemoryEffects<[MemRead<HLO_CollectiveResource>,
                       MemWrite<HLO_CollectiveResource>]>])>;

def HLO_AllGatherOp : HLO_CollectiveOp<"all_gather"> {
  let summary = "concatenates the operands of a group's replicas";
  let description = [{
    Every replica of a group gets the operands of the group's replicas
    concatenated along `dim`, in the group's order: the result's `dim` is
    the operand's times the group size. See docs/hlo-dialect.md#all_gather.

    ```mlir
    %g = hlo.all_gather %x, dim = 0, replica_groups = [[0, 2], [1, 3]] : tensor<2x3xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins HLO_AnyTensor:$operand, I64Attr:$dim,
                       I64ElementsAttr:$replica_groups);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `dim` `=` $dim `,` `replica_groups` `=`
    custom<ReplicaGroups>($replica_groups) attr-dict `:` type($operand) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def HLO_AllToAllOp : HLO_CollectiveOp<"all_to_all"> {
  let summary = "exchanges blocks of the operand between a group's replicas";
  let description = [{
    Splits the operand along `split_dim` into one block per member of the
    group; the replica at position r of its group receives block r of every
    member and concatenates them along `concat_dim` in the group's order.
    The result's `split_dim` is the operand's divided by the group size, its
    `concat_dim` multiplied by it (both, when they are the same dim). See
    docs/hlo-dialect.md#all_to_all.

    ```mlir
    %t = hlo.all_to_all %x, split_dim = 0, concat_dim = 1, replica_groups = [[0, 1]] : tensor<4x3xf32> -> tensor<2x6xf32>
    ```
  }];
  let arguments = (ins HLO_AnyTensor:$operand, I64Attr:$split_dim,
                       I64Attr:$concat_dim, I64ElementsAttr:$replica_groups);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `split_dim` `=` $split_dim `,` `concat_dim` `=` $concat_dim `,`
    `replica_groups` `=` custom<ReplicaGroups>($replica_groups) attr-dict `:`
    type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
}

def HLO_ReduceScatterOp : HLO_CollectiveOp<"reduce_scatter"> {
  let summary = "combines a group's operands and keeps one block on each";
  let description = [{
    Combines the operands of the group's replicas with `kind` as
    hlo.all_reduce does, then splits the result along `dim` into one block
    per member: the replica at position r of its group keeps block r. The
    result's `dim` is the operand's divided by the group size. See
    docs/hlo-dialect.md#reduce_scatter.

    ```mlir
    %r = hlo.reduce_scatter sum %x, dim = 0, replica_groups = [[0, 1, 2, 3]] : tensor<8xf32> -> tensor<2xf32>
    ```
  }];
  let arguments = (ins HLO_ReduceKindAttr:$kind, HLO_AnyTensor:$operand,
                       I64Attr:$dim, I64ElementsAttr:$replica_groups);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $operand `,` `dim` `=` $dim `,`
    `replica_groups` `=` custom<ReplicaGroups>($replica_groups) attr-dict `:`
    type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
}

def HLO_CollectivePermuteOp : HLO_CollectiveOp<"collective_permute",
    [SameOperandsAndResultType]> {
  let summary = "sends the operand from replica to replica";
  let description = [{
    For each `[source, target]` pair the target replica's result is the
    source replica's operand; a replica that is no pair's target gets
    zeros. Sources are distinct, and so are targets. See
    docs/hlo-dialect.md#collective_permute.

    ```mlir
    %p = hlo.collective_permute %x, pairs = [[0, 1], [1, 2], [2, 0]] : tensor<4xf32>
    ```
  }];
  let arguments = (ins HLO_AnyTensor:$operand, I64ElementsAttr:$pairs);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `pairs` `=` custom<ReplicaGroups>($pairs) attr-dict `:`
    type($result)
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
