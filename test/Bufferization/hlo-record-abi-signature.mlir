// RUN: hlo-opt %s --hlo-record-abi-signature --allow-unregistered-dialect --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func public @main
// CHECK-SAME: numlir.abi_signature = "ui8[4];f32[];bf16[2,0]->i1[4];i64[1,2,3]"
func.func public @main(%a: tensor<4xui8>, %b: tensor<f32>, %c: tensor<2x0xbf16>) -> (tensor<4xi1>, tensor<1x2x3xi64>) {
  %0 = "test.op"() : () -> tensor<4xi1>
  %1 = "test.op"() : () -> tensor<1x2x3xi64>
  return %0, %1 : tensor<4xi1>, tensor<1x2x3xi64>
}

// -----

// expected-error@+1 {{'tensor<?xf32>' is not a static tensor of a supported type}}
func.func public @main(%a: tensor<?xf32>) {
  return
}

// -----

// expected-error@+1 {{no function @main}}
module {
}
