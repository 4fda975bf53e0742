//===- ckpt-run.cpp - run a training step on the CPU and measure it -------===//
//
// Lowers a training step with ckpt-lower-to-llvm, JIT-compiles it, fills its
// inputs deterministically from a seed (Philox4x32-10 from Random123),
// runs it, and prints the loss, a checksum of the forward's other results
// and of every gradient, the peak heap bytes the step really allocated next
// to the memory simulator's prediction, and the step time.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/MemorySimulator.h"
#include "ckpt/Conversion/Pipelines/Pipelines.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Runtime/CountingAllocator.h"
#include "ckpt/Runtime/CudaRuntime.h"
#include "ckpt/Runtime/Gemm.h"
#include "ckpt/Runtime/Npy.h"
#include "ckpt/Runtime/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace mlir;

namespace cl = llvm::cl;

// Only these options appear in --help (LLVM registers hundreds of its own).
static cl::OptionCategory runCategory("ckpt-run options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<training step .mlir>"),
                                      cl::Required, cl::cat(runCategory));
static cl::opt<std::string>
    functionName("function",
                 cl::desc("Function to run (default: the training step)"),
                 cl::init(""), cl::cat(runCategory));
static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of the input values (default 0)"),
                              cl::init(0), cl::cat(runCategory));
static cl::opt<uint64_t>
    rngBase("rng-base",
            cl::desc("Base counter of the random state passed to the step "
                     "(default 0)"),
            cl::init(0), cl::cat(runCategory));
static cl::opt<unsigned> repeat("repeat", cl::desc("Timed runs (default 1)"),
                                cl::init(1), cl::cat(runCategory));
static cl::opt<unsigned>
    warmup("warmup",
           cl::desc("Untimed runs first; the first run also finishes JIT "
                    "compilation (default 1)"),
           cl::init(1), cl::cat(runCategory));
static cl::opt<unsigned> optLevel(
    "opt-level",
    cl::desc("LLVM optimisation of the step before code generation, 0 to 3 "
             "(default 0: code generation alone optimises; higher levels "
             "run faster steps and compile for much longer)"),
    cl::init(0), cl::cat(runCategory));
static cl::opt<unsigned> cpuThreads(
    "cpu-threads",
    cl::desc("Threads the CPU's matrix products and parallel loops run on "
             "(default 0: every core); the same count gives the same bits on "
             "every run"),
    cl::init(0), cl::cat(runCategory));
static cl::opt<unsigned> checkGradients(
    "check-gradients",
    cl::desc("Compare the gradients with central finite differences of the "
             "forward function along this many random directions (0: off)"),
    cl::init(0), cl::cat(runCategory));
static cl::opt<double> tolerance(
    "tolerance",
    cl::desc("Largest relative error --check-gradients accepts (default "
             "1e-6, for f64 models)"),
    cl::init(1e-6), cl::cat(runCategory));
static cl::opt<double> checkPeak(
    "check-peak",
    cl::desc("Fail when a measured peak (with or without the returned "
             "gradients) differs from the simulated one by more than this "
             "fraction (0: off)"),
    cl::init(0), cl::cat(runCategory));
static cl::list<std::string>
    inputFiles("input",
               cl::desc("Load argument N from a .npy file instead of filling "
                        "it: --input N=PATH (repeatable)"),
               cl::cat(runCategory));
static cl::opt<std::string> device(
    "device",
    cl::desc("Where the step runs: cpu (the default), cuda: the first GPU, "
             "through the CUDA driver, with kernels compiled for its "
             "architecture (ckpt-lower-to-nvvm; the peak is of device "
             "memory), or cpu-gpu-loops: the CPU running the loops the GPU "
             "pipeline builds (checks its mapping without a GPU)"),
    cl::init("cpu"), cl::cat(runCategory));
static cl::opt<std::string> inputDir(
    "inputs",
    cl::desc("Load every argument N that has a DIR/argN.npy from it (as "
             "ckpt-import-torch --weights writes parameters); --input "
             "overrides single arguments"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<std::string> referenceDir(
    "reference",
    cl::desc("Compare each gradient with DIR/gradN.npy, and each result of "
             "the forward function (the loss is result 0) with "
             "DIR/resultK.npy where there is one (for example from an f64 "
             "run of the same graph)"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<double> referenceTolerance(
    "reference-tolerance",
    cl::desc("Largest relative L2 difference --reference accepts, of all "
             "gradients together and of each forward result (default 1e-4)"),
    cl::init(1e-4), cl::cat(runCategory));
static cl::opt<std::string>
    outDir("out",
           cl::desc("Write each gradient as DIR/grad<N>.npy, N the "
                    "parameter's argument number, and each result of the "
                    "forward function as DIR/result<K>.npy (the loss is "
                    "result 0)"),
           cl::init(""), cl::cat(runCategory));

namespace {

/// One argument or result buffer and its memref descriptor fields.
struct Buffer {
  RankedTensorType type;
  void *allocated = nullptr;
  void *aligned = nullptr;
  int64_t offset = 0;
  SmallVector<int64_t> sizes, strides;

  size_t elementBytes() const {
    return ckpt::getElementByteWidth(type.getElementType());
  }
  // The memory simulator has checked that every argument's and result's
  // size fits 64 bits before any buffer is made.
  size_t count() const { return *ckpt::getStaticElementCount(type); }
  size_t bytes() const { return *ckpt::getStaticTensorBytes(type); }
  char *data() const {
    return static_cast<char *>(aligned) + offset * elementBytes();
  }
  /// Points the descriptor at new 64-byte-aligned host memory; false when
  /// there is not that much.
  bool allocateOnHost() {
    allocated = aligned =
        std::aligned_alloc(64, llvm::alignTo(std::max<size_t>(bytes(), 1), 64));
    offset = 0;
    return allocated;
  }
};

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// The exclusive upper bound of the valid values of an i64 input: the rows
/// of the embedding it indexes or the classes of the cross-entropy it
/// labels, looking through reshapes.
int64_t indexBound(Value value) {
  for (Operation *user : value.getUsers()) {
    if (auto embedding = dyn_cast<ckpt::EmbeddingOp>(user))
      return embedding.getWeight().getType().getDimSize(0);
    if (auto loss = dyn_cast<ckpt::CrossEntropyOp>(user))
      return loss.getLogits().getType().getDimSize(1);
    if (auto reshape = dyn_cast<ckpt::ReshapeOp>(user))
      if (int64_t bound = indexBound(reshape.getResult()))
        return bound;
  }
  return 0;
}

/// Fills an input: floats uniform in [-1, 1), indices uniform over their
/// valid range, masks uniform bits.
void fill(Buffer &buffer, const ckpt::runtime::PhiloxStream &stream,
          int64_t bound) {
  Type element = buffer.type.getElementType();
  size_t n = buffer.count();
  for (size_t i = 0; i < n; ++i) {
    if (element.isF32())
      reinterpret_cast<float *>(buffer.data())[i] =
          static_cast<float>(2.0 * stream.uniform(i) - 1.0);
    else if (element.isF64())
      reinterpret_cast<double *>(buffer.data())[i] =
          2.0 * stream.uniform(i) - 1.0;
    else if (element.isInteger(64))
      reinterpret_cast<int64_t *>(buffer.data())[i] =
          static_cast<int64_t>(stream.word(i) % std::max<int64_t>(bound, 1));
    else
      reinterpret_cast<uint8_t *>(buffer.data())[i] = stream.word(i) & 1;
  }
}

double elementAt(const Buffer &buffer, size_t i) {
  if (buffer.type.getElementType().isF64())
    return reinterpret_cast<const double *>(buffer.data())[i];
  return reinterpret_cast<const float *>(buffer.data())[i];
}

/// Writes `value` to element `i` of an f32 or f64 buffer (rounded to f32).
void setElementAt(Buffer &buffer, size_t i, double value) {
  if (buffer.type.getElementType().isF64())
    reinterpret_cast<double *>(buffer.data())[i] = value;
  else
    reinterpret_cast<float *>(buffer.data())[i] = static_cast<float>(value);
}

/// The .npy dtype of an element type.
std::string npyDtype(Type element) {
  if (element.isF64())
    return "f8";
  if (element.isF32())
    return "f4";
  if (element.isInteger(64))
    return "i8";
  return "b1";
}

int fail(const Twine &message) {
  llvm::errs() << "ckpt-run: error: " << message << "\n";
  return 1;
}

/// The lowered step's `malloc` (as `ckptAllocate`). The step's code cannot
/// handle a null block, so running out of memory ends the run here, with
/// the size.
void *allocateForStep(size_t size) {
  if (void *pointer = ckpt::runtime::allocate(size))
    return pointer;
  llvm::outs().flush();
  fail("the step could not allocate " + ckpt::formatBytes(size) +
       "; the memory simulator predicts its peak without running it "
       "(ckpt-opt --ckpt-report)");
  llvm::errs().flush();
  // Not exit(): the step is mid-call in JIT code, whose engine static
  // destructors would tear down.
  std::_Exit(1);
}

/// Writes every file of `files` (path, then the result to write there)
/// into `dir`, all or none: each goes to a temporary file first, and only
/// when all are written are they renamed into place.
int writeOutputs(StringRef dir,
                 ArrayRef<std::pair<std::string, const Buffer *>> files) {
  if (std::error_code error = llvm::sys::fs::create_directories(dir))
    return fail("cannot create '" + dir + "': " + error.message());
  SmallVector<std::pair<std::string, std::string>> written; // temp, final
  auto removeWritten = [&] {
    for (auto &[temporary, path] : written)
      llvm::sys::fs::remove(temporary);
  };
  for (auto [file, buffer] : files) {
    SmallString<128> path(dir);
    llvm::sys::path::append(path, file);
    std::string temporary = path.str().str() + ".partial";
    std::string error;
    std::vector<int64_t> shape(buffer->type.getShape().begin(),
                               buffer->type.getShape().end());
    written.push_back({temporary, path.str().str()});
    if (!ckpt::runtime::writeNpy(temporary,
                                 npyDtype(buffer->type.getElementType()),
                                 shape, buffer->data(), buffer->bytes(),
                                 error)) {
      removeWritten();
      return fail(error);
    }
  }
  for (auto &[temporary, path] : written)
    if (std::error_code error = llvm::sys::fs::rename(temporary, path)) {
      removeWritten();
      return fail("cannot write '" + path + "': " + error.message());
    }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "ckpt-run: runs a ckpt training step on the CPU or a GPU and measures "
      "its peak memory\n");
  bool onGpu = device == "cuda";
  if (!onGpu && device != "cpu" && device != "cpu-gpu-loops")
    return fail("--device must be cpu, cuda or cpu-gpu-loops, got '" +
                device + "'");
  if (optLevel > 3)
    return fail("--opt-level must be 0, 1, 2 or 3, got " + Twine(optLevel));
  ckpt::runtime::setCpuThreads(cpuThreads);
  if (onGpu && checkGradients > 0)
    return fail("--check-gradients runs on the CPU only; drop --device=cuda");
  if (onGpu) {
    std::string error;
    if (!ckpt::runtime::openCudaDevice(0, error))
      return fail("--device=cuda: " + error);
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  DialectRegistry registry;
  registry.insert<ckpt::CkptDialect, arith::ArithDialect, func::FuncDialect>();
  ckpt::registerLowerToNVVMDependencies(registry);
  MLIRContext context(registry);

  std::string message;
  auto file = openInputFile(inputFile, &message);
  if (!file)
    return fail(message);
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(file), SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sources, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
  if (!module)
    return 1;

  // The function to run, its signature and the prediction, before lowering.
  func::FuncOp step;
  for (auto func : module->getOps<func::FuncOp>())
    if (functionName.empty()
            ? func->hasAttr(ckpt::CkptDialect::kTrainingStepAttrName)
            : func.getSymName() == functionName)
      step = func;
  if (!step)
    return fail(functionName.empty()
                    ? Twine("no training step in '") + inputFile +
                          "'; build one with ckpt-opt --ckpt-autodiff, or "
                          "name a function with --function"
                    : Twine("no function named '") + functionName + "'");
  if (step.isExternal())
    return fail("'" + step.getSymName() + "' has no body");
  std::string name = step.getSymName().str();
  SmallVector<Buffer> inputs, results;
  SmallVector<int64_t> bounds;
  SmallVector<bool> randomState;
  for (BlockArgument arg : step.getArguments()) {
    // The random state is passed as (seed, base counter) = (--seed, 0).
    randomState.push_back(isa<ckpt::RngType>(arg.getType()));
    if (randomState.back()) {
      inputs.push_back(
          {RankedTensorType::get({2}, IntegerType::get(&context, 64))});
      bounds.push_back(0);
      continue;
    }
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape())
      return fail("argument " + Twine(arg.getArgNumber()) + " of '" + name +
                  "' must be a statically shaped tensor");
    Type element = type.getElementType();
    if (!element.isF32() && !element.isF64() && !element.isInteger(64) &&
        !element.isInteger(1))
      return fail("argument " + Twine(arg.getArgNumber()) +
                  " has element type that ckpt-run cannot fill yet (f32, "
                  "f64, i64 and i1 are supported)");
    inputs.push_back({type});
    bounds.push_back(indexBound(arg));
  }
  SmallVector<bool> resultIsState;
  for (Type type : step.getResultTypes()) {
    // A training step returns its advanced random state last.
    resultIsState.push_back(isa<ckpt::RngType>(type));
    if (resultIsState.back()) {
      results.push_back(
          {RankedTensorType::get({2}, IntegerType::get(&context, 64))});
      continue;
    }
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() ||
        !(tensor.getElementType().isF32() || tensor.getElementType().isF64()))
      return fail("results of '" + name +
                  "' must be statically shaped f32 or f64 tensors");
    results.push_back({tensor});
  }
  FailureOr<ckpt::MemoryPeak> predicted = ckpt::simulateMemory(step);
  if (failed(predicted))
    return 1;
  SmallVector<unsigned> paramArgs;
  for (BlockArgument arg : step.getArguments())
    if (step.getArgAttr(arg.getArgNumber(), ckpt::CkptDialect::kParamAttrName))
      paramArgs.push_back(arg.getArgNumber());
  bool trainingStep = step->hasAttr(ckpt::CkptDialect::kTrainingStepAttrName);
  // A training step returns its forward function's results (the loss
  // first), the gradient of every parameter in argument order, then its
  // random states.
  size_t forwardResults = 0;
  if (trainingStep) {
    size_t states = llvm::count(resultIsState, true);
    if (results.size() < 1 + paramArgs.size() + states)
      return fail("training step '" + name + "' returns " +
                  Twine(results.size()) + " results, fewer than its loss, " +
                  Twine(paramArgs.size()) + " gradients and " + Twine(states) +
                  " random states");
    forwardResults = results.size() - paramArgs.size() - states;
  }
  auto isGradient = [&](size_t index) {
    return trainingStep && index >= forwardResults &&
           index < forwardResults + paramArgs.size();
  };
  // ckpt-autodiff names the step of @f @f_train.
  std::string forwardName;
  if (trainingStep && StringRef(name).ends_with("_train"))
    if (auto forward = module->lookupSymbol<func::FuncOp>(
            StringRef(name).drop_back(strlen("_train"))))
      forwardName = forward.getSymName().str();

  PassManager pm(&context);
  if (onGpu) {
    ckpt::LowerToNVVMOptions options;
    options.chip = ckpt::runtime::getCudaDeviceChip();
    ckpt::buildLowerToNVVMPipeline(pm, options);
    llvm::outs() << "device: " << ckpt::runtime::getCudaDeviceName() << " ("
                 << options.chip << ")\n";
    // The step's buffers (malloc and free in the lowered code) are device
    // memory, counted.
    ckpt::runtime::setMemoryBackend(ckpt::runtime::getCudaMemory());
  } else {
    ckpt::LowerToLLVMOptions options;
    options.gpuLoops = device == "cpu-gpu-loops";
    ckpt::buildLowerToLLVMPipeline(pm, options);
  }
  if (failed(pm.run(*module)))
    return 1;
  // LLVM knows what malloc and free do and would remove, merge or move the
  // step's allocations under O3; under their own names they stay the calls
  // the simulator predicts, each one counted.
  SymbolTable moduleSymbols(*module);
  for (auto [libraryName, countedName] :
       {std::pair{"malloc", "ckptAllocate"}, std::pair{"free", "ckptFree"}})
    if (Operation *function = moduleSymbols.lookup(libraryName))
      if (failed(moduleSymbols.rename(function, countedName)))
        return fail(Twine("cannot rename '") + libraryName + "'");

  // Optimise for this processor (vector width, instruction set).
  auto hostBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!hostBuilder)
    return fail("cannot target this processor: " +
                llvm::toString(hostBuilder.takeError()));
  auto host = hostBuilder->createTargetMachine();
  if (!host)
    return fail("cannot target this processor: " +
                llvm::toString(host.takeError()));
  // The options hold a reference to the transformer: it must outlive them.
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, host->get());
  ExecutionEngineOptions engineOptions;
  if (optLevel > 0)
    engineOptions.transformer = optimize;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engine = ExecutionEngine::create(*module, engineOptions);
  if (!engine)
    return fail("JIT compilation failed: " +
                llvm::toString(engine.takeError()));
  (*engine)->registerSymbols([onGpu](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](StringRef symbol, void *address) {
      symbols[interner(symbol)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                   llvm::JITSymbolFlags::Exported};
    };
    add("ckptAllocate", reinterpret_cast<void *>(&allocateForStep));
    add("ckptFree", reinterpret_cast<void *>(&ckpt::runtime::deallocate));
    // Copies between strided buffers (slices) call MLIR's runner utility.
    add("memrefCopy", reinterpret_cast<void *>(&memrefCopy));
    if (onGpu)
      for (auto [symbol, address] : ckpt::runtime::getCudaRuntimeSymbols())
        add(symbol, address);
    else {
      add("ckptGemmF32",
          reinterpret_cast<void *>(&ckpt::runtime::blasGemm<float>));
      add("ckptGemmF64",
          reinterpret_cast<void *>(&ckpt::runtime::blasGemm<double>));
    }
    return symbols;
  });
  (*engine)->initialize();

  auto release = [](ArrayRef<Buffer> outputs) {
    // Two results can share a buffer (the same value returned twice).
    SmallVector<void *> freed;
    for (const Buffer &buffer : outputs)
      if (!llvm::is_contained(freed, buffer.allocated)) {
        freed.push_back(buffer.allocated);
        ckpt::runtime::deallocate(buffer.allocated);
      }
  };
  // Every exit from here on, an error included, gives back what the run
  // holds: host blocks, device copies of the inputs, and the results of
  // the last run of the step.
  SmallVector<void *> hostBlocks, deviceInputs;
  SmallVector<Buffer> heldResults;
  auto releaseResults = [&] {
    release(heldResults);
    heldResults.clear();
  };
  llvm::scope_exit releaseAll([&] {
    releaseResults();
    for (void *block : deviceInputs)
      ckpt::runtime::getCudaMemory().release(block);
    for (void *block : hostBlocks)
      std::free(block);
  });

  // Inputs live in plain aligned memory: the simulator counts arguments as
  // live throughout, and so does the measured peak.
  uint64_t inputBytes = 0;
  for (auto [index, buffer] : llvm::enumerate(inputs)) {
    if (!buffer.allocateOnHost())
      return fail("cannot allocate " + ckpt::formatBytes(buffer.bytes()) +
                  " for argument " + Twine(index) + " of '" + name + "'");
    hostBlocks.push_back(buffer.allocated);
    buffer.sizes.assign(buffer.type.getShape().begin(),
                        buffer.type.getShape().end());
    buffer.strides = rowMajorStrides(buffer.type.getShape());
    if (randomState[index]) {
      reinterpret_cast<int64_t *>(buffer.data())[0] = seed;
      reinterpret_cast<int64_t *>(buffer.data())[1] = rngBase;
    } else {
      fill(buffer, ckpt::runtime::PhiloxStream(seed, index), bounds[index]);
    }
    inputBytes += buffer.bytes();
  }

  auto loadInput = [&](unsigned index, StringRef path) -> bool {
    Buffer &buffer = inputs[index];
    ckpt::runtime::NpyArray array;
    std::string error;
    if (!ckpt::runtime::readNpy(path.str(), array, error))
      return fail(error), false;
    if (randomState[index])
      return fail("argument " + Twine(index) + " is the random state, which "
                  "--seed and --rng-base set; it is not loaded from '" +
                  path + "'"),
             false;
    std::string expected = npyDtype(buffer.type.getElementType());
    if (array.dtype != expected ||
        ArrayRef<int64_t>(array.shape) != buffer.type.getShape()) {
      std::string shape, type;
      for (int64_t size : array.shape)
        shape += std::to_string(size) + ",";
      llvm::raw_string_ostream os(type);
      os << buffer.type;
      return fail("'" + path + "' holds " + array.dtype + " of shape (" +
                  shape + ") but argument " + Twine(index) + " is " + type +
                  " (dtype " + expected + ")"),
             false;
    }
    // An empty array has no data to copy (and memcpy no null source).
    if (buffer.bytes() > 0)
      std::memcpy(buffer.data(), array.data.data(), buffer.bytes());
    return true;
  };
  if (!inputDir.empty()) {
    if (!llvm::sys::fs::is_directory(inputDir))
      return fail("--inputs: '" + inputDir + "' is not a directory");
    unsigned loaded = 0;
    for (unsigned index = 0; index < inputs.size(); ++index) {
      SmallString<128> path(inputDir);
      llvm::sys::path::append(path, "arg" + Twine(index) + ".npy");
      if (!llvm::sys::fs::exists(path))
        continue;
      if (!loadInput(index, path))
        return 1;
      ++loaded;
    }
    if (loaded == 0)
      return fail("--inputs: '" + inputDir + "' holds no argN.npy for any "
                  "of the " + Twine(inputs.size()) + " arguments of '" +
                  name + "'");
  }
  for (const std::string &spec : inputFiles) {
    auto [indexText, path] = StringRef(spec).split('=');
    unsigned index;
    if (indexText.getAsInteger(10, index) || path.empty() ||
        index >= inputs.size())
      return fail("--input expects N=PATH with N an argument number below " +
                  Twine(inputs.size()) + ", got '" + spec + "'");
    if (!loadInput(index, path))
      return 1;
  }

  // On the GPU the step reads device copies of the inputs (not counted in
  // the heap, like the host inputs on the CPU).
  if (onGpu)
    for (Buffer &buffer : inputs) {
      void *copy = ckpt::runtime::getCudaMemory().allocate(buffer.bytes());
      deviceInputs.push_back(copy);
      ckpt::runtime::copyToDevice(copy, buffer.data(), buffer.bytes());
      buffer.allocated = buffer.aligned = copy;
      buffer.offset = 0;
    }

  // The packed interface takes a pointer to every descriptor field of every
  // argument, then a pointer to the results (a struct of descriptors, all
  // 8-byte fields).
  SmallVector<void *> packed;
  for (Buffer &buffer : inputs) {
    packed.append({&buffer.allocated, &buffer.aligned, &buffer.offset});
    for (int64_t &size : buffer.sizes)
      packed.push_back(&size);
    for (int64_t &stride : buffer.strides)
      packed.push_back(&stride);
  }
  size_t resultWords = 0;
  for (const Buffer &buffer : results)
    resultWords += 3 + 2 * buffer.type.getRank();
  SmallVector<int64_t> resultStorage(std::max<size_t>(resultWords, 1));
  void *resultPointer = resultStorage.data();
  packed.push_back(resultPointer);

  /// Runs `function` on the inputs and reads the descriptors of its results
  /// into `outputs`.
  auto invoke = [&](StringRef function,
                    MutableArrayRef<Buffer> outputs) -> LogicalResult {
    if (llvm::Error error = (*engine)->invokePacked(function, packed)) {
      fail("running '" + function +
           "' failed: " + llvm::toString(std::move(error)));
      return failure();
    }
    int64_t *field = resultStorage.data();
    for (Buffer &buffer : outputs) {
      buffer.allocated = reinterpret_cast<void *>(field[0]);
      buffer.aligned = reinterpret_cast<void *>(field[1]);
      buffer.offset = field[2];
      int64_t rank = buffer.type.getRank();
      buffer.sizes.assign(field + 3, field + 3 + rank);
      buffer.strides.assign(field + 3 + rank, field + 3 + 2 * rank);
      field += 3 + 2 * rank;
    }
    return success();
  };
  /// Runs the step into `results`, which `releaseAll` then owns.
  auto runStep = [&]() -> LogicalResult {
    if (failed(invoke(name, results)))
      return failure();
    heldResults.assign(results.begin(), results.end());
    return success();
  };

  for (unsigned i = 0; i < warmup; ++i) {
    if (failed(runStep()))
      return 1;
    releaseResults();
  }
  unsigned runs = std::max(1u, repeat.getValue());
  double totalSeconds = 0, bestSeconds = INFINITY;
  uint64_t peakAllocated = 0;
  for (unsigned i = 0; i < runs; ++i) {
    ckpt::runtime::resetPeak();
    auto start = std::chrono::steady_clock::now();
    if (onGpu)
      ckpt::runtime::startGpuTimer();
    if (failed(runStep()))
      return 1;
    // GPU time between events; on the CPU, wall time.
    double seconds = onGpu ? 1e-3 * ckpt::runtime::stopGpuTimer()
                           : std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - start)
                                 .count();
    totalSeconds += seconds;
    bestSeconds = std::min(bestSeconds, seconds);
    peakAllocated = ckpt::runtime::getAllocationStats().peakBytes;
    if (i + 1 < runs)
      releaseResults();
  }
  // The same run without the gradients (and next random state) a training
  // step returns, as if they had existed before it: PyTorch's accounting
  // when .grad buffers persist across steps. The forward's results stay.
  std::vector<void *> returnedFromBackward;
  if (trainingStep)
    for (const Buffer &buffer : ArrayRef(results).drop_front(forwardResults))
      returnedFromBackward.push_back(buffer.allocated);
  uint64_t peakWithoutGradients =
      ckpt::runtime::getPeakExcluding(returnedFromBackward);
  // What follows reads the results on the host.
  if (onGpu) {
    for (auto [buffer, device] : llvm::zip(results, heldResults)) {
      if (!buffer.allocateOnHost())
        return fail("cannot allocate " + ckpt::formatBytes(buffer.bytes()) +
                    " on the host for a result of '" + name + "'");
      hostBlocks.push_back(buffer.allocated);
      ckpt::runtime::copyToHost(buffer.data(), device.data(), buffer.bytes());
    }
  }

  llvm::outs() << "function: @" << name << "\n";
  // What --reference compared: per tensor its squared differences and
  // squared reference values.
  struct Compared {
    std::string label;
    double difference, norm;
  };
  SmallVector<Compared> comparedGradients, comparedResults;
  // Written at the end, once nothing can fail: never some files of a run.
  SmallVector<std::pair<std::string, const Buffer *>> outputs;
  for (auto [index, buffer] : llvm::enumerate(results)) {
    if (resultIsState[index]) {
      const int64_t *state = reinterpret_cast<const int64_t *>(buffer.data());
      llvm::outs() << "next random state: seed " << state[0]
                   << ", base counter " << state[1] << "\n";
      continue;
    }
    double sum = 0, sumSquares = 0;
    for (size_t i = 0, e = buffer.count(); i < e; ++i) {
      double value = elementAt(buffer, i);
      sum += value;
      sumSquares += value * value;
    }
    // Gradients are named after their parameter's argument number, the
    // forward's results after their result number.
    std::string label, file;
    if (isGradient(index)) {
      std::string arg = std::to_string(paramArgs[index - forwardResults]);
      label = "grad of argument " + arg;
      file = "grad" + arg + ".npy";
    } else if (trainingStep) {
      label = "forward result " + std::to_string(index);
      file = "result" + std::to_string(index) + ".npy";
    } else {
      label = "result " + std::to_string(index);
    }
    if (trainingStep && index == 0 && buffer.type.getRank() == 0)
      llvm::outs() << "loss: " << llvm::format("%.9g", sum) << "\n";
    else
      llvm::outs() << label << ": sum " << llvm::format("%.9g", sum) << ", l2 "
                   << llvm::format("%.9g", std::sqrt(sumSquares)) << "\n";
    // Every gradient has a reference; the forward's results are compared
    // where the reference has them.
    SmallString<128> referencePath(referenceDir);
    llvm::sys::path::append(referencePath, file);
    if (!referenceDir.empty() && !file.empty() &&
        (isGradient(index) || llvm::sys::fs::exists(referencePath))) {
      ckpt::runtime::NpyArray reference;
      std::string error;
      if (!ckpt::runtime::readNpy(referencePath.str().str(), reference, error))
        return fail(error);
      if (ArrayRef<int64_t>(reference.shape) != buffer.type.getShape() ||
          (reference.dtype != "f4" && reference.dtype != "f8"))
        return fail("'" + referencePath +
                    "' does not hold a float array of the shape of " + label);
      double difference = 0, norm = 0;
      for (size_t i = 0, e = buffer.count(); i < e; ++i) {
        double expected =
            reference.dtype == "f8"
                ? reinterpret_cast<const double *>(reference.data.data())[i]
                : reinterpret_cast<const float *>(reference.data.data())[i];
        double delta = elementAt(buffer, i) - expected;
        difference += delta * delta;
        norm += expected * expected;
      }
      (isGradient(index) ? comparedGradients : comparedResults)
          .push_back({label, difference, norm});
    }
    if (!outDir.empty() && !file.empty())
      outputs.push_back({file, &buffer});
  }
  /// Prints one measured-versus-simulated line; returns the relative
  /// difference.
  auto comparePeak = [&](StringRef label, uint64_t heap, uint64_t simulated) {
    uint64_t measured = inputBytes + heap;
    double difference = (static_cast<double>(measured) - simulated) /
                        std::max<double>(simulated, 1);
    llvm::outs() << label << ": measured " << measured << " (inputs "
                 << inputBytes << " + heap " << heap << "), simulated "
                 << simulated << " (" << llvm::format("%+.2f", 100 * difference)
                 << "%)\n";
    return difference;
  };
  double difference =
      comparePeak("peak bytes", peakAllocated, predicted->bytes);
  if (trainingStep)
    difference = std::max(
        difference,
        comparePeak("peak bytes without returned gradients",
                    peakWithoutGradients, predicted->bytesWithoutGradients),
        [](double a, double b) { return std::abs(a) < std::abs(b); });
  llvm::outs() << "step time: "
               << llvm::format("%.3f", 1e3 * totalSeconds / runs)
               << " ms mean, " << llvm::format("%.3f", 1e3 * bestSeconds)
               << " ms best of " << runs << "\n";

  int status = 0;
  if (!referenceDir.empty()) {
    // Gradients are judged together, by the norm of all their differences
    // against the norm of all of them: a gradient that is zero, or nearly,
    // in exact arithmetic (a bias before a batch norm) has no meaningful
    // relative difference of its own. Forward results (the loss) are
    // judged one by one.
    auto relative = [](double difference, double norm) {
      return std::sqrt(difference) / std::max(std::sqrt(norm), 1e-300);
    };
    double difference = 0, norm = 0;
    for (const Compared &gradient : comparedGradients) {
      difference += gradient.difference;
      norm += gradient.norm;
    }
    double gradients = relative(difference, norm), results = 0;
    for (const Compared &result : comparedResults)
      results = std::max(results, relative(result.difference, result.norm));
    bool agrees = gradients <= referenceTolerance &&
                  results <= referenceTolerance;
    llvm::outs() << "reference: " << (agrees ? "agrees" : "DIFFERS")
                 << " (gradients: relative L2 difference "
                 << llvm::format("%.3g", gradients) << " over all "
                 << comparedGradients.size();
    if (!comparedResults.empty())
      llvm::outs() << "; forward results: worst relative L2 difference "
                   << llvm::format("%.3g", results) << " of "
                   << comparedResults.size();
    llvm::outs() << "; tolerance "
                 << llvm::format("%.3g", referenceTolerance.getValue())
                 << ")\n";
    // The gradients that make most of the difference, largest first.
    SmallVector<const Compared *> largest;
    for (const Compared &gradient : comparedGradients)
      if (gradient.difference > 0)
        largest.push_back(&gradient);
    llvm::sort(largest, [](const Compared *a, const Compared *b) {
      return a->difference > b->difference;
    });
    for (const Compared *gradient : ArrayRef(largest).take_front(3))
      llvm::outs() << "  " << gradient->label << ": "
                   << llvm::format("%.1f", 100 * gradient->difference /
                                               difference)
                   << "% of the squared difference, relative L2 difference "
                   << llvm::format(
                          "%.3g", relative(gradient->difference, gradient->norm))
                   << " of its own\n";
    if (!agrees)
      status = 1;
  }
  if (checkPeak > 0 && std::abs(difference) > checkPeak) {
    llvm::errs() << "ckpt-run: error: measured and simulated peaks differ by "
                 << llvm::format("%.2f", 100 * std::abs(difference))
                 << "%, more than " << llvm::format("%.2f", 100 * checkPeak)
                 << "%\n";
    status = 1;
  }
  if (checkGradients > 0) {
    if (!trainingStep || forwardName.empty())
      return fail("--check-gradients needs a training step whose forward "
                  "function is in the file (ckpt-autodiff keeps it by "
                  "default)");
    double worst = 0;
    for (unsigned k = 0; k < checkGradients; ++k) {
      // A random direction v over all parameters; the step's gradients give
      // the directional derivative exactly, central differences of the
      // forward loss approximately.
      SmallVector<SmallVector<double>> direction, original;
      double analytic = 0, scale = 0;
      for (auto [p, arg] : llvm::enumerate(paramArgs)) {
        ckpt::runtime::PhiloxStream stream(seed + 1 + k, arg);
        const Buffer &grad = results[forwardResults + p];
        SmallVector<double> &v = direction.emplace_back();
        SmallVector<double> &x = original.emplace_back();
        for (size_t i = 0, e = grad.count(); i < e; ++i) {
          v.push_back(2.0 * stream.uniform(i) - 1.0);
          x.push_back(elementAt(inputs[arg], i));
          analytic += elementAt(grad, i) * v.back();
          scale = std::max(scale, std::abs(elementAt(inputs[arg], i)));
        }
      }
      // Fourth-order central differences with a step of the cube root of
      // the machine epsilon of the least precise parameter or loss: small
      // enough for steep losses (saturated softmax), large enough that
      // rounding stays far below the tolerance.
      bool f64 = results.front().type.getElementType().isF64() &&
                 llvm::all_of(paramArgs, [&](unsigned arg) {
                   return inputs[arg].type.getElementType().isF64();
                 });
      double step =
          std::cbrt(f64 ? 2.220446e-16 : 1.192093e-07) * std::max(scale, 1.0);
      auto moveParameters = [&](double t) {
        for (auto [p, arg] : llvm::enumerate(paramArgs))
          for (auto [i, value] : llvm::enumerate(direction[p]))
            setElementAt(inputs[arg], i, original[p][i] + t * value);
      };
      auto lossAt = [&](double t) -> FailureOr<double> {
        moveParameters(t);
        // The forward returns the loss and its other results.
        SmallVector<Buffer> forward = llvm::map_to_vector(
            ArrayRef(results).take_front(forwardResults),
            [](const Buffer &result) { return Buffer{result.type}; });
        if (failed(invoke(forwardName, forward)))
          return failure();
        double value = elementAt(forward.front(), 0);
        release(forward);
        return value;
      };
      double at[4];
      const double offsets[4] = {step, -step, 2 * step, -2 * step};
      for (int j = 0; j < 4; ++j) {
        FailureOr<double> value = lossAt(offsets[j]);
        if (failed(value))
          return 1;
        at[j] = *value;
      }
      moveParameters(0.0); // restores the parameters exactly
      double numeric = (8 * (at[0] - at[1]) - (at[2] - at[3])) / (12 * step);
      double error = std::abs(numeric - analytic) /
                     std::max({std::abs(numeric), std::abs(analytic), 1e-30});
      worst = std::max(worst, error);
      llvm::outs() << "gradient check " << k << ": directional derivative "
                   << llvm::format("%.12g", analytic) << ", finite difference "
                   << llvm::format("%.12g", numeric) << ", relative error "
                   << llvm::format("%.3g", error) << "\n";
    }
    bool passed = worst <= tolerance;
    llvm::outs() << "gradient check: " << (passed ? "passed" : "FAILED")
                 << " (worst relative error " << llvm::format("%.3g", worst)
                 << ", tolerance " << llvm::format("%.3g", tolerance.getValue())
                 << ")\n";
    if (!passed)
      status = 1;
  }
  // A verdict (reference, peak or gradient check) that fails still leaves
  // complete results to inspect.
  if (!outputs.empty() && writeOutputs(outDir, outputs) != 0)
    return 1;

  return status;
}
