// RUN: not hlo-opt %s --assign-buffers="max-buffer-bytes=-1" 2>&1 | FileCheck %s

// CHECK: error: assign-buffers needs max-buffer-bytes >= 0, got -1
func.func @f() {
  return
}
