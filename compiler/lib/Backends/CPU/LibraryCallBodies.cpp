//===- LibraryCallBodies.cpp - library calls through the runtime's slot ---===//
//
// convert-hlo-to-linalg leaves each hlo.custom_call as a call of a private
// declaration (numlir/Conversion/LibraryCalls.h). Here each declaration gets
// a body that calls
//
//   void slot(const char *routine, const int64_t *descriptor,
//             void *const *buffers);
//
// through the exported slot `<entry>_library_call`, which the runtime points
// at its dispatcher when it loads the executable. The descriptor is a
// constant of the executable that says everything the routine may rely on:
//
//   [version, num_operands, num_results,
//    per buffer: dtype, rank, dims..., num_config, config...]
//
// so the runtime checks each call against the routine's contract instead of
// trusting the compiler's shapes. `<entry>_library_routines` lists the
// routines, one per line, so that loading fails at once with a clear message
// where a library is missing, not at the first call
// (docs/runtime.md#library-calls).
//
//===----------------------------------------------------------------------===//

#include "EntryPointSymbols.h"

#include "numlir/Conversion/CollectiveCalls.h"
#include "numlir/Conversion/LibraryCalls.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace numlir::cpu::entry_point;
namespace calls = numlir::library_calls;

namespace {

constexpr llvm::StringLiteral kSlotSuffix = "_library_call";
constexpr llvm::StringLiteral kRoutinesSuffix = "_library_routines";

/// The descriptor of a declaration's call (see the file comment).
FailureOr<SmallVector<int64_t>> descriptorOf(func::FuncOp function) {
  auto numOperands = function->getAttrOfType<IntegerAttr>(calls::kOperandsAttr);
  auto config = function->getAttrOfType<DenseI64ArrayAttr>(calls::kConfigAttr);
  int64_t numBuffers = function.getNumArguments();
  if (!numOperands || numOperands.getInt() < 0 ||
      numOperands.getInt() > numBuffers || !config)
    return function.emitError()
           << "cpu-emit-c-entry-point: library call @" << function.getSymName()
           << " needs " << calls::kOperandsAttr << " between 0 and "
           << numBuffers << " and an i64 array " << calls::kConfigAttr;
  SmallVector<int64_t> words = {calls::kDescriptorVersion,
                                numOperands.getInt(),
                                numBuffers - numOperands.getInt()};
  for (Type type : function.getArgumentTypes()) {
    auto memref = dyn_cast<MemRefType>(type);
    std::optional<int64_t> dtype =
        memref ? numlir::collective_calls::runtimeDTypeCode(
                     memref.getElementType())
               : std::nullopt;
    if (!memref || !memref.hasStaticShape() ||
        !memref.getLayout().isIdentity() || !dtype)
      return function.emitError()
             << "cpu-emit-c-entry-point: library call @"
             << function.getSymName() << " takes " << type
             << "; it needs static, identity-layout memrefs of a runtime dtype";
    words.push_back(*dtype);
    words.push_back(memref.getRank());
    llvm::append_range(words, memref.getShape());
  }
  words.push_back(static_cast<int64_t>(config.size()));
  llvm::append_range(words, config.asArrayRef());
  return words;
}

} // namespace

LogicalResult numlir::cpu::emitLibraryCalls(ModuleOp module, StringRef entry,
                                            Location loc) {
  SmallVector<func::FuncOp> declarations;
  for (auto function : module.getOps<func::FuncOp>())
    if (function->hasAttr(calls::kRoutineAttr))
      declarations.push_back(function);
  if (declarations.empty())
    return success();
  std::string slotName = (entry + kSlotSuffix).str();
  std::string routinesName = (entry + kRoutinesSuffix).str();
  for (StringRef name : {StringRef(slotName), StringRef(routinesName)})
    if (module.lookupSymbol(name))
      return module.emitError() << "cpu-emit-c-entry-point: symbol @" << name
                                << " already exists";

  // A library routine may fail (out of memory) by leaving the call through
  // the runtime's jump, which only the entry's own thread may take.
  if (failed(checkCallsOutsideParallelRegions(
          module, calls::kRoutineAttr,
          "a library call runs inside a parallel region")))
    return failure();

  MLIRContext *ctx = module.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i64 = IntegerType::get(ctx, 64);
  auto slotType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                              {ptr, ptr, ptr});
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  LLVM::GlobalOp slot = createSlot(b, loc, slotName, slotType);

  llvm::SetVector<StringRef> routines;
  for (func::FuncOp function : declarations) {
    if (!function.isDeclaration() || function.getNumResults() != 0)
      return function.emitError()
             << "cpu-emit-c-entry-point: library call @"
             << function.getSymName() << " is not a declaration without results";
    FailureOr<SmallVector<int64_t>> descriptor = descriptorOf(function);
    if (failed(descriptor))
      return failure();
    StringRef routine =
        function->getAttrOfType<StringAttr>(calls::kRoutineAttr).getValue();
    if (routine.empty() || routine.contains('\n'))
      return function.emitError() << "cpu-emit-c-entry-point: library call @"
                                  << function.getSymName()
                                  << " names no routine, or one with a newline";
    routines.insert(routine);
    std::string base = function.getSymName().str();
    LLVM::GlobalOp descriptorGlobal = createWordTable(
        b, loc, base + "_descriptor", *descriptor, /*internal=*/true);
    LLVM::GlobalOp routineGlobal =
        createString(b, loc, base + "_routine", routine.str(), /*internal=*/true);

    OpBuilder::InsertionGuard guard(b);
    Block *body = defineInternally(function, b);
    ValueRange arguments = body->getArguments();
    Value count = LLVM::ConstantOp::create(
        b, loc, i64, b.getI64IntegerAttr(std::max<int64_t>(arguments.size(), 1)));
    Value array = LLVM::AllocaOp::create(b, loc, ptr, ptr, count, 8);
    for (auto [i, buffer] : llvm::enumerate(arguments)) {
      Value element = LLVM::GEPOp::create(
          b, loc, ptr, ptr, array,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
      LLVM::StoreOp::create(b, loc, alignedPointer(b, loc, buffer), element);
    }
    Value callee = LLVM::LoadOp::create(
        b, loc, ptr, LLVM::AddressOfOp::create(b, loc, slot));
    LLVM::CallOp::create(
        b, loc, slotType,
        ValueRange{callee, LLVM::AddressOfOp::create(b, loc, routineGlobal),
                   LLVM::AddressOfOp::create(b, loc, descriptorGlobal), array});
    func::ReturnOp::create(b, loc);
  }
  createString(b, loc, routinesName, llvm::join(routines, "\n"));
  return success();
}
