//===- HLOControlFlowOps.td - while, if, case and return -*- tablegen -*---===//
//
// Included from HLOOps.td. Structured control flow on tensors with XLA
// semantics: regions capture values from above and end in hlo.return. See
// docs/hlo-dialect.md#control-flow for each op's semantics.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_DIALECT_HLO_IR_HLOCONTROLFLOWOPS_TD
#define NUMLIR_DIALECT_HLO_IR_HLOCONTROLFLOWOPS_TD

// The scalar selectors of hlo.if and hlo.case. Buildable, so the custom
// syntax does not spell their (only possible) type.
def HLO_ScalarPredTensor : Type<
    And<[HLO_PredTensor.predicate,
         CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getRank() == 0">]>,
    "scalar pred tensor (tensor<i1>)">,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getI1Type())">;
def HLO_ScalarI32Tensor : Type<
    And<[StaticShapeTensorOf<[I32]>.predicate,
         CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getRank() == 0">]>,
    "scalar i32 tensor (tensor<i32>)">,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getI32Type())">;

def HLO_ReturnOp : HLO_Op<"return", [Pure, Terminator,
    ParentOneOf<["WhileOp", "IfOp", "CaseOp", "FusionOp"]>]> {
  let summary = "terminator of the regions of hlo control flow";
  let description = [{
    Ends a region of `hlo.while`, `hlo.if`, `hlo.case` or `hlo.fusion` and yields its
    values; the parent op verifies their types. See
    docs/hlo-dialect.md#control-flow.

    ```mlir
    %r:2 = hlo.if %p -> (tensor<i32>, tensor<4xf32>) {
      hlo.return %0, %1 : tensor<i32>, tensor<4xf32>
    } else {
      hlo.return %2, %3 : tensor<i32>, tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<HLO_AnyTensor>:$results);
  let assemblyFormat = "($results^ `:` type($results))? attr-dict";
}

def HLO_WhileOp : HLO_Op<"while", [RecursiveMemoryEffects]> {
  let summary = "loop while a condition holds";
  let description = [{
    Starts with the carried values set to the operands. While the `cond`
    region (given the carried values) returns true, runs the `body` region
    on them and carries its results to the next iteration. The results are
    the carried values when `cond` returns false. Both regions take the
    carried values as arguments; `cond` returns one `tensor<i1>`, `body`
    the carried values. See docs/hlo-dialect.md#while.

    ```mlir
    %r:2 = hlo.while (%i = %zero, %x = %init) : tensor<i32>, tensor<4xf32>
    cond {
      %c = hlo.compare LT, %i, %n : tensor<i32> -> tensor<i1>
      hlo.return %c : tensor<i1>
    } do {
      %i1 = hlo.add %i, %one : tensor<i32>
      %x1 = hlo.multiply %x, %x : tensor<4xf32>
      hlo.return %i1, %x1 : tensor<i32>, tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<HLO_AnyTensor>:$operands);
  let results = (outs Variadic<HLO_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def HLO_IfOp : HLO_Op<"if", [RecursiveMemoryEffects]> {
  let summary = "run one of two regions";
  let description = [{
    Runs `then_branch` if `pred` is true and `else_branch` otherwise; the
    results are what the region that ran returns. The regions take no
    arguments (they use values from above) and return the result types.
    See docs/hlo-dialect.md#if.

    ```mlir
    %r = hlo.if %p -> (tensor<4xf32>) {
      hlo.return %a : tensor<4xf32>
    } else {
      %n = hlo.negate %a : tensor<4xf32>
      hlo.return %n : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins HLO_ScalarPredTensor:$pred);
  let results = (outs Variadic<HLO_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$then_branch,
                        SizedRegion<1>:$else_branch);
  let assemblyFormat = [{
    $pred (`->` `(` type($results)^ `)`)? $then_branch `else` $else_branch
    attr-dict
  }];
  let hasRegionVerifier = 1;
}

def HLO_CaseOp : HLO_Op<"case", [RecursiveMemoryEffects]> {
  let summary = "run one of N regions, chosen by an index";
  let description = [{
    Runs branch `index` and returns its results. An index outside
    `[0, N)`, negative included, runs the last branch (XLA's rule). The
    branches take no arguments and return the result types. See
    docs/hlo-dialect.md#case.

    ```mlir
    %r = hlo.case %i -> (tensor<f32>) {
      hlo.return %a : tensor<f32>
    }, {
      hlo.return %b : tensor<f32>
    }
    ```
  }];
  let arguments = (ins HLO_ScalarI32Tensor:$index);
  let results = (outs Variadic<HLO_AnyTensor>:$results);
  let regions = (region VariadicRegion<SizedRegion<1>>:$branches);
  let assemblyFormat = [{
    $index (`->` `(` type($results)^ `)`)? $branches attr-dict
  }];
  let hasRegionVerifier = 1;
}

#endif // NUMLIR_DIALECT_HLO_IR_HLOCONTROLFLOWOPS_TD
