// RUN: hlo-opt %s --split-input-file --alias-donated-buffers -verify-diagnostics

// A donated buffer holds an output of its own type.
// expected-error @below {{argument #0 of type 'memref<4xf32>' is donated to output #0 of type 'memref<4xi32>'; a donated buffer holds an output of its own static type}}
func.func @wrong_type(%a: memref<4xf32> {numlir.aliasing_output = 0 : i32}, %out: memref<4xi32> {bufferize.result}) {
  return
}

// -----

// expected-error @below {{argument #0 is donated to output #1, but the function has 1 output buffers}}
func.func @no_such_output(%a: memref<4xf32> {numlir.aliasing_output = 1 : i32}, %out: memref<4xf32> {bufferize.result}) {
  return
}

// -----

// expected-error @below {{two arguments are donated to output #0}}
func.func @one_output_twice(%a: memref<4xf32> {numlir.aliasing_output = 0 : i32},
                            %b: memref<4xf32> {numlir.aliasing_output = 0 : i32},
                            %out: memref<4xf32> {bufferize.result}) {
  return
}

// -----

// expected-error @below {{numlir.aliasing_output of argument #0 must be an integer output number}}
func.func @not_a_number(%a: memref<4xf32> {numlir.aliasing_output = "zero"}, %out: memref<4xf32> {bufferize.result}) {
  return
}
