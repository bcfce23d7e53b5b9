// RUN: hlo-opt %s --split-input-file --assign-buffers | FileCheck %s
// RUN: hlo-opt %s --split-input-file --assign-buffers="max-buffer-bytes=256" | FileCheck %s --check-prefix=SMALL

// %a (ops 1-3) and %c (ops 4-6) are never live together: they share bytes.
// %b is live from op 2 to op 5, across both, so it gets bytes of its own;
// being the largest, it is placed first, at byte 0. The arena is allocated
// at the start of the block and freed before the return; the buffers'
// deallocs go. Each buffer is a view of a slot of the arena, called for
// where the buffer was allocated and ended just after its last use, so %a's
// slot ends before %c's, at the same bytes, begins (ArenaSlots.h).
// CHECK-LABEL: func.func @disjoint_ranges_share_bytes
// CHECK-NEXT: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1280xi8>
// CHECK-NEXT: %[[BYTES:.*]] = memref.cast %[[ARENA]] : memref<1280xi8> to memref<?xi8>
// CHECK: %[[SA:.*]] = call @__numlir_arena_slot(%[[BYTES]], %c1024{{.*}}, %c256{{.*}}) : (memref<?xi8>, index, index) -> memref<?xi8>
// CHECK: %[[A:.*]] = memref.view %[[SA]][%c0{{.*}}][] : memref<?xi8> to memref<64xf32>
// CHECK: %[[SB:.*]] = call @__numlir_arena_slot(%[[BYTES]], %c0{{.*}}, %c1024{{.*}})
// CHECK: %[[B:.*]] = memref.view %[[SB]][%c0{{.*}}][] : memref<?xi8> to memref<256xf32>
// CHECK: linalg.copy ins(%arg0 : memref<64xf32>) outs(%[[A]] : memref<64xf32>)
// CHECK: linalg.copy ins(%[[A]] : memref<64xf32>) outs(%arg2 : memref<64xf32>)
// CHECK-NEXT: call @__numlir_arena_slot_end(%[[SA]]) : (memref<?xi8>) -> ()
// CHECK: %[[SC:.*]] = call @__numlir_arena_slot(%[[BYTES]], %c1024{{.*}}, %c256{{.*}})
// CHECK: %[[C:.*]] = memref.view %[[SC]][%c0{{.*}}][] : memref<?xi8> to memref<64xf32>
// CHECK: linalg.copy ins(%[[B]] : memref<256xf32>) outs(%arg1 : memref<256xf32>)
// CHECK-NEXT: call @__numlir_arena_slot_end(%[[SB]])
// CHECK-NEXT: linalg.copy ins(%[[C]] : memref<64xf32>) outs(%arg0 : memref<64xf32>)
// CHECK-NEXT: call @__numlir_arena_slot_end(%[[SC]])
// CHECK-NOT: memref.dealloc %[[A]]
// CHECK: memref.dealloc %[[ARENA]] : memref<1280xi8>
// CHECK-NEXT: return
// The same buffers, none over 256 bytes: %b (1 KiB) stays on its own, and
// the other two still share.
// SMALL-LABEL: func.func @disjoint_ranges_share_bytes
// SMALL-NEXT: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256xi8>
// SMALL: memref.alloc() : memref<256xf32>
// SMALL: memref.dealloc %{{.*}} : memref<256xf32>
// SMALL: memref.dealloc %[[ARENA]]
func.func @disjoint_ranges_share_bytes(%x: memref<64xf32>, %y: memref<256xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<256xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  linalg.copy ins(%y : memref<256xf32>) outs(%b : memref<256xf32>)
  linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
  %c = memref.alloc() : memref<64xf32>
  linalg.copy ins(%out : memref<64xf32>) outs(%c : memref<64xf32>)
  linalg.copy ins(%b : memref<256xf32>) outs(%y : memref<256xf32>)
  linalg.copy ins(%c : memref<64xf32>) outs(%x : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<256xf32>
  memref.dealloc %c : memref<64xf32>
  return
}

// -----

// A use nested in a loop counts at the loop, and a use of a view counts as
// a use of the buffer: %a is read through a subview inside the loop that
// follows %b's allocation, so the two overlap and get separate bytes.
// CHECK-LABEL: func.func @nested_uses_and_views_extend_a_range
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<512xi8>
// CHECK: %[[SA:.*]] = call @__numlir_arena_slot(%{{.*}}, %c0{{.*}}, %c256{{.*}})
// CHECK: %[[SB:.*]] = call @__numlir_arena_slot(%{{.*}}, %c256{{.*}}, %c256{{.*}})
// CHECK: scf.for
// CHECK: call @__numlir_arena_slot_end(%[[SA]])
// CHECK-NEXT: linalg.copy
// CHECK-NEXT: call @__numlir_arena_slot_end(%[[SB]])
func.func @nested_uses_and_views_extend_a_range(%x: memref<8x8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<8x8xf32>
  linalg.copy ins(%x : memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  %row = memref.subview %a[0, 0] [1, 8] [1, 1] : memref<8x8xf32> to memref<8xf32, strided<[1]>>
  %b = memref.alloc() : memref<8x8xf32>
  linalg.copy ins(%x : memref<8x8xf32>) outs(%b : memref<8x8xf32>)
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %row[%i] : memref<8xf32, strided<[1]>>
    memref.store %v, %out[%i] : memref<8xf32>
  }
  linalg.copy ins(%b : memref<8x8xf32>) outs(%x : memref<8x8xf32>)
  memref.dealloc %a : memref<8x8xf32>
  memref.dealloc %b : memref<8x8xf32>
  return
}

// -----

// Buffers whose lifetime the block does not show stay on their own: one
// carried by a loop, one passed to a function the module does not define,
// one freed only on one branch. Dynamic sizes and i1 elements (not whole
// bytes) stay too. Then fewer than two buffers are left: no arena.
// CHECK-LABEL: func.func @escaping_buffers_stay
// CHECK-NOT: memref.view
// CHECK-NOT: xi8>
// CHECK: return
func.func private @opaque(memref<4xf32>)
func.func @escaping_buffers_stay(%x: memref<4xf32>, %n: index, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %carried = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %carried) -> (memref<4xf32>) {
    scf.yield %acc : memref<4xf32>
  }
  %passed = memref.alloc() : memref<4xf32>
  func.call @opaque(%passed) : (memref<4xf32>) -> ()
  %branch = memref.alloc() : memref<4xf32>
  scf.if %p {
    memref.dealloc %branch : memref<4xf32>
  }
  %dynamic = memref.alloc(%n) : memref<?xf32>
  %bits = memref.alloc() : memref<4xi1>
  %alone = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%alone : memref<4xf32>)
  memref.dealloc %carried : memref<4xf32>
  memref.dealloc %passed : memref<4xf32>
  memref.dealloc %dynamic : memref<?xf32>
  memref.dealloc %bits : memref<4xi1>
  memref.dealloc %alone : memref<4xf32>
  return
}

// -----

// Calls of the module's own functions (cpu-share-kernels' kernels) are
// uses like any op's. A scalar buffer is a member too.
// CHECK-LABEL: func.func @calls_of_kernels_are_uses
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<320xi8>
// CHECK: %[[ST:.*]] = call @__numlir_arena_slot(%{{.*}}, %c0{{.*}}, %c256{{.*}})
// CHECK: %[[T:.*]] = memref.view %[[ST]][%c0{{.*}}][] : memref<?xi8> to memref<8x8xf32>
// CHECK: call @numlir_kernel(%arg0, %arg0, %[[T]])
// CHECK: %[[SS:.*]] = call @__numlir_arena_slot(%{{.*}}, %c256{{.*}}, %c4{{.*}})
// CHECK: %[[S:.*]] = memref.view %[[SS]][%c0{{.*}}][] : memref<?xi8> to memref<f32>
// CHECK: call @numlir_kernel(%[[T]], %arg0, %arg1)
// CHECK-NEXT: call @__numlir_arena_slot_end(%[[ST]])
// CHECK-NEXT: memref.copy %[[S]], %arg2
// CHECK-NEXT: call @__numlir_arena_slot_end(%[[SS]])
func.func private @numlir_kernel(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}
func.func @calls_of_kernels_are_uses(%x: memref<8x8xf32>, %out: memref<8x8xf32>, %s: memref<f32>) {
  %t = memref.alloc() : memref<8x8xf32>
  call @numlir_kernel(%x, %x, %t) : (memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32>) -> ()
  %scalar = memref.alloc() : memref<f32>
  memref.copy %s, %scalar : memref<f32> to memref<f32>
  call @numlir_kernel(%t, %x, %out) : (memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32>) -> ()
  memref.copy %scalar, %s : memref<f32> to memref<f32>
  memref.dealloc %t : memref<8x8xf32>
  memref.dealloc %scalar : memref<f32>
  return
}

// -----

// The runtime's allocation sites gain the arena's size with its buffers'
// user lines, so that running out of memory for it names them.
// CHECK-LABEL: llvm.mlir.global external constant @numlir_entry_allocation_sites
// CHECK-SAME: "256 f32[8,8] model.py:3:1\0A256 f32[8,8] model.py:4:1\0A512 arena[2-buffers] model.py:3:1\0A512 arena[2-buffers] model.py:4:1\00"
llvm.mlir.global external constant @numlir_entry_allocation_sites("256 f32[8,8] model.py:3:1\0A256 f32[8,8] model.py:4:1\00") {addr_space = 0 : i32}
func.func @sites(%x: memref<8x8xf32>) {
  %a = memref.alloc() : memref<8x8xf32> loc("model.py":3:1)
  %b = memref.alloc() : memref<8x8xf32> loc("model.py":4:1)
  linalg.copy ins(%x : memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  linalg.copy ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>)
  linalg.copy ins(%b : memref<8x8xf32>) outs(%x : memref<8x8xf32>)
  memref.dealloc %a : memref<8x8xf32>
  memref.dealloc %b : memref<8x8xf32>
  return
}
