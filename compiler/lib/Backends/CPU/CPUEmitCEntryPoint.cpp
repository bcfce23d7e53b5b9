//===- CPUEmitCEntryPoint.cpp - the runtime's `void entry(void **)` ABI ---===//
//
// The runtime calls every CPU executable through one C signature, so that it
// never needs to know MLIR's memref descriptor layout. This pass builds that
// wrapper while the IR is still at the memref level, where the shapes are
// known; the descriptors it builds fold away in the LLVM lowering.
//
// It also routes the heap allocations of the generated code through the
// runtime: finalize-memref-to-llvm{use-generic-functions} calls
// _mlir_memref_to_llvm_{alloc,aligned_alloc,free}, which this pass defines as
// internal calls through the exported table `<entry>_allocator` (initialized
// to libc's malloc, aligned_alloc and free). The runtime points the table at
// an allocator that turns a failed allocation into an error status instead
// of a NULL dereference (docs/runtime.md), and the executable gains no
// dependency beyond libc. `<entry>_allocation_sites` tells it which user
// line each static allocation comes from, for that error's message.
//
// Host callbacks (hlo.host_callback, lowered by convert-hlo-to-linalg to calls
// of private declarations marked `numlir.host_callback_id`) get their bodies
// here: each packs its buffers' pointers into two arrays and calls through
// the exported slot `<entry>_host_callback`, which the runtime points at its
// dispatcher when it loads the executable (docs/runtime.md#host-callbacks).
// The slot starts out at a function that does nothing, so an executable
// loaded by anything else still runs.
//
//===----------------------------------------------------------------------===//

#include "numlir/Bufferization/ABISignature.h"
#include "numlir/Bufferization/AllocationSites.h"

#include "EntryPointSymbols.h"
#include "numlir/Backends/CPU/Passes.h"
#include "numlir/Conversion/CollectiveCalls.h"
#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace numlir {
#define GEN_PASS_DEF_CPUEMITCENTRYPOINT
#include "numlir/Backends/CPU/Passes.h.inc"
} // namespace numlir

using namespace mlir;
using numlir::abiBufferName;
using numlir::abiElementTypeName;
using numlir::kAllocationSitesSuffix;
using numlir::userLocation;
using namespace numlir::cpu::entry_point;

namespace {

/// Builds the LLVM struct of a memref descriptor for a dense row-major
/// buffer at `pointer`, and casts it to `type`.
Value wrapPointerInMemRef(OpBuilder &b, Location loc, Value pointer,
                          MemRefType type) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  int64_t rank = type.getRank();
  SmallVector<Type> fields = {ptr, ptr, i64};
  if (rank > 0) {
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
  }
  auto descriptorType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  auto constant = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  Value descriptor = LLVM::PoisonOp::create(b, loc, descriptorType);
  descriptor = LLVM::InsertValueOp::create(b, loc, descriptor, pointer, ArrayRef<int64_t>{0});
  descriptor = LLVM::InsertValueOp::create(b, loc, descriptor, pointer, ArrayRef<int64_t>{1});
  descriptor =
      LLVM::InsertValueOp::create(b, loc, descriptor, constant(0),
                                           ArrayRef<int64_t>{2});
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    descriptor = LLVM::InsertValueOp::create(
        b, loc, descriptor, constant(type.getDimSize(d)),
        ArrayRef<int64_t>{3, d});
    descriptor = LLVM::InsertValueOp::create(
        b, loc, descriptor, constant(stride), ArrayRef<int64_t>{4, d});
    stride *= type.getDimSize(d);
  }
  return UnrealizedConversionCastOp::create(b, loc, type, descriptor)
      .getResult(0);
}

/// One line "<bytes> <type> <location>" per distinct static heap allocation
/// that comes from a user line, for the runtime's out-of-memory message.
std::string allocationSites(ModuleOp module) {
  SmallVector<std::string> sites;
  llvm::StringSet<> seen;
  module.walk([&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    std::optional<int64_t> bytes = numlir::staticAllocationBytes(type);
    std::string where = userLocation(alloc.getLoc(), module);
    if (!bytes || where.empty())
      return;
    std::string name = abiElementTypeName(type.getElementType()).empty()
                           ? "buffer"
                           : abiBufferName(type);
    std::string line = std::to_string(*bytes) + " " + name + " " + where;
    if (seen.insert(line).second)
      sites.push_back(std::move(line));
  });
  return llvm::join(sites, "\n");
}

/// The allocation functions finalize-memref-to-llvm{use-generic-functions}
/// calls, in the order of the runtime's allocator table.
constexpr StringLiteral kGenericAllocFunctions[] = {
    "_mlir_memref_to_llvm_alloc", "_mlir_memref_to_llvm_aligned_alloc",
    "_mlir_memref_to_llvm_free"};

/// An existing declaration of the libc function `name`, or a new one.
LLVM::LLVMFuncOp libcFunction(ModuleOp module, StringRef name,
                              LLVM::LLVMFunctionType type) {
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return existing.getFunctionType() == type ? existing : nullptr;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

/// Defines `<entry>_allocator` and the generic allocation functions that
/// call through it (see the file comment).
LogicalResult emitAllocatorTable(ModuleOp module, StringRef entry,
                                 Location loc) {
  MLIRContext *ctx = module.getContext();
  for (StringRef name : kGenericAllocFunctions)
    if (module.lookupSymbol(name))
      return module.emitError()
             << "cpu-emit-c-entry-point: the module already defines @"
             << name << ", which the runtime's allocator table provides";
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i64 = IntegerType::get(ctx, 64);
  LLVM::LLVMFunctionType types[] = {
      LLVM::LLVMFunctionType::get(ptr, {i64}),
      LLVM::LLVMFunctionType::get(ptr, {i64, i64}),
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr})};
  LLVM::LLVMFuncOp defaults[] = {libcFunction(module, "malloc", types[0]),
                                 libcFunction(module, "aligned_alloc", types[1]),
                                 libcFunction(module, "free", types[2])};
  for (LLVM::LLVMFuncOp function : defaults)
    if (!function)
      return module.emitError() << "cpu-emit-c-entry-point: the module "
                                   "declares malloc, aligned_alloc or free "
                                   "with a non-standard type";

  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto tableType = LLVM::LLVMArrayType::get(ptr, 3);
  auto table = LLVM::GlobalOp::create(b, loc, tableType, /*isConstant=*/false,
                                      LLVM::Linkage::External,
                                      (entry + "_allocator").str(),
                                      Attribute());
  b.setInsertionPointToStart(b.createBlock(&table.getInitializerRegion()));
  Value array = LLVM::PoisonOp::create(b, loc, tableType);
  for (auto [slot, function] : llvm::enumerate(defaults))
    array = LLVM::InsertValueOp::create(
        b, loc, array, LLVM::AddressOfOp::create(b, loc, function),
        ArrayRef<int64_t>{static_cast<int64_t>(slot)});
  LLVM::ReturnOp::create(b, loc, array);

  b.setInsertionPointAfter(table);
  for (auto [slot, name] : llvm::enumerate(kGenericAllocFunctions)) {
    LLVM::LLVMFunctionType type = types[slot];
    auto function =
        LLVM::LLVMFuncOp::create(b, loc, name, type, LLVM::Linkage::Internal);
    // Kept out of line so that the call keeps the `noalias` result LLVM's
    // alias analysis would otherwise only know for a direct malloc call.
    function.setNoInline(true);
    if (!isa<LLVM::LLVMVoidType>(type.getReturnType()))
      function.setResultAttr(0, LLVM::LLVMDialect::getNoAliasAttrName(),
                             UnitAttr::get(ctx));
    Block *body = function.addEntryBlock(b);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(body);
    Value base = LLVM::AddressOfOp::create(b, loc, table);
    Value entryPointer = LLVM::GEPOp::create(
        b, loc, ptr, tableType, base,
        ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(slot)});
    SmallVector<Value> operands = {
        LLVM::LoadOp::create(b, loc, ptr, entryPointer)};
    llvm::append_range(operands, body->getArguments());
    auto call = LLVM::CallOp::create(b, loc, type, operands);
    if (call.getNumResults())
      LLVM::ReturnOp::create(b, loc, call.getResult());
    else
      LLVM::ReturnOp::create(b, loc, ValueRange());
  }
  return success();
}

/// The record of one collective declaration (numlir/Conversion/
/// CollectiveCalls.h): op, kind, dtype, elements, groups, size, ids...,
/// location index.
FailureOr<SmallVector<int64_t>> collectiveRecord(func::FuncOp function,
                                                 int64_t numReplicas,
                                                 int64_t locationIndex) {
  namespace calls = numlir::collective_calls;
  auto word = [&](StringRef name) -> std::optional<int64_t> {
    if (auto attr = function->getAttrOfType<IntegerAttr>(name))
      return attr.getInt();
    return std::nullopt;
  };
  std::optional<int64_t> op = word(calls::kOpAttr),
                         kind = word(calls::kKindAttr),
                         dtype = word(calls::kDTypeAttr);
  if (!op || !kind || !dtype)
    return function.emitError()
           << "cpu-emit-c-entry-point: collective @" << function.getSymName()
           << " lacks its op, kind or dtype attribute";
  auto elementsOf = [](Type type) {
    return cast<MemRefType>(type).getNumElements();
  };
  SmallVector<int64_t> record = {*op, *kind, *dtype};
  auto code = static_cast<calls::CollectiveOpCode>(*op);
  if (code == calls::CollectiveOpCode::AllReduce ||
      code == calls::CollectiveOpCode::AllGather ||
      code == calls::CollectiveOpCode::AllToAll ||
      code == calls::CollectiveOpCode::ReduceScatter ||
      code == calls::CollectiveOpCode::CollectivePermute) {
    auto groups = function->getAttrOfType<DenseIntElementsAttr>(
        calls::kGroupsAttr);
    if (function.getNumArguments() != 2 || !groups ||
        groups.getType().getRank() != 2)
      return function.emitError()
             << "cpu-emit-c-entry-point: collective @" << function.getSymName()
             << " needs (operand, result) buffers and [groups, size] "
                "replica groups (or [pairs, 2])";
    ArrayRef<int64_t> shape = groups.getType().getShape();
    record.append({elementsOf(function.getArgumentTypes()[0]), shape[0],
                   shape[1]});
    llvm::append_range(record, groups.getValues<int64_t>());
  } else if (code == calls::CollectiveOpCode::ReplicaId) {
    if (function.getNumArguments() != 1)
      return function.emitError()
             << "cpu-emit-c-entry-point: replica_id @" << function.getSymName()
             << " needs one result buffer";
    // One group of every replica: the runtime checks groups uniformly.
    record.append({1, 1, numReplicas});
    for (int64_t id = 0; id < numReplicas; ++id)
      record.push_back(id);
  } else {
    return function.emitError()
           << "cpu-emit-c-entry-point: collective @" << function.getSymName()
           << " has unknown op code " << *op;
  }
  record.push_back(locationIndex);
  return record;
}

/// The suffix of the slot collectives call through.
constexpr StringLiteral kCollectiveSuffix = "_collective";

/// Gives every collective declaration a body that calls `void slot(uint64_t
/// index, const void *operand, void *result)` through `<entry>_collective`,
/// and writes `<entry>_collectives` (the records), `<entry>_num_replicas`
/// and `<entry>_collective_locations`, which the runtime reads at load
/// (docs/runtime.md#collectives).
LogicalResult emitCollectives(ModuleOp module, StringRef entry,
                              Location loc) {
  namespace calls = numlir::collective_calls;
  SmallVector<func::FuncOp> declarations;
  for (auto function : module.getOps<func::FuncOp>())
    if (function->hasAttr(calls::kIndexAttr))
      declarations.push_back(function);
  auto replicasAttr =
      module->getAttrOfType<IntegerAttr>(numlir::hlo::kNumReplicasAttrName);
  int64_t numReplicas = replicasAttr ? replicasAttr.getInt() : 1;
  if (numReplicas < 1)
    return module.emitError() << "cpu-emit-c-entry-point: "
                              << numlir::hlo::kNumReplicasAttrName << " is "
                              << numReplicas << "; it must be at least 1";
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  if (replicasAttr || !declarations.empty())
    createWordTable(b, loc, (entry + "_num_replicas").str(), {numReplicas});
  if (declarations.empty())
    return success();

  // Records in index order; the indices must be 0..n-1.
  llvm::sort(declarations, [&](func::FuncOp x, func::FuncOp y) {
    return x->getAttrOfType<IntegerAttr>(calls::kIndexAttr).getInt() <
           y->getAttrOfType<IntegerAttr>(calls::kIndexAttr).getInt();
  });
  SmallVector<SmallVector<int64_t>> records;
  SmallVector<std::string> locations;
  for (auto [expected, function] : llvm::enumerate(declarations)) {
    int64_t index =
        function->getAttrOfType<IntegerAttr>(calls::kIndexAttr).getInt();
    if (index != static_cast<int64_t>(expected) || !function.isDeclaration())
      return function.emitError()
             << "cpu-emit-c-entry-point: collective @" << function.getSymName()
             << " has index " << index << "; the declarations must be numbered "
             << "0 to " << declarations.size() - 1 << " and have no body";
    std::string where = numlir::userLocation(function.getLoc(), module);
    int64_t locationIndex = -1;
    if (!where.empty()) {
      locationIndex = static_cast<int64_t>(locations.size());
      locations.push_back(where);
    }
    FailureOr<SmallVector<int64_t>> record =
        collectiveRecord(function, numReplicas, locationIndex);
    if (failed(record))
      return failure();
    records.push_back(std::move(*record));
  }
  SmallVector<int64_t> table = {calls::kTableVersion, 0,
                                static_cast<int64_t>(records.size())};
  int64_t offset = 3 + static_cast<int64_t>(records.size());
  for (const SmallVector<int64_t> &record : records) {
    table.push_back(offset);
    offset += static_cast<int64_t>(record.size());
  }
  for (const SmallVector<int64_t> &record : records)
    llvm::append_range(table, record);
  table[1] = static_cast<int64_t>(table.size());
  createWordTable(b, loc, (entry + "_collectives").str(), table);
  if (!locations.empty())
    createString(b, loc, (entry + "_collective_locations").str(),
                 llvm::join(locations, "\n"));

  if (failed(checkCallsOutsideParallelRegions(
          module, calls::kIndexAttr,
          "a collective runs inside a parallel region; each replica must "
          "reach it once, on one thread")))
    return failure();

  MLIRContext *ctx = module.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i64 = IntegerType::get(ctx, 64);
  auto slotType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                              {i64, ptr, ptr});
  std::string slotName = (entry + kCollectiveSuffix).str();
  if (module.lookupSymbol(slotName))
    return module.emitError() << "cpu-emit-c-entry-point: symbol @"
                              << slotName << " already exists";
  LLVM::GlobalOp slot = createSlot(b, loc, slotName, slotType);
  for (auto [index, function] : llvm::enumerate(declarations)) {
    OpBuilder::InsertionGuard guard(b);
    Block *body = defineInternally(function, b);
    ValueRange arguments = body->getArguments();
    Value operand = arguments.size() == 2 ? alignedPointer(b, loc, arguments[0])
                                          : LLVM::ZeroOp::create(b, loc, ptr);
    Value result = alignedPointer(b, loc, arguments.back());
    Value callee = LLVM::LoadOp::create(
        b, loc, ptr, LLVM::AddressOfOp::create(b, loc, slot));
    Value indexValue = LLVM::ConstantOp::create(
        b, loc, i64, b.getI64IntegerAttr(static_cast<int64_t>(index)));
    LLVM::CallOp::create(b, loc, slotType,
                         ValueRange{callee, indexValue, operand, result});
    func::ReturnOp::create(b, loc);
  }
  return success();
}

/// The suffix of the slot a host callback calls through.
constexpr StringLiteral kHostCallbackSuffix = "_host_callback";

/// Gives every host-callback declaration (see the file comment) a body that
/// calls `void slot(uint64_t id, void *const *operands, uint64_t
/// num_operands, void *const *results, uint64_t num_results)` through
/// `<entry>_host_callback`.
LogicalResult emitHostCallbacks(ModuleOp module, StringRef entry,
                                Location loc) {
  SmallVector<func::FuncOp> declarations;
  for (auto function : module.getOps<func::FuncOp>())
    if (function->hasAttr("numlir.host_callback_id"))
      declarations.push_back(function);
  if (declarations.empty())
    return success();
  MLIRContext *ctx = module.getContext();
  std::string slotName = (entry + kHostCallbackSuffix).str();
  if (module.lookupSymbol(slotName))
    return module.emitError() << "cpu-emit-c-entry-point: symbol @"
                              << slotName << " already exists";
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i64 = IntegerType::get(ctx, 64);
  auto slotType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                              {i64, ptr, i64, ptr, i64});

  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  LLVM::GlobalOp slot = createSlot(b, loc, slotName, slotType);

  for (func::FuncOp function : declarations) {
    if (!function.isDeclaration() || function.getNumResults() != 0)
      return function.emitError()
             << "cpu-emit-c-entry-point: host callback @"
             << function.getSymName() << " is not a declaration without results";
    auto numOperands =
        function->getAttrOfType<IntegerAttr>("numlir.host_callback_operands");
    int64_t numArgs = function.getNumArguments();
    if (!numOperands || numOperands.getInt() < 0 ||
        numOperands.getInt() > numArgs)
      return function.emitError()
             << "cpu-emit-c-entry-point: host callback @"
             << function.getSymName()
             << " needs numlir.host_callback_operands between 0 and "
             << numArgs;
    for (Type type : function.getArgumentTypes()) {
      auto memref = dyn_cast<MemRefType>(type);
      if (!memref || !memref.hasStaticShape() ||
          !memref.getLayout().isIdentity())
        return function.emitError()
               << "cpu-emit-c-entry-point: host callback @"
               << function.getSymName() << " takes " << type
               << "; it needs static, identity-layout memrefs";
    }
    int64_t id =
        cast<IntegerAttr>(function->getAttr("numlir.host_callback_id")).getInt();
    OpBuilder::InsertionGuard guard(b);
    Block *body = defineInternally(function, b);
    auto constant = [&](int64_t v) -> Value {
      return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
    };
    // One array of pointers each for the operands and the results.
    auto pointerArray = [&](ValueRange buffers) -> Value {
      if (buffers.empty())
        return LLVM::ZeroOp::create(b, loc, ptr);
      Value array = LLVM::AllocaOp::create(b, loc, ptr, ptr,
                                           constant(buffers.size()), 8);
      for (auto [i, buffer] : llvm::enumerate(buffers)) {
        Value pointer = alignedPointer(b, loc, buffer);
        Value element = LLVM::GEPOp::create(
            b, loc, ptr, ptr, array,
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        LLVM::StoreOp::create(b, loc, pointer, element);
      }
      return array;
    };
    int64_t n = numOperands.getInt();
    ValueRange arguments = body->getArguments();
    Value operands = pointerArray(arguments.take_front(n));
    Value results = pointerArray(arguments.drop_front(n));
    Value callee = LLVM::LoadOp::create(
        b, loc, ptr, LLVM::AddressOfOp::create(b, loc, slot));
    LLVM::CallOp::create(b, loc, slotType,
                         ValueRange{callee, constant(id), operands,
                                    constant(n), results,
                                    constant(numArgs - n)});
    func::ReturnOp::create(b, loc);
  }
  return success();
}

/// The signature with signedness erased, as the memref level sees it.
std::string signless(StringRef signature) {
  std::string text = signature.str();
  size_t pos = 0;
  while ((pos = text.find("ui", pos)) != std::string::npos)
    text.erase(pos, 1);
  return text;
}

struct CPUEmitCEntryPointPass
    : numlir::impl::CPUEmitCEntryPointBase<CPUEmitCEntryPointPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto callee = module.lookupSymbol<func::FuncOp>(function);
    if (!callee) {
      module.emitError() << "cpu-emit-c-entry-point: no function @"
                         << function << " to wrap";
      return signalPassFailure();
    }
    if (module.lookupSymbol(entry)) {
      module.emitError() << "cpu-emit-c-entry-point: symbol @" << entry
                         << " already exists";
      return signalPassFailure();
    }
    FunctionType calleeType = callee.getFunctionType();
    if (calleeType.getNumResults() != 0) {
      callee.emitError() << "cpu-emit-c-entry-point: @" << function
                         << " still returns values; run "
                            "buffer-results-to-out-params first";
      return signalPassFailure();
    }

    SmallVector<std::string> inputs, outputs;
    for (auto [index, argType] : llvm::enumerate(calleeType.getInputs())) {
      auto memrefType = dyn_cast<MemRefType>(argType);
      if (!memrefType || !memrefType.hasStaticShape() ||
          !memrefType.getLayout().isIdentity() ||
          abiElementTypeName(memrefType.getElementType()).empty()) {
        callee.emitError() << "cpu-emit-c-entry-point: argument #"
                           << index << " of type " << argType
                           << " is not a static, identity-layout memref of "
                              "a supported element type";
        return signalPassFailure();
      }
      bool isOutput = static_cast<bool>(
          callee.getArgAttr(index, "bufferize.result"));
      if (!isOutput && !outputs.empty()) {
        callee.emitError() << "cpu-emit-c-entry-point: input argument #"
                           << index << " follows an output buffer";
        return signalPassFailure();
      }
      (isOutput ? outputs : inputs).push_back(abiBufferName(memrefType));
    }

    MLIRContext *ctx = &getContext();
    Location loc = callee.getLoc();
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Type ptr = LLVM::LLVMPointerType::get(ctx);

    // The signature string, NUL-terminated, exported next to the entry.
    std::string signature = llvm::join(inputs, ";") + "->" +
                            llvm::join(outputs, ";");
    if (auto recorded =
            callee->getAttrOfType<StringAttr>("numlir.abi_signature")) {
      if (signless(recorded.getValue()) != signless(signature)) {
        callee.emitError() << "cpu-emit-c-entry-point: recorded signature '"
                           << recorded.getValue()
                           << "' does not match the buffers '" << signature
                           << "'";
        return signalPassFailure();
      }
      signature = recorded.getValue().str();
    }
    signature.push_back('\0');
    auto stringType =
        LLVM::LLVMArrayType::get(b.getI8Type(), signature.size());
    LLVM::GlobalOp::create(b, loc, stringType, /*isConstant=*/true,
                           LLVM::Linkage::External, entry + "_signature",
                           b.getStringAttr(signature));

    auto entryFunc = func::FuncOp::create(
        b, loc, entry, FunctionType::get(ctx, {ptr}, {}));
    Block *body = entryFunc.addEntryBlock();
    b.setInsertionPointToStart(body);
    Value buffers = body->getArgument(0);
    SmallVector<Value> args;
    for (auto [index, argType] : llvm::enumerate(calleeType.getInputs())) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, buffers,
                                       ArrayRef<LLVM::GEPArg>{
                                           static_cast<int32_t>(index)});
      Value pointer = LLVM::LoadOp::create(b, loc, ptr, slot);
      args.push_back(
          wrapPointerInMemRef(b, loc, pointer, cast<MemRefType>(argType)));
    }
    func::CallOp::create(b, loc, callee, args);
    func::ReturnOp::create(b, loc);

    // Only the entry is exported; the wrapped function may be inlined.
    callee.setPrivate();
    callee->setAttr("llvm.linkage",
                    LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));

    b.setInsertionPointToEnd(module.getBody());
    std::string sites = allocationSites(module);
    if (!sites.empty()) {
      sites.push_back('\0');
      LLVM::GlobalOp::create(
          b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), sites.size()),
          /*isConstant=*/true, LLVM::Linkage::External,
          entry + kAllocationSitesSuffix.str(), b.getStringAttr(sites));
    }
    if (failed(emitAllocatorTable(module, entry, loc)) ||
        failed(emitHostCallbacks(module, entry, loc)) ||
        failed(numlir::cpu::emitLibraryCalls(module, entry, loc)) ||
        failed(emitCollectives(module, entry, loc)))
      return signalPassFailure();
  }
};

} // namespace
