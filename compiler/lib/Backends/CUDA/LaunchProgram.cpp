//===- LaunchProgram.cpp - read a CUDA module's launch program ------------===//
//
// The entry function left by cuda-launches-to-ptx is straight-line: every
// buffer is an argument, an allocation or a global, every launch has
// constant sizes and passes whole buffers, and copies move whole buffers.
// Anything else would need host code, which the cuda executable does not
// have (docs/cuda-executable.md), so it is an error naming the op.
//
//===----------------------------------------------------------------------===//

#include "numlir/Backends/CUDA/LaunchProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/JSON.h"

using namespace mlir;

namespace numlir::cuda {
namespace {

llvm::Error failure(Operation *op, const llvm::Twine &message) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << message;
  if (op)
    os << " (" << op->getName() << " at " << op->getLoc() << ")";
  return llvm::createStringError(text);
}

/// Bytes of a dense row-major memref; i1 takes a byte per element, as the
/// runtime stores it.
std::optional<int64_t> byteSize(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || !memref.getLayout().isIdentity())
    return std::nullopt;
  Type element = memref.getElementType();
  int64_t bits = 0;
  if (auto complex = dyn_cast<ComplexType>(element))
    bits = 2 * complex.getElementType().getIntOrFloatBitWidth();
  else if (element.isIntOrFloat())
    bits = element.getIntOrFloatBitWidth();
  else
    return std::nullopt;
  return memref.getNumElements() * std::max<int64_t>(1, bits / 8);
}

/// A global's initial bytes, as the runtime stores the type.
std::optional<std::string> globalBytes(memref::GlobalOp global) {
  auto dense =
      dyn_cast_or_null<DenseElementsAttr>(global.getInitialValueAttr());
  std::optional<int64_t> size = byteSize(global.getType());
  if (!dense || !size)
    return std::nullopt;
  int64_t count = global.getType().getNumElements();
  std::string bytes;
  if (dense.getElementType().isInteger(1)) {
    for (bool value : dense.getValues<bool>())
      bytes.push_back(value ? 1 : 0);
  } else {
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat())
      for (int64_t i = 0; i < count; ++i)
        bytes.append(raw.data(), raw.size());
    else
      bytes.assign(raw.data(), raw.size());
  }
  if (int64_t(bytes.size()) != *size)
    return std::nullopt;
  return bytes;
}

class Exporter {
public:
  explicit Exporter(ModuleOp module) : module(module), symbols(module) {}

  llvm::Expected<LaunchProgram> run() {
    func::FuncOp entry;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal()) {
        if (entry)
          return failure(func, "a cuda module has one public function");
        entry = func;
      }
    if (!entry)
      return failure(nullptr, "the cuda module has no public function");
    if (llvm::Error error = readBinary())
      return std::move(error);
    if (llvm::Error error = readArguments(entry))
      return std::move(error);
    for (Operation &op : entry.getBody().front())
      if (llvm::Error error = readOp(op))
        return std::move(error);

    LaunchProgram program;
    program.module = moduleText;
    program.constants = constants;
    llvm::json::Object root{
        {"signature", signature},
        {"num_inputs", numInputs},
        {"num_outputs", numOutputs},
        {"module_format", moduleFormat},
        {"buffers", std::move(buffers)},
        {"kernels", std::move(kernels)},
        {"steps", std::move(steps)},
    };
    llvm::raw_string_ostream os(program.json);
    os << llvm::json::Value(std::move(root));
    return program;
  }

private:
  llvm::Error readBinary() {
    auto binaries = llvm::to_vector(module.getOps<gpu::BinaryOp>());
    if (binaries.empty()) {
      moduleFormat = "ptx"; // a program without kernels (only copies)
      return llvm::Error::success();
    }
    if (binaries.size() != 1)
      return failure(binaries[1], "a cuda module has one gpu.binary (run "
                                  "cuda-merge-kernel-modules)");
    auto objects = binaries.front().getObjects();
    if (objects.size() != 1)
      return failure(binaries.front(), "the gpu.binary holds one object");
    auto object = cast<gpu::ObjectAttr>(objects[0]);
    switch (object.getFormat()) {
    case gpu::CompilationTarget::Assembly:
      moduleFormat = "ptx";
      break;
    case gpu::CompilationTarget::Binary:
      moduleFormat = "cubin";
      break;
    case gpu::CompilationTarget::Fatbin:
      moduleFormat = "fatbin";
      break;
    default:
      return failure(binaries.front(), "the gpu.binary is neither PTX, a "
                                       "cubin nor a fatbin");
    }
    moduleText = object.getObject().getValue().str();
    binaryName = binaries.front().getSymName().str();
    return llvm::Error::success();
  }

  llvm::Error readArguments(func::FuncOp entry) {
    auto signatureAttr = entry->getAttrOfType<StringAttr>("numlir.abi_signature");
    if (!signatureAttr)
      return failure(entry, "the entry function has no numlir.abi_signature "
                            "(hlo-record-abi-signature)");
    signature = signatureAttr.getValue().str();
    for (BlockArgument arg : entry.getArguments()) {
      std::optional<int64_t> size = byteSize(arg.getType());
      if (!size)
        return failure(entry, "argument " + llvm::Twine(arg.getArgNumber()) +
                                  " is not a dense buffer of static shape");
      bool output = entry.getArgAttr(arg.getArgNumber(), "bufferize.result") !=
                    nullptr;
      if (!output && numOutputs > 0)
        return failure(entry, "inputs must come before outputs");
      int64_t index = output ? numOutputs++ : numInputs++;
      addBuffer(arg, output ? "output" : "input", index, *size, 0);
    }
    return llvm::Error::success();
  }

  void addBuffer(Value value, llvm::StringRef kind, int64_t index, int64_t size,
                 int64_t offset) {
    bufferIndex[value] = int64_t(buffers.size());
    buffers.push_back(llvm::json::Object{
        {"kind", kind}, {"index", index}, {"size", size}, {"offset", offset}});
  }

  llvm::Expected<int64_t> bufferOf(Operation *user, Value value) {
    auto found = bufferIndex.find(value);
    if (found == bufferIndex.end())
      return failure(user, "an operand is not a whole buffer (an argument, "
                           "an allocation or a global)");
    return found->second;
  }

  llvm::Error readOp(Operation &op) {
    if (isa<arith::ConstantOp, func::ReturnOp, memref::DeallocOp>(op))
      return llvm::Error::success();
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      std::optional<int64_t> size = byteSize(alloc.getType());
      if (!size || !alloc.getDynamicSizes().empty())
        return failure(&op, "a temporary buffer must have a static shape");
      addBuffer(alloc, "temporary", 0, *size, 0);
      return llvm::Error::success();
    }
    if (auto get = dyn_cast<memref::GetGlobalOp>(op))
      return readGlobal(get);
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      llvm::Expected<int64_t> source = bufferOf(&op, copy.getSource());
      if (!source)
        return source.takeError();
      llvm::Expected<int64_t> target = bufferOf(&op, copy.getTarget());
      if (!target)
        return target.takeError();
      steps.push_back(llvm::json::Object{
          {"kind", "copy"},
          {"source", *source},
          {"destination", *target},
          {"bytes", *byteSize(copy.getSource().getType())}});
      return llvm::Error::success();
    }
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
      return readLaunch(launch);
    return failure(&op, "the cuda launch program cannot run this op on the "
                        "host");
  }

  llvm::Error readGlobal(memref::GetGlobalOp get) {
    auto global = symbols.lookup<memref::GlobalOp>(get.getName());
    if (!global)
      return failure(get, "the global is not in the module");
    auto known = globalBuffer.find(global);
    if (known != globalBuffer.end()) {
      bufferIndex[get] = known->second;
      return llvm::Error::success();
    }
    std::optional<std::string> bytes = globalBytes(global);
    if (!bytes)
      return failure(get, "the global has no dense initial value of a "
                          "static shape");
    constants.resize(llvm::alignTo(constants.size(), 64), '\0');
    int64_t offset = int64_t(constants.size());
    constants += *bytes;
    addBuffer(get, "constant", 0, int64_t(bytes->size()), offset);
    globalBuffer[global] = bufferIndex[get];
    return llvm::Error::success();
  }

  llvm::Error readLaunch(gpu::LaunchFuncOp launch) {
    if (launch.getKernelModuleName().getValue() != binaryName)
      return failure(launch, "the launch's kernel is not in the module's "
                             "gpu.binary");
    if (launch.getDynamicSharedMemorySize() || launch.getAsyncToken() ||
        launch.hasClusterSize())
      return failure(launch, "async launches, dynamic shared memory and "
                             "clusters are not in the launch program");
    llvm::json::Array grid, block;
    gpu::KernelDim3 gridSizes = launch.getGridSizeOperandValues();
    gpu::KernelDim3 blockSizes = launch.getBlockSizeOperandValues();
    for (auto [sizes, out] : {std::pair{gridSizes, &grid},
                              std::pair{blockSizes, &block}})
      for (Value v : {sizes.x, sizes.y, sizes.z}) {
        auto constant = v.getDefiningOp<arith::ConstantIndexOp>();
        if (!constant)
          return failure(launch, "grid and block sizes must be constants");
        out->push_back(constant.value());
      }
    llvm::json::Array args;
    for (Value operand : launch.getKernelOperands()) {
      if (!isa<MemRefType>(operand.getType()))
        return failure(launch, "kernels take buffers only, one pointer each");
      llvm::Expected<int64_t> buffer = bufferOf(launch, operand);
      if (!buffer)
        return buffer.takeError();
      args.push_back(llvm::json::Array{*buffer, 0});
    }
    std::string name = launch.getKernelName().getValue().str();
    auto kernel = kernelIndex.find(name);
    if (kernel == kernelIndex.end()) {
      kernel = kernelIndex.try_emplace(name, int64_t(kernels.size())).first;
      kernels.push_back(llvm::json::Object{
          {"name", name}, {"num_params", int64_t(args.size())}});
    }
    steps.push_back(llvm::json::Object{{"kind", "launch"},
                                       {"kernel", kernel->second},
                                       {"grid", std::move(grid)},
                                       {"block", std::move(block)},
                                       {"args", std::move(args)}});
    return llvm::Error::success();
  }

  ModuleOp module;
  SymbolTable symbols;
  std::string signature, moduleFormat, moduleText, binaryName, constants;
  int64_t numInputs = 0, numOutputs = 0;
  llvm::json::Array buffers, kernels, steps;
  llvm::DenseMap<Value, int64_t> bufferIndex;
  llvm::DenseMap<Operation *, int64_t> globalBuffer;
  llvm::StringMap<int64_t> kernelIndex;
};

} // namespace

llvm::Expected<LaunchProgram> exportLaunchProgram(ModuleOp module) {
  return Exporter(module).run();
}

} // namespace numlir::cuda
