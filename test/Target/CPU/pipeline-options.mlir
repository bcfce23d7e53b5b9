// The CPU pipelines' typed options reach the passes that read them, from
// the command line and from pipeline text; bad values are the pipeline's
// error, before any pass runs.
// RUN: hlo-opt %s --split-input-file --hlo-to-cpu="threads=1 min-iterations=1" | FileCheck %s --check-prefix=SERIAL
// RUN: hlo-opt %s --split-input-file --hlo-to-cpu="threads=2 min-iterations=1" | FileCheck %s --check-prefix=PARALLEL
// RUN: hlo-opt %s --split-input-file --pass-pipeline='builtin.module(hlo-to-cpu{threads=2 min-iterations=1})' | FileCheck %s --check-prefix=PARALLEL
// RUN: hlo-opt %s --split-input-file --hlo-optimize --hlo-cpu-to-linalg="min-iterations=1" | hlo-opt --split-input-file --hlo-cpu-to-llvm="threads=2 min-iterations=1" | FileCheck %s --check-prefix=PARALLEL
// RUN: hlo-opt %s --split-input-file --hlo-to-cpu="threads=2 row-fusion-min-bytes=-1" | FileCheck %s --check-prefix=NO-ROWS
// RUN: hlo-opt %s --split-input-file --hlo-to-cpu="threads=2 row-fusion-min-bytes=0" | FileCheck %s --check-prefix=ROWS
// RUN: hlo-opt %s --split-input-file --hlo-to-cpu="threads=1" | FileCheck %s --check-prefix=ARENA
// RUN: hlo-opt %s --split-input-file --hlo-to-cpu="threads=1 arena-max-buffer-bytes=0" | FileCheck %s --check-prefix=NO-ARENA
// RUN: not hlo-opt %s --split-input-file --hlo-to-cpu="threads=many" 2>&1 | FileCheck %s --check-prefix=NOT-A-NUMBER
// RUN: not hlo-opt %s --split-input-file --hlo-cpu-to-llvm="threads=-2" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not hlo-opt %s --split-input-file --hlo-cpu-to-linalg="min-iterations=0" 2>&1 | FileCheck %s --check-prefix=LINALG-ZERO
// RUN: not hlo-opt %s --split-input-file --hlo-cpu-to-linalg="threads=2" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not hlo-opt %s --split-input-file --hlo-optimize="threads=2" 2>&1 | FileCheck %s --check-prefix=NO-OPTIONS

// NOT-A-NUMBER: error: invalid options of hlo-to-cpu: 'threads=many'
// NEGATIVE: error: hlo-cpu-to-llvm needs threads >= 0, min-iterations >= 1, row-fusion-min-bytes >= -1 and arena-max-buffer-bytes >= 0, got threads=-2 min-iterations=131072 row-fusion-min-bytes=1048576 arena-max-buffer-bytes=67108864
// LINALG-ZERO: error: hlo-cpu-to-linalg needs min-iterations >= 1, got 0
// UNKNOWN: error: invalid options of hlo-cpu-to-linalg: 'threads=2'
// NO-OPTIONS: error: hlo-optimize takes no options, got 'threads=2'

// threads and min-iterations: an op of 4096 iterations runs on two
// threads only when min-iterations lets it.
// SERIAL-LABEL: llvm.func internal @main
// SERIAL-NOT: omp.parallel
// SERIAL: llvm.return
// PARALLEL-LABEL: llvm.func internal @main
// PARALLEL: omp.parallel
func.func @main(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = hlo.tanh %x : tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// row-fusion-min-bytes: softmax's row-local ops run row tile by row tile,
// in chunks of rows on the threads, only from that size up (its 16384
// iterations are fewer than min-iterations, so nothing else forks).
// NO-ROWS-LABEL: llvm.func internal @main
// NO-ROWS-NOT: omp.parallel
// NO-ROWS: llvm.return
// ROWS-LABEL: llvm.func internal @main
// ROWS: omp.parallel
func.func @main(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %m = hlo.reduce max %x, dims = [1] : tensor<64x256xf32> -> tensor<64xf32>
  %mb = hlo.broadcast_in_dim %m, dims = [0] : tensor<64xf32> -> tensor<64x256xf32>
  %d = hlo.subtract %x, %mb : tensor<64x256xf32>
  %e = hlo.exp %d : tensor<64x256xf32>
  %s = hlo.reduce sum %e, dims = [1] : tensor<64x256xf32> -> tensor<64xf32>
  %sb = hlo.broadcast_in_dim %s, dims = [0] : tensor<64xf32> -> tensor<64x256xf32>
  %r = hlo.divide %e, %sb : tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// arena-max-buffer-bytes: the two temporary products share an arena,
// unless no buffer may go there.
// ARENA: llvm.func internal @__numlir_arena_slot(
// NO-ARENA-NOT: @__numlir_arena_slot
func.func @main(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %a = hlo.dot_general %x, %x, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %b = hlo.dot_general %a, %a, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %c = hlo.dot_general %b, %b, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}
