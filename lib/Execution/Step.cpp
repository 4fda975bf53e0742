//===- Step.cpp - a training step made ready to run -----------------------===//
//
// Describes a step for the runtime's driver, lowers it for its device with
// the runtime functions under the runtime's names, and makes the LLVM
// target and optimisation that ckpt-run and ckpt-compile share.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Execution/Step.h"
#include "ckpt/Analysis/MemorySimulator.h"
#include "ckpt/Conversion/Pipelines/Pipelines.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Passes/PassBuilder.h"

using namespace mlir;
using ckpt::runtime::Element;

namespace {

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

std::optional<Element> getElement(Type type) {
  if (type.isF32())
    return Element::F32;
  if (type.isF64())
    return Element::F64;
  if (type.isInteger(64))
    return Element::I64;
  if (type.isInteger(1))
    return Element::I1;
  if (type.isF16())
    return Element::F16;
  if (type.isBF16())
    return Element::BF16;
  return std::nullopt;
}

/// The random state's buffer: (seed, base counter).
ckpt::runtime::TensorSpec randomStateTensor() { return {Element::I64, {2}}; }

} // namespace

std::optional<ckpt::StepDevice> ckpt::parseStepDevice(StringRef name) {
  return llvm::StringSwitch<std::optional<StepDevice>>(name)
      .Case("cpu", StepDevice::Cpu)
      .Case("cpu-gpu-loops", StepDevice::CpuGpuLoops)
      .Case("cuda", StepDevice::Cuda)
      .Default(std::nullopt);
}

ckpt::StepOptions::StepOptions(llvm::cl::OptionCategory &category)
    : inputFile(llvm::cl::Positional, llvm::cl::desc("<training step .mlir>"),
                llvm::cl::Required, llvm::cl::cat(category)),
      functionName(
          "function",
          llvm::cl::desc("Function to run (default: the training step)"),
          llvm::cl::init(""), llvm::cl::cat(category)),
      device("device",
             llvm::cl::desc(
                 "Where the step runs: cpu (the default), cuda: the first "
                 "GPU, through the CUDA driver, with kernels compiled by "
                 "ckpt-lower-to-nvvm (the peak is of device memory), or "
                 "cpu-gpu-loops: the CPU running the loops the GPU pipeline "
                 "builds (checks its mapping without a GPU)"),
             llvm::cl::init("cpu"), llvm::cl::cat(category)),
      optLevel("opt-level",
               llvm::cl::desc(
                   "LLVM optimisation of the step before code generation, 0 "
                   "to 3 (default 1: vectorised loops, compiled in little "
                   "more time than 0, which leaves optimising to code "
                   "generation; 2 and 3 rarely run faster; every level "
                   "gives the same bits, in ckpt-run and ckpt-compile)"),
               llvm::cl::init(1), llvm::cl::cat(category)),
      permuteGpuIterations(
          "permute-gpu-iterations",
          llvm::cl::desc(
              "With --device=cpu-gpu-loops: each GPU loop's iterations run "
              "in a permuted order, so that a result that depends on their "
              "order (a race) shows as other bits than the CPU pipeline's"),
          llvm::cl::init(false), llvm::cl::cat(category)) {}

std::optional<ckpt::StepDevice>
ckpt::StepOptions::check(std::string &error) const {
  std::optional<StepDevice> parsed = parseStepDevice(device);
  if (!parsed)
    error = "--device must be cpu, cuda or cpu-gpu-loops, got '" + device + "'";
  else if (optLevel > 3)
    error = "--opt-level must be 0, 1, 2 or 3, got " + std::to_string(optLevel);
  else if (permuteGpuIterations && *parsed != StepDevice::CpuGpuLoops)
    error = "--permute-gpu-iterations needs --device=cpu-gpu-loops";
  return error.empty() ? parsed : std::nullopt;
}

FailureOr<ckpt::runtime::StepSpec>
ckpt::describeStep(ModuleOp module, StringRef functionName, StringRef fileName,
                   StepDevice device, std::string &error) {
  auto fail = [&](const Twine &message) {
    error = message.str();
    return failure();
  };
  func::FuncOp step;
  for (auto func : module.getOps<func::FuncOp>())
    if (functionName.empty() ? func->hasAttr(CkptDialect::kTrainingStepAttrName)
                             : func.getSymName() == functionName)
      step = func;
  if (!step)
    return fail(functionName.empty()
                    ? Twine("no training step in '") + fileName +
                          "'; build one with ckpt-opt --ckpt-autodiff, or "
                          "name a function with --function"
                    : Twine("no function named '") + functionName + "'");
  if (step.isExternal())
    return fail("'" + step.getSymName() + "' has no body");

  runtime::StepSpec spec;
  spec.name = step.getSymName().str();
  spec.onGpu = device == StepDevice::Cuda;
  spec.trainingStep = step->hasAttr(CkptDialect::kTrainingStepAttrName);
  for (BlockArgument arg : step.getArguments()) {
    runtime::ArgumentSpec &argument = spec.arguments.emplace_back();
    // The random state is passed as (seed, base counter).
    if (isa<RngType>(arg.getType())) {
      argument.randomState = true;
      argument.tensor = randomStateTensor();
      continue;
    }
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape())
      return fail("argument " + Twine(arg.getArgNumber()) + " of '" +
                  spec.name + "' must be a statically shaped tensor");
    std::optional<Element> element = getElement(type.getElementType());
    if (!element)
      return fail("argument " + Twine(arg.getArgNumber()) +
                  " has element type that ckpt-run cannot fill yet (f16, "
                  "bf16, f32, f64, i64 and i1 are supported)");
    argument.tensor = {*element,
                       {type.getShape().begin(), type.getShape().end()}};
    argument.indexBound = indexBound(arg);
    argument.parameter = static_cast<bool>(
        step.getArgAttr(arg.getArgNumber(), CkptDialect::kParamAttrName));
  }
  size_t states = 0;
  for (Type type : step.getResultTypes()) {
    runtime::ResultSpec &result = spec.results.emplace_back();
    // A training step returns its advanced random state last.
    if (isa<RngType>(type)) {
      result.randomState = true;
      result.tensor = randomStateTensor();
      ++states;
      continue;
    }
    auto tensor = dyn_cast<RankedTensorType>(type);
    std::optional<Element> element =
        tensor ? getElement(tensor.getElementType()) : std::nullopt;
    if (!tensor || !tensor.hasStaticShape() ||
        !isa<FloatType>(tensor.getElementType()) || !element)
      return fail("results of '" + spec.name +
                  "' must be statically shaped f16, bf16, f32 or f64 tensors");
    result.tensor = {*element,
                     {tensor.getShape().begin(), tensor.getShape().end()}};
  }
  FailureOr<MemoryPeak> predicted = simulateMemory(step);
  if (failed(predicted))
    return failure();
  spec.simulatedPeak = predicted->bytes;
  spec.simulatedPeakWithoutGradients = predicted->bytesWithoutGradients;
  if (spec.trainingStep) {
    size_t parameters = spec.parameterCount();
    if (spec.results.size() < 1 + parameters + states)
      return fail("training step '" + spec.name + "' returns " +
                  Twine(spec.results.size()) +
                  " results, fewer than its loss, " + Twine(parameters) +
                  " gradients and " + Twine(states) + " random states");
    spec.forwardResults = spec.results.size() - parameters - states;
    // ckpt-autodiff names the step of @f @f_train.
    StringRef name = spec.name;
    if (name.consume_back("_train"))
      if (auto forward = module.lookupSymbol<func::FuncOp>(name);
          forward && !forward.isExternal())
        spec.forwardName = name.str();
  }
  return spec;
}

ckpt::LoadedStep::LoadedStep() {
  DialectRegistry registry;
  registry.insert<CkptDialect, arith::ArithDialect, func::FuncDialect>();
  // The GPU pipeline's dependencies include the CPU pipeline's.
  registerLowerToNVVMDependencies(registry);
  context.appendDialectRegistry(registry);
}

std::unique_ptr<ckpt::LoadedStep> ckpt::loadStep(StringRef fileName,
                                                 StringRef functionName,
                                                 StepDevice device,
                                                 std::string &error) {
  auto step = std::make_unique<LoadedStep>();
  auto file = openInputFile(fileName, &error);
  if (!file)
    return nullptr;
  step->sources.AddNewSourceBuffer(std::move(file), SMLoc());
  step->module = parseSourceFile<ModuleOp>(step->sources, &step->context);
  if (!step->module)
    return nullptr;
  FailureOr<runtime::StepSpec> spec =
      describeStep(*step->module, functionName, fileName, device, error);
  if (failed(spec))
    return nullptr;
  step->spec = std::move(*spec);
  return step;
}

LogicalResult ckpt::lowerStep(ModuleOp module, StepDevice device,
                              StringRef chip, bool permuteGpuIterations) {
  PassManager pm(module.getContext());
  if (device == StepDevice::Cuda) {
    LowerToNVVMOptions options;
    options.chip = chip.str();
    buildLowerToNVVMPipeline(pm, options);
  } else {
    LowerToLLVMOptions options;
    options.gpuLoops = device == StepDevice::CpuGpuLoops;
    options.permuteIterations = permuteGpuIterations;
    buildLowerToLLVMPipeline(pm, options);
  }
  if (failed(pm.run(module)))
    return failure();
  SmallVector<std::pair<StringRef, StringRef>> renames = {
      {"malloc", "ckptAllocate"},
      {"free", "ckptFree"},
      {"memrefCopy", "ckptMemrefCopy"}};
  if (device == StepDevice::Cuda)
    renames.append({{"ckptGemmF32", "ckptCudaGemmF32"},
                    {"ckptGemmF64", "ckptCudaGemmF64"},
                    {"ckptGemmF16", "ckptCudaGemmF16"},
                    {"ckptGemmBF16", "ckptCudaGemmBF16"}});
  SymbolTable symbols(module);
  for (auto [libraryName, runtimeName] : renames)
    if (Operation *function = symbols.lookup(libraryName))
      if (failed(symbols.rename(function, runtimeName)))
        return module.emitError("cannot rename '") << libraryName << "'";
  return success();
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
ckpt::createHostTargetMachine() {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // Position-independent code serves an executable and a shared library.
  builder->setRelocationModel(llvm::Reloc::PIC_);
  return builder->createTargetMachine();
}

std::function<llvm::Error(llvm::Module *)>
ckpt::makeStepOptimizer(unsigned optLevel, llvm::TargetMachine *target) {
  return [optLevel, target](llvm::Module *module) -> llvm::Error {
    if (optLevel == 0)
      return llvm::Error::success();
    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager sccs;
    llvm::ModuleAnalysisManager modules;
    // No unrolling: a step's loops have static trip counts, and unrolled
    // they more than doubled compile time (LLVM's own -O1 took 2.8 + 4.4 s
    // on a 6-block Llama step, 1.2 + 1.6 s without), while the steps took
    // 29.1 ms against 24.0 without (Llama) and 10.5 against 11.6 (Mixer).
    llvm::PipelineTuningOptions tuning;
    tuning.LoopUnrolling = false;
    llvm::PassBuilder builder(target, tuning);
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
    llvm::OptimizationLevel levels[] = {llvm::OptimizationLevel::O1,
                                        llvm::OptimizationLevel::O2,
                                        llvm::OptimizationLevel::O3};
    llvm::ModulePassManager pipeline =
        builder.buildPerModuleDefaultPipeline(levels[optLevel - 1]);
    pipeline.run(*module, modules);
    return llvm::Error::success();
  };
}
