// RUN: hlo-opt %s --split-input-file --alias-donated-buffers | FileCheck %s

// The output is written by the update while %p is still read after it (the
// load): at run time both are one buffer, so the update writes a temporary,
// copied into the output just before the return.
// CHECK-LABEL: func.func @read_after_the_update(
// CHECK-SAME: %[[P:[^:]*]]: memref<4xf32> {numlir.aliasing_output = 0 : i32}, %[[G:[^:]*]]: memref<4xf32>, %[[OUT:[^:]*]]: memref<4xf32> {bufferize.result}
// CHECK-NEXT: %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[P]], %[[G]] : memref<4xf32>, memref<4xf32>) outs(%[[T]] : memref<4xf32>)
// CHECK: memref.load %[[P]]
// CHECK: memref.copy %[[T]], %[[OUT]] : memref<4xf32> to memref<4xf32>
// CHECK-NEXT: memref.dealloc %[[T]] : memref<4xf32>
// CHECK-NEXT: return
#id = affine_map<(d0) -> (d0)>
func.func @read_after_the_update(%p: memref<4xf32> {numlir.aliasing_output = 0 : i32}, %g: memref<4xf32>,
                                 %out: memref<4xf32> {bufferize.result}, %first: memref<f32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%p, %g : memref<4xf32>, memref<4xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %d = arith.subf %x, %y : f32
    linalg.yield %d : f32
  }
  %v = memref.load %p[%c0] : memref<4xf32>
  memref.store %v, %first[] : memref<f32>
  return
}

// -----

// A result that was another buffer arrives by one copy after the donated
// argument's last use: that copy already writes the output last, and stays.
// CHECK-LABEL: func.func @copied_in_last
// CHECK-NOT: memref.alloc
// CHECK: memref.store
// CHECK-NEXT: memref.copy %arg1, %arg2
// CHECK-NEXT: return
func.func @copied_in_last(%a: memref<4xf32> {numlir.aliasing_output = 0 : i32}, %b: memref<4xf32>,
                          %out: memref<4xf32> {bufferize.result}, %first: memref<f32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<4xf32>
  memref.store %v, %first[] : memref<f32>
  memref.copy %b, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// A copy from a transposed view of the argument would permute the buffer
// onto itself: it goes through a temporary.
// CHECK-LABEL: func.func @transposed_view_of_itself
// CHECK: %[[T:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK: memref.copy %{{.*}}, %[[T]] : memref<2x2xf32, strided<[1, 2]>> to memref<2x2xf32>
// CHECK: memref.copy %[[T]], %arg1
func.func @transposed_view_of_itself(%a: memref<2x2xf32> {numlir.aliasing_output = 0 : i32},
                                     %out: memref<2x2xf32> {bufferize.result}) {
  %t = memref.transpose %a (i, j) -> (j, i) : memref<2x2xf32> to memref<2x2xf32, strided<[1, 2]>>
  memref.copy %t, %out : memref<2x2xf32, strided<[1, 2]>> to memref<2x2xf32>
  return
}

// -----

// A copy that other reads of the argument follow goes through a temporary
// too; uses inside a loop count at the loop.
// CHECK-LABEL: func.func @read_in_a_later_loop
// CHECK: %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.copy %arg1, %[[T]]
// CHECK: scf.for
// CHECK: memref.copy %[[T]], %arg2
func.func @read_in_a_later_loop(%a: memref<4xf32> {numlir.aliasing_output = 0 : i32}, %b: memref<4xf32>,
                                %out: memref<4xf32> {bufferize.result}, %sum: memref<f32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  memref.copy %b, %out : memref<4xf32> to memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %a[%i] : memref<4xf32>
    memref.store %v, %sum[] : memref<f32>
  }
  return
}

// -----

// A branch that yields the argument hands it out of the `scf.if`: the copy
// of that result into the second output reads the argument, so the first
// output, copied in before it, goes through a temporary (fuzz seed 112,
// program 1420: both outputs were 2x).
// CHECK-LABEL: func.func @yielded_out_of_a_branch
// CHECK: %[[T:.*]] = memref.alloc() : memref<f32>
// CHECK: %[[KEPT:.*]] = scf.if
// CHECK: memref.copy %arg2, %[[T]] : memref<f32> to memref<f32>
// CHECK-NEXT: memref.copy %[[KEPT]], %arg4
// CHECK-NEXT: memref.copy %[[T]], %arg3
// CHECK-NEXT: memref.dealloc %[[T]]
// CHECK-NEXT: return
func.func @yielded_out_of_a_branch(%x: memref<f32> {numlir.aliasing_output = 0 : i32},
                                   %flag: i1, %doubled: memref<f32>,
                                   %out0: memref<f32> {bufferize.result},
                                   %out1: memref<f32> {bufferize.result}) {
  %kept = scf.if %flag -> (memref<f32>) {
    scf.yield %x : memref<f32>
  } else {
    scf.yield %doubled : memref<f32>
  }
  memref.copy %doubled, %out0 : memref<f32> to memref<f32>
  memref.copy %kept, %out1 : memref<f32> to memref<f32>
  return
}

// -----

// The source of the output's one copy is an `scf.if` that may yield the
// argument itself, so it counts as a view of the argument: the copy goes
// through a temporary, as a copy from any other view of it does.
// CHECK-LABEL: func.func @copied_from_a_branch_that_yields_the_argument
// CHECK: %[[T:.*]] = memref.alloc() : memref<f32>
// CHECK: memref.copy %[[T]], %arg3
func.func @copied_from_a_branch_that_yields_the_argument(
    %x: memref<f32> {numlir.aliasing_output = 0 : i32}, %flag: i1,
    %other: memref<f32>, %out0: memref<f32> {bufferize.result}) {
  %maybe = scf.if %flag -> (memref<f32>) {
    scf.yield %x : memref<f32>
  } else {
    scf.yield %other : memref<f32>
  }
  memref.copy %maybe, %out0 : memref<f32> to memref<f32>
  return
}

// -----

// A donated pmap(psum): the all_reduce call reads the argument at its last
// use and the runtime runs it in place, so it writes the output directly; so
// does a collective_permute. An all_gather (op 2) is not run in place, and an
// all_reduce whose argument is read after it, or whose operand is a view of
// the argument, writes a temporary.
// CHECK-LABEL: func.func @in_place_collectives(
// CHECK-NOT: memref.alloc
// CHECK: call @__numlir_collective_0(%arg0, %arg2)
// CHECK-NEXT: call @__numlir_collective_1(%arg1, %arg3)
// CHECK-NEXT: return
func.func private @__numlir_collective_0(memref<4xf32>, memref<4xf32>)
    attributes {numlir.collective = 0 : i64, numlir.collective_op = 0 : i64}
func.func private @__numlir_collective_1(memref<4xf32>, memref<4xf32>)
    attributes {numlir.collective = 1 : i64, numlir.collective_op = 5 : i64}
func.func private @__numlir_collective_2(memref<4xf32>, memref<4xf32>)
    attributes {numlir.collective = 2 : i64, numlir.collective_op = 2 : i64}
func.func @in_place_collectives(%a: memref<4xf32> {numlir.aliasing_output = 0 : i32},
                                %b: memref<4xf32> {numlir.aliasing_output = 1 : i32},
                                %out: memref<4xf32> {bufferize.result},
                                %out1: memref<4xf32> {bufferize.result}) {
  call @__numlir_collective_0(%a, %out) : (memref<4xf32>, memref<4xf32>) -> ()
  call @__numlir_collective_1(%b, %out1) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @not_in_place(
// CHECK: call @__numlir_collective_2(%arg0, %[[T0:alloc[_0-9]*]])
// CHECK: call @__numlir_collective_0(%arg1, %[[T1:alloc[_0-9]*]])
// CHECK: memref.load %arg1
// CHECK: call @__numlir_collective_0(%{{.*}}, %[[T2:alloc[_0-9]*]])
// CHECK: memref.copy %[[T0]], %arg3
// CHECK: memref.copy %[[T1]], %arg4
// CHECK: memref.copy %[[T2]], %arg5
// CHECK: return
func.func @not_in_place(%a: memref<4xf32> {numlir.aliasing_output = 0 : i32},
                        %b: memref<4xf32> {numlir.aliasing_output = 1 : i32},
                        %c: memref<4xf32> {numlir.aliasing_output = 2 : i32},
                        %out: memref<4xf32> {bufferize.result},
                        %out1: memref<4xf32> {bufferize.result},
                        %out2: memref<4xf32> {bufferize.result},
                        %first: memref<f32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  call @__numlir_collective_2(%a, %out) : (memref<4xf32>, memref<4xf32>) -> ()
  call @__numlir_collective_0(%b, %out1) : (memref<4xf32>, memref<4xf32>) -> ()
  %v = memref.load %b[%c0] : memref<4xf32>
  memref.store %v, %first[] : memref<f32>
  %view = memref.cast %c : memref<4xf32> to memref<?xf32>
  %dense = memref.cast %view : memref<?xf32> to memref<4xf32>
  call @__numlir_collective_0(%dense, %out2) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
