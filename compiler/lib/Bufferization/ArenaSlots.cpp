//===- ArenaSlots.cpp - arena members as LLVM sees allocations ------------===//

#include "numlir/Bufferization/ArenaSlots.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace {

MemRefType bytesType(MLIRContext *ctx) {
  return MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 8));
}

/// The `func` types of the two slot functions (see the header).
FunctionType slotType(MLIRContext *ctx) {
  Type index = IndexType::get(ctx);
  return FunctionType::get(ctx, {bytesType(ctx), index, index}, {bytesType(ctx)});
}
FunctionType slotEndType(MLIRContext *ctx) {
  return FunctionType::get(ctx, {bytesType(ctx)}, {});
}

void declare(ModuleOp module, StringRef name, FunctionType type) {
  if (module.lookupSymbol(name))
    return;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto function = func::FuncOp::create(b, module.getLoc(), name, type);
  function.setPrivate();
}

/// Lowers `func.call @__numlir_arena_slot` to a call of the LLVM function
/// and a descriptor around its pointer, and `func.call
/// @__numlir_arena_slot_end` to a call with the slot's pointer.
struct ArenaSlotCallLowering : ConvertOpToLLVMPattern<func::CallOp> {
  explicit ArenaSlotCallLowering(const LLVMTypeConverter &converter)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(func::CallOp call, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    StringRef callee = call.getCallee();
    MLIRContext *ctx = call.getContext();
    Location loc = call.getLoc();
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    if (callee == numlir::kArenaSlotEnd) {
      if (call.getCalleeType() != slotEndType(ctx))
        return rewriter.notifyMatchFailure(call, "not the slot end's type");
      MemRefDescriptor slot(adaptor.getOperands()[0]);
      LLVM::CallOp::create(rewriter, loc, TypeRange{},
                           SymbolRefAttr::get(ctx, callee),
                           ValueRange{slot.alignedPtr(rewriter, loc)});
      rewriter.eraseOp(call);
      return success();
    }
    if (callee != numlir::kArenaSlot)
      return failure();
    if (call.getCalleeType() != slotType(ctx))
      return rewriter.notifyMatchFailure(call, "not the slot's type");
    MemRefDescriptor arena(adaptor.getOperands()[0]);
    Value offset = LLVM::AddOp::create(rewriter, loc, arena.offset(rewriter, loc),
                                       adaptor.getOperands()[1]);
    Value pointer =
        LLVM::CallOp::create(rewriter, loc, TypeRange{ptr},
                             SymbolRefAttr::get(ctx, callee),
                             ValueRange{arena.alignedPtr(rewriter, loc), offset})
            .getResult();
    Type descriptorType = getTypeConverter()->convertType(bytesType(ctx));
    auto slot = MemRefDescriptor::poison(rewriter, loc, descriptorType);
    slot.setAllocatedPtr(rewriter, loc, pointer);
    slot.setAlignedPtr(rewriter, loc, pointer);
    slot.setConstantOffset(rewriter, loc, 0);
    slot.setSize(rewriter, loc, 0, adaptor.getOperands()[2]);
    slot.setConstantStride(rewriter, loc, 0, 1);
    rewriter.replaceOp(call, Value(slot));
    return success();
  }
};

/// An out-of-line LLVM function whose body LLVM cannot see through: an
/// empty `asm sideeffect` that takes `pointer` and clobbers memory.
LLVM::LLVMFuncOp defineOpaque(OpBuilder &b, Location loc, StringRef name,
                              LLVM::LLVMFunctionType type) {
  auto function =
      LLVM::LLVMFuncOp::create(b, loc, name, type, LLVM::Linkage::Internal);
  function.setNoInline(true);
  Block *body = function.addEntryBlock(b);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(body);
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  if (isa<LLVM::LLVMVoidType>(type.getReturnType())) {
    LLVM::InlineAsmOp::create(b, loc, TypeRange{}, body->getArguments(), "",
                              "r,~{memory}", /*has_side_effects=*/true,
                              /*is_align_stack=*/false,
                              LLVM::tailcallkind::TailCallKind::None,
                              LLVM::AsmDialectAttr(), ArrayAttr());
    LLVM::ReturnOp::create(b, loc, ValueRange());
    return function;
  }
  // The pointer goes in and comes out of the asm ("0" ties them), so
  // nothing relates the result to the arena.
  Value start = LLVM::GEPOp::create(b, loc, ptr, b.getI8Type(),
                                    body->getArgument(0),
                                    ValueRange{body->getArgument(1)});
  Value result = LLVM::InlineAsmOp::create(
                     b, loc, TypeRange{ptr}, ValueRange{start}, "",
                     "=r,0,~{memory}", /*has_side_effects=*/true,
                     /*is_align_stack=*/false,
                     LLVM::tailcallkind::TailCallKind::None,
                     LLVM::AsmDialectAttr(), ArrayAttr())
                     .getResult(0);
  LLVM::ReturnOp::create(b, loc, result);
  function.setResultAttr(0, LLVM::LLVMDialect::getNoAliasAttrName(),
                         UnitAttr::get(b.getContext()));
  return function;
}

} // namespace

Value numlir::createArenaSlot(OpBuilder &b, Location loc, ModuleOp module,
                                   Value arena, int64_t offset, int64_t bytes) {
  MLIRContext *ctx = b.getContext();
  declare(module, kArenaSlot, slotType(ctx));
  declare(module, kArenaSlotEnd, slotEndType(ctx));
  if (arena.getType() != bytesType(ctx))
    arena = memref::CastOp::create(b, loc, bytesType(ctx), arena);
  Value operands[] = {arena, arith::ConstantIndexOp::create(b, loc, offset),
                      arith::ConstantIndexOp::create(b, loc, bytes)};
  return func::CallOp::create(b, loc, kArenaSlot, TypeRange{bytesType(ctx)},
                              operands)
      .getResult(0);
}

void numlir::createArenaSlotEnd(OpBuilder &b, Location loc,
                                     ModuleOp module, Value slot) {
  declare(module, kArenaSlotEnd, slotEndType(b.getContext()));
  func::CallOp::create(b, loc, kArenaSlotEnd, TypeRange{}, ValueRange{slot});
}

LogicalResult numlir::defineArenaSlotFunctions(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i64 = IntegerType::get(ctx, 64);
  struct Slot {
    StringRef name;
    FunctionType type;
    LLVM::LLVMFunctionType llvmType;
  } slots[] = {
      {kArenaSlot, slotType(ctx), LLVM::LLVMFunctionType::get(ptr, {ptr, i64})},
      {kArenaSlotEnd, slotEndType(ctx),
       LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr})}};
  // Each goes to the top of the module: in reverse, the slot comes first.
  for (const Slot &slot : llvm::reverse(slots)) {
    Operation *symbol = module.lookupSymbol(slot.name);
    if (!symbol)
      continue;
    auto declaration = dyn_cast<func::FuncOp>(symbol);
    if (!declaration || !declaration.isExternal() ||
        declaration.getFunctionType() != slot.type)
      return symbol->emitError()
             << "@" << slot.name << " is reserved for the arena's slots and "
             << "must be a func.func declaration of type " << slot.type;
    Location loc = declaration.getLoc();
    declaration.erase();
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    defineOpaque(b, loc, slot.name, slot.llvmType);
  }
  return success();
}

void numlir::populateArenaSlotLoweringPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ArenaSlotCallLowering>(converter);
}
