// RUN: not hlo-opt %s --cpu-assign-buffers="max-buffer-bytes=-1" 2>&1 | FileCheck %s

// CHECK: error: cpu-assign-buffers needs max-buffer-bytes >= 0, got -1
func.func @f() {
  return
}
