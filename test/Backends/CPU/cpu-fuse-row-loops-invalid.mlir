// RUN: not hlo-opt %s --pass-pipeline='builtin.module(func.func(cpu-fuse-row-loops{threads=-1}))' 2>&1 | FileCheck %s
// RUN: not hlo-opt %s --pass-pipeline='builtin.module(func.func(cpu-fuse-row-loops{tile-bytes=0}))' 2>&1 | FileCheck %s --check-prefix=TILE

// CHECK: error: cpu-fuse-row-loops needs threads >= 0 and tile-bytes >= 1, got threads=-1 tile-bytes=131072
// TILE: error: cpu-fuse-row-loops needs threads >= 0 and tile-bytes >= 1, got threads=0 tile-bytes=0
func.func @f() {
  return
}
