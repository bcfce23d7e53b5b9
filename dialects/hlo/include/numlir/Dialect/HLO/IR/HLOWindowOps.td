//===- HLOWindowOps.td - windowed ops of the hlo dialect -*- tablegen -*---===//
//
// Included from HLOOps.td: reduce_window and convolution, the ops that slide
// a window over padded, dilated spatial dimensions. See docs/hlo-dialect.md
// for each op's semantics. Both ops have custom syntax (HLOWindowOps.cpp)
// that prints window parameters only where they differ from the default.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_DIALECT_HLO_IR_HLOWINDOWOPS_TD
#define NUMLIR_DIALECT_HLO_IR_HLOWINDOWOPS_TD

def HLO_ReduceWindowOp : HLO_Op<"reduce_window", [Pure]> {
  let summary = "reduce each window of a padded, dilated operand";
  let description = [{
    Slides a window of `window` elements over the operand and combines each
    window with `kind` (sum, prod, max, min, and, or). The operand is first
    dilated by `base_dilations` (holes between elements) and padded by
    `padding` (`[low, high]` per dimension, negative values cut); holes and
    padding hold the identity of `kind`, so they never change a result.
    Windows start `strides` apart and their elements are `window_dilations`
    apart. `strides`, `padding` and both dilations may be omitted (1, 0, 1,
    1). See docs/hlo-dialect.md#reduce_window.

    ```mlir
    %1 = hlo.reduce_window max %0, window = [1, 2, 2, 1],
           strides = [1, 2, 2, 1], padding = [[0, 0], [0, 1], [0, 1], [0, 0]]
         : tensor<1x4x4x3xf32> -> tensor<1x2x2x3xf32>
    ```
  }];
  let arguments = (ins HLO_ReduceKindAttr:$kind, HLO_Tensor:$operand,
                       DenseI64ArrayAttr:$window_dimensions,
                       DenseI64ArrayAttr:$window_strides,
                       DenseI64ArrayAttr:$base_dilations,
                       DenseI64ArrayAttr:$window_dilations,
                       DenseI64ArrayAttr:$padding);
  let results = (outs HLO_Tensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `padding` as (low, high) pairs, one per dimension.
    ::llvm::SmallVector<std::pair<int64_t, int64_t>> getPaddingPairs();
  }];
}

def HLO_ConvolutionOp : HLO_Op<"convolution", [Pure]> {
  let summary = "XLA convolution with dimension numbers and groups";
  let description = [{
    Slides the kernel `rhs` over the spatial dimensions of `lhs` after
    dilating `lhs` by `lhs_dilation` and zero-padding it by `padding`, with
    window `strides` and the kernel dilated by `rhs_dilation`, and sums the
    products over the input features and the kernel window.
    `dims = LHS x RHS -> OUT` names each dimension of the three tensors: `b`
    batch, `f` feature, `i`/`o` kernel input/output feature, and an integer
    `k` the k-th spatial dimension. `feature_group_count` splits the input
    features (and the output features) into groups convolved separately;
    `batch_group_count` does the same with the batch. Omitted window
    parameters default to strides 1, padding 0, dilations 1, groups 1. See
    docs/hlo-dialect.md#convolution.

    ```mlir
    %2 = hlo.convolution %0, %1, dims = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
           strides = [2, 2], padding = [[1, 1], [1, 1]]
         : tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32> -> tensor<1x4x4x16xf32>
    ```
  }];
  let arguments = (ins HLO_NumericTensor:$lhs, HLO_NumericTensor:$rhs,
                       I64Attr:$input_batch_dimension,
                       I64Attr:$input_feature_dimension,
                       DenseI64ArrayAttr:$input_spatial_dimensions,
                       I64Attr:$kernel_input_feature_dimension,
                       I64Attr:$kernel_output_feature_dimension,
                       DenseI64ArrayAttr:$kernel_spatial_dimensions,
                       I64Attr:$output_batch_dimension,
                       I64Attr:$output_feature_dimension,
                       DenseI64ArrayAttr:$output_spatial_dimensions,
                       DenseI64ArrayAttr:$window_strides,
                       DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$lhs_dilation,
                       DenseI64ArrayAttr:$rhs_dilation,
                       I64Attr:$feature_group_count,
                       I64Attr:$batch_group_count);
  let results = (outs HLO_NumericTensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `padding` as (low, high) pairs, one per spatial dimension.
    ::llvm::SmallVector<std::pair<int64_t, int64_t>> getPaddingPairs();
  }];
}

#endif // NUMLIR_DIALECT_HLO_IR_HLOWINDOWOPS_TD
