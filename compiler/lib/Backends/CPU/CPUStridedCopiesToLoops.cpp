//===- CPUStridedCopiesToLoops.cpp - memref.copy without a runtime call ---===//
//
// finalize-memref-to-llvm lowers a copy between contiguous buffers to
// llvm.memcpy, but any other copy to a call into MLIR's C runner library
// (`memrefCopy`), which numlir executables do not link. Bufferization makes
// such copies from strided views (slices, insert_slice). This pass turns
// them into linalg.copy, which convert-linalg-to-loops makes plain loops.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace numlir {
#define GEN_PASS_DEF_CPUSTRIDEDCOPIESTOLOOPS
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {
struct CPUStridedCopiesToLoopsPass
    : numlir::impl::CPUStridedCopiesToLoopsBase<CPUStridedCopiesToLoopsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](memref::CopyOp copy) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      if (source && target &&
          memref::isStaticShapeAndContiguousRowMajor(source) &&
          memref::isStaticShapeAndContiguousRowMajor(target))
        return;
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    });
  }
};
} // namespace
