// RUN: hlo-opt %s --split-input-file --cpu-expand-arith | FileCheck %s
// RUN: hlo-opt %s --split-input-file --cpu-expand-arith --convert-arith-to-llvm | FileCheck %s --check-prefix=LLVM

// Float min and max stay ops (LLVM vectorizes their reductions); what
// convert-arith-to-llvm cannot lower is expanded.
// CHECK-LABEL: func.func @min_max_are_kept
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.maxnumf
// CHECK: arith.minnumf
// CHECK-NOT: arith.cmpf
// CHECK-NOT: arith.select
// LLVM-LABEL: func.func @min_max_are_kept
// LLVM: llvm.intr.maximum
// LLVM: llvm.intr.minimum
// LLVM: llvm.intr.maxnum
// LLVM: llvm.intr.minnum
func.func @min_max_are_kept(%a: vector<8xf32>, %b: vector<8xf32>) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
  %0 = arith.maximumf %a, %b : vector<8xf32>
  %1 = arith.minimumf %a, %b : vector<8xf32>
  %2 = arith.maxnumf %a, %b : vector<8xf32>
  %3 = arith.minnumf %a, %b : vector<8xf32>
  return %0, %1, %2, %3 : vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @integer_divisions_are_expanded
// CHECK-NOT: arith.ceildivsi
// CHECK-NOT: arith.floordivsi
// CHECK-NOT: arith.ceildivui
// CHECK: arith.divsi
// CHECK: return
func.func @integer_divisions_are_expanded(%a: i32, %b: i32) -> (i32, i32, i32) {
  %0 = arith.ceildivsi %a, %b : i32
  %1 = arith.floordivsi %a, %b : i32
  %2 = arith.ceildivui %a, %b : i32
  return %0, %1, %2 : i32, i32, i32
}

// -----

// bf16 conversions become integer arithmetic on the bits, so no call into
// the C compiler's runtime (__truncsfbf2) is left.
// CHECK-LABEL: func.func @bf16_conversions_are_expanded
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: arith.bitcast
// CHECK: return
func.func @bf16_conversions_are_expanded(%a: f32) -> f32 {
  %0 = arith.truncf %a : f32 to bf16
  %1 = arith.extf %0 : bf16 to f32
  return %1 : f32
}
