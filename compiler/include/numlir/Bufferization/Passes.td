//===- Passes.td - buffer passes of numlir's executables ------------------===//
//
// Target-independent passes about an executable's buffers: the signature the
// runtime checks its buffers against, donated inputs that hold their
// outputs, and temporaries at offsets in one arena. Any backend whose
// executable takes its arguments and results as buffers runs them; the CPU
// pipelines do (hlo-cpu-to-linalg, hlo-cpu-to-llvm).
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BUFFERIZATION_PASSES_TD
#define NUMLIR_BUFFERIZATION_PASSES_TD

include "mlir/Pass/PassBase.td"

def HLORecordABISignature : Pass<"hlo-record-abi-signature", "mlir::ModuleOp"> {
  let summary = "Record the tensor-level signature of the entry function";
  let description = [{
    Stores the signature of `@<function>` as the string attribute
    `numlir.abi_signature`, e.g. `"ui8[4];f32[]->i1[4]"`, while the types
    still carry signedness (the linalg lowering makes integers signless).
    `cpu-emit-c-entry-point` exports this string when it is present.
    It also marks the arguments `bufferization.writable = false`: they are
    the caller's buffers, so an in-place update (scatter,
    dynamic_update_slice) must work on a copy.
  }];
  let options = [
    Option<"function", "function", "std::string", "\"main\"",
           "The function whose signature is recorded">
  ];
}

def AliasDonatedBuffers : Pass<"alias-donated-buffers", "mlir::ModuleOp"> {
  let summary = "Write each donated argument's output only after the argument's last use";
  let description = [{
    `jit(f, donate_argnums=...)` pairs a donated input with an output of its
    type (`numlir.aliasing_output = j : i32` on the argument, as JAX's
    `tf.aliasing_output`), and the runtime then passes one buffer as both the
    argument and the `j`-th out-param (`bufferize.result`). Every pass before
    this one took the function's buffers to be distinct, so the code may
    write the output while the input is still to be read. This pass, run
    after them, makes the function right under the aliasing: an output whose
    one writer is a `memref.copy` after the argument's last use (a result
    that was the argument itself) stays; otherwise every writer of the
    output writes a new temporary, copied into the output just before the
    return, after the argument's last use.

    Before:
    ```mlir
    func.func @main(%p: memref<4xf32> {numlir.aliasing_output = 0 : i32},
                    %out: memref<4xf32> {bufferize.result}) {
      linalg.generic ... ins(%p : memref<4xf32>) outs(%out : memref<4xf32>)
      %s = memref.load %p[%c0] : memref<4xf32>   // reads %p after %out is written
    ```
    After:
    ```mlir
      %t = memref.alloc() : memref<4xf32>
      linalg.generic ... ins(%p : memref<4xf32>) outs(%t : memref<4xf32>)
      %s = memref.load %p[%c0] : memref<4xf32>
      memref.copy %t, %out : memref<4xf32> to memref<4xf32>
      memref.dealloc %t : memref<4xf32>
      return
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def AssignBuffers : Pass<"assign-buffers", "mlir::ModuleOp"> {
  let summary = "Give the temporaries of each function offsets in one arena, by liveness";
  let description = [{
    Buffer assignment as XLA does it. Bufferization allocates every
    temporary on its own and frees them all at the end of the function, so
    a call holds all of them at once and takes one allocation per buffer.
    This pass collects the static heap buffers of each function's top-level
    block (`memref.alloc` with a static identity-layout shape of at most
    `max-buffer-bytes`, freed by one `memref.dealloc` in that block), finds
    each one's live range (from its allocation to the last top-level op
    that uses it or a view of it, nested uses counted at their top-level
    op), and packs them into one 64-byte-aligned `memref<Nxi8>` arena,
    largest first at the lowest offset free for the whole range, so
    buffers whose ranges are disjoint share memory. Each buffer becomes a
    `memref.view` of the arena; the arena is allocated at the start of the
    block and freed at its end, through the runtime's allocator, which
    keeps the block for the next call.

    A buffer stays on its own when anything but element accesses, linalg
    ops, copies, views and calls of the module's own functions uses it (a
    loop that carries it, a yield, a pointer extraction): its lifetime is
    then not what the block shows. Larger buffers stay on their own too, so
    that running out of memory names their own op. The pass runs after the
    passes that interleave ops (row fusion) or ask whether two buffers are
    distinct allocations (kernel sharing, thread chunks, contraction
    tiling); the runtime's allocation sites gain the arena's size with its
    buffers' lines.

    Before: `%a = memref.alloc() : memref<64xf32>` used by ops 1-2 and
            `%b = memref.alloc() : memref<64xf32>` used by ops 3-4, both
            freed at the end.
    After:  one `memref.alloc() : memref<256xi8>`, `%a` and `%b` views of
            it at byte 0.
  }];
  let options = [
    Option<"maxBufferBytes", "max-buffer-bytes", "int64_t", "64 << 20",
           "The largest buffer placed in the arena, in bytes">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def SplitUnaliasedDeallocs : Pass<"split-unaliased-deallocs"> {
  let summary = "Free each buffer that nothing else can alias in a dealloc of its own";
  let description = [{
    Ownership-based deallocation frees a function's buffers in one
    `bufferization.dealloc` at the end of the block, and
    `buffer-deallocation-simplification` then asks of every pair of its
    operands whether they may be one allocation: a 256-layer training step,
    with about 3,000 buffers, spent a second there, four times as long as
    the 128-layer one. Most of those buffers are `memref.alloc` results that
    never leave the block: they are read and written by ops that return no
    memref, and viewed by ops whose views do not leave either. Nothing else
    in the dealloc (another buffer or a retained value) can then be the same
    allocation, so each one is freed by a dealloc of its own, with its own
    condition, at the same place. What remains is left to the simplification.

    Before: `bufferization.dealloc (%a, %b, %arg) if (%true, %true, %c) retain (%r)`
            where `%a` and `%b` are allocations used only by linalg ops.
    After:  `bufferization.dealloc (%a) if (%true)`,
            `bufferization.dealloc (%b) if (%true)` and
            `bufferization.dealloc (%arg) if (%c) retain (%r)`.
  }];
}

def UnshareEmptyTensors : Pass<"unshare-empty-tensors"> {
  let summary = "Give every use of a tensor.empty its own tensor.empty";
  let description = [{
    CSE merges the `tensor.empty` ops of one shape, so that one empty tensor
    becomes the destination of every linalg op of that shape in a function.
    Each of those results then aliases the same value, and one-shot
    bufferization's conflict analysis, which compares every pair of reads
    and writes in an alias set, grows with the square of the function (a
    256-layer training step spent 18 s there). An empty tensor has no
    contents, so a copy of it per use means the same and leaves every alias
    set small. Each copy is placed just before its user, where its dynamic
    sizes still dominate.

    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %a = linalg.fill ins(%x : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %b = linalg.fill ins(%y : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    ```

    becomes one `tensor.empty` before each `linalg.fill`.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

#endif // NUMLIR_BUFFERIZATION_PASSES_TD
