// RUN: hlo-opt %s --cuda-outline-fusions -split-input-file -verify-diagnostics

// Control flow between kernels needs the host, which the launch program
// does not have yet.
func.func public @loop(%n: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{cannot run on the cuda backend: control flow runs on the host between kernels}}
  %r = hlo.while (%i = %n) : tensor<i32> cond {
    %z = hlo.constant dense<0> : tensor<i32>
    %p = hlo.compare GT, %i, %z : tensor<i32> -> tensor<i1>
    hlo.return %p : tensor<i1>
  } do {
    %one = hlo.constant dense<1> : tensor<i32>
    %m = hlo.subtract %i, %one : tensor<i32>
    hlo.return %m : tensor<i32>
  }
  return %r : tensor<i32>
}
