//===- HLOSlicingOps.td - slicing and indexing ops of hlo -*- tablegen -*-===//
//
// Included from HLOOps.td. See docs/hlo-dialect.md for each op's semantics.
// Ops that take index operands write them in brackets after the operand,
// and their types the same way: `%a[%i, %j] : tensor<4x4xf32>[tensor<i32>,
// tensor<i32>]`.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_DIALECT_HLO_IR_HLOSLICINGOPS_TD
#define NUMLIR_DIALECT_HLO_IR_HLOSLICINGOPS_TD

//===----------------------------------------------------------------------===//
// Static and dynamic slices
//===----------------------------------------------------------------------===//

def HLO_SliceOp : HLO_Op<"slice", [Pure]> {
  let summary = "a static strided slice";
  let description = [{
    Takes the elements at `start[d], start[d] + strides[d], ...` below
    `limit[d]` along every dimension `d`; result dimension `d` has size
    `ceil((limit[d] - start[d]) / strides[d])`. See
    docs/hlo-dialect.md#slice.

    ```mlir
    %1 = hlo.slice %0, start = [1, 0], limit = [3, 4], strides = [1, 2]
         : tensor<4x4xf32> -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins HLO_AnyTensor:$operand,
                       DenseI64ArrayAttr:$start_indices,
                       DenseI64ArrayAttr:$limit_indices,
                       DenseI64ArrayAttr:$strides);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `start` `=` $start_indices `,` `limit` `=` $limit_indices `,`
    `strides` `=` $strides attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HLO_DynamicSliceOp : HLO_Op<"dynamic_slice", [Pure]> {
  let summary = "a slice of static size at run-time start indices";
  let description = [{
    Takes the block of shape `sizes` that starts at the scalar start indices
    (one per dimension). Each start is clamped to `[0, dim - size]`, so the
    block always lies inside the operand. See
    docs/hlo-dialect.md#dynamic_slice.

    ```mlir
    %1 = hlo.dynamic_slice %0[%i, %j], sizes = [2, 2]
         : tensor<4x4xf32>[tensor<i32>, tensor<i32>] -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins HLO_AnyTensor:$operand,
                       Variadic<HLO_IndexTensor>:$start_indices,
                       DenseI64ArrayAttr:$slice_sizes);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `[` $start_indices `]` `,` `sizes` `=` $slice_sizes attr-dict
    `:` type($operand) (`[` type($start_indices)^ `]`)? `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HLO_DynamicUpdateSliceOp : HLO_Op<"dynamic_update_slice",
    [Pure, AllTypesMatch<["operand", "result"]>]> {
  let summary = "overwrite a block at run-time start indices";
  let description = [{
    The operand with the block starting at the scalar start indices replaced
    by `update`. Each start is clamped to `[0, dim - update dim]`, so the
    block always lies inside the operand. See
    docs/hlo-dialect.md#dynamic_update_slice.

    ```mlir
    %2 = hlo.dynamic_update_slice %0[%i, %j], %1
         : tensor<4x4xf32>[tensor<i32>, tensor<i32>], tensor<2x2xf32>
    ```
  }];
  let arguments = (ins HLO_AnyTensor:$operand,
                       Variadic<HLO_IndexTensor>:$start_indices,
                       HLO_AnyTensor:$update);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `[` $start_indices `]` `,` $update attr-dict
    `:` type($operand) (`[` type($start_indices)^ `]`)? `,` type($update)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Joining, padding, reversing
//===----------------------------------------------------------------------===//

def HLO_ConcatenateOp : HLO_Op<"concatenate", [Pure]> {
  let summary = "join tensors along one dimension";
  let description = [{
    Places the inputs one after another along dimension `dim`; all other
    dimensions and the element type agree. See
    docs/hlo-dialect.md#concatenate.

    ```mlir
    %2 = hlo.concatenate dim = 0, %0, %1
         : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<3x3xf32>
    ```
  }];
  let arguments = (ins Variadic<HLO_AnyTensor>:$inputs, I64Attr:$dimension);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    `dim` `=` $dimension `,` $inputs attr-dict `:` type($inputs) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HLO_PadOp : HLO_Op<"pad", [Pure]> {
  let summary = "pad (or crop) with a scalar value, with interior padding";
  let description = [{
    Inserts `interior[d]` padding elements between neighbouring elements of
    dimension `d`, then `low[d]` before and `high[d]` after it. Negative
    `low`/`high` remove elements from that edge instead. See
    docs/hlo-dialect.md#pad.

    ```mlir
    %2 = hlo.pad %0, %v, low = [1, -1], high = [0, 2], interior = [0, 1]
         : tensor<2x3xf32>, tensor<f32> -> tensor<3x6xf32>
    ```
  }];
  let arguments = (ins HLO_AnyTensor:$operand, HLO_AnyTensor:$padding_value,
                       DenseI64ArrayAttr:$edge_padding_low,
                       DenseI64ArrayAttr:$edge_padding_high,
                       DenseI64ArrayAttr:$interior_padding);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` $padding_value `,` `low` `=` $edge_padding_low `,` `high` `=`
    $edge_padding_high `,` `interior` `=` $interior_padding attr-dict
    `:` type($operand) `,` type($padding_value) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HLO_ReverseOp : HLO_Op<"reverse", [Pure, SameOperandsAndResultType]> {
  let summary = "reverse the order of elements along dimensions";
  let description = [{
    `result[..., i, ...] = operand[..., n - 1 - i, ...]` along every
    dimension in `dims`. See docs/hlo-dialect.md#reverse.

    ```mlir
    %1 = hlo.reverse %0, dims = [0] : tensor<4x3xf32>
    ```
  }];
  let arguments = (ins HLO_AnyTensor:$operand, DenseI64ArrayAttr:$dimensions);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $dimensions attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Gather and scatter
//===----------------------------------------------------------------------===//

def HLO_GatherOp : HLO_Op<"gather", [Pure]> {
  let summary = "gather slices at run-time start indices";
  let description = [{
    For every index vector in `start_indices` (the vectors run along
    `index_vector_dim`; when it equals the rank of `start_indices` every
    element is a vector of length 1), takes the slice of shape
    `slice_sizes` that starts there: vector entry `k` is the start along
    operand dimension `start_index_map[k]`, clamped so the slice lies
    inside the operand. The slice's dimensions in `collapsed_slice_dims`
    (of size 1) are dropped, the others become the result dimensions
    `offset_dims`; the remaining result dimensions run over the index
    vectors. This is StableHLO's gather without batching dimensions. See
    docs/hlo-dialect.md#gather.

    ```mlir
    // Rows 2 and 0 of a 5x3 matrix: %idx = [[2], [0]].
    %2 = hlo.gather %0[%idx], offset_dims = [1], collapsed_slice_dims = [0],
           start_index_map = [0], index_vector_dim = 1, slice_sizes = [1, 3]
         : tensor<5x3xf32>[tensor<2x1xi32>] -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins HLO_AnyTensor:$operand, HLO_IndexTensor:$start_indices,
                       DenseI64ArrayAttr:$offset_dims,
                       DenseI64ArrayAttr:$collapsed_slice_dims,
                       DenseI64ArrayAttr:$start_index_map,
                       I64Attr:$index_vector_dim,
                       DenseI64ArrayAttr:$slice_sizes);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `[` $start_indices `]` `,` `offset_dims` `=` $offset_dims `,`
    `collapsed_slice_dims` `=` $collapsed_slice_dims `,` `start_index_map` `=`
    $start_index_map `,` `index_vector_dim` `=` $index_vector_dim `,`
    `slice_sizes` `=` $slice_sizes attr-dict
    `:` type($operand) `[` type($start_indices) `]` `->` type($result)
  }];
  let hasVerifier = 1;
}

def HLO_ScatterOp : HLO_Op<"scatter",
    [Pure, AllTypesMatch<["operand", "result"]>]> {
  let summary = "combine update windows into a tensor at run-time indices";
  let description = [{
    The operand with every update window combined into it by `kind` (`set`
    overwrites, `add`, `mul`, `min`, `max` combine the old element with the
    update). The update dimensions not in `update_window_dims` run over the
    index vectors of `indices` (along `index_vector_dim`); vector entry `k`
    is the window's start along operand dimension
    `scatter_dims_to_operand_dims[k]`. The window's dimensions are the
    operand dimensions not in `inserted_window_dims` (which have size 1).
    A window that does not lie entirely inside the operand is skipped.
    Windows apply one after another in row-major order of the index
    vectors, so with `set` the last duplicate wins. See
    docs/hlo-dialect.md#scatter.

    ```mlir
    // %r[idx[i]] += upd[i] for rows of a 5x3 matrix.
    %3 = hlo.scatter add %0[%idx], %upd, update_window_dims = [1],
           inserted_window_dims = [0], scatter_dims_to_operand_dims = [0],
           index_vector_dim = 1
         : tensor<5x3xf32>[tensor<2x1xi32>], tensor<2x3xf32>
    ```
  }];
  let arguments = (ins HLO_ScatterKindAttr:$kind, HLO_AnyTensor:$operand,
                       HLO_IndexTensor:$scatter_indices, HLO_AnyTensor:$updates,
                       DenseI64ArrayAttr:$update_window_dims,
                       DenseI64ArrayAttr:$inserted_window_dims,
                       DenseI64ArrayAttr:$scatter_dims_to_operand_dims,
                       I64Attr:$index_vector_dim);
  let results = (outs HLO_AnyTensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $operand `[` $scatter_indices `]` `,` $updates
    `,` `update_window_dims` `=` $update_window_dims `,`
    `inserted_window_dims` `=` $inserted_window_dims `,`
    `scatter_dims_to_operand_dims` `=` $scatter_dims_to_operand_dims `,`
    `index_vector_dim` `=` $index_vector_dim attr-dict
    `:` type($operand) `[` type($scatter_indices) `]` `,` type($updates)
  }];
  let hasVerifier = 1;  let hasFolder = 1;
}

#endif // NUMLIR_DIALECT_HLO_IR_HLOSLICINGOPS_TD
