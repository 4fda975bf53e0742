//===- ckpt-run.cpp - run a training step on the CPU and measure it -------===//
//
// Lowers a training step with ckpt-lower-to-llvm (or ckpt-lower-to-nvvm),
// JIT-compiles it and runs it through the runtime's step driver, which
// fills its inputs deterministically from a seed (Philox4x32-10 from
// Random123) and prints the loss, a checksum of the forward's other
// results and of every gradient, the peak heap bytes the step really
// allocated next to the memory simulator's prediction, and the step time.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Execution/Step.h"
#include "ckpt/Runtime/CudaRuntime.h"
#include "ckpt/Runtime/StepDriver.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace help = ckpt::runtime::help;

namespace cl = llvm::cl;

// Only these options appear in --help (LLVM registers hundreds of its own).
static cl::OptionCategory runCategory("ckpt-run options");
static ckpt::StepOptions stepOptions(runCategory);

static cl::opt<uint64_t> seed("seed", cl::desc(help::seed), cl::init(0),
                              cl::cat(runCategory));
static cl::opt<uint64_t> rngBase("rng-base", cl::desc(help::rngBase),
                                 cl::init(0), cl::cat(runCategory));
static cl::opt<unsigned> repeat("repeat", cl::desc(help::repeat), cl::init(1),
                                cl::cat(runCategory));
static cl::opt<unsigned> warmup("warmup", cl::desc(help::warmup), cl::init(1),
                                cl::cat(runCategory));
static cl::opt<unsigned> cpuThreads("cpu-threads", cl::desc(help::cpuThreads),
                                    cl::init(0), cl::cat(runCategory));
static cl::opt<unsigned> checkGradients("check-gradients",
                                        cl::desc(help::checkGradients),
                                        cl::init(0), cl::cat(runCategory));
static cl::opt<double> tolerance("tolerance", cl::desc(help::tolerance),
                                 cl::init(1e-6), cl::cat(runCategory));
static cl::opt<double> checkPeak("check-peak", cl::desc(help::checkPeak),
                                 cl::init(0), cl::cat(runCategory));
static cl::opt<bool> poisonAllocations("poison-allocations",
                                       cl::desc(help::poisonAllocations),
                                       cl::init(false), cl::cat(runCategory));
static cl::list<std::string> inputFiles("input", cl::desc(help::input),
                                        cl::cat(runCategory));
static cl::opt<std::string> inputDir("inputs", cl::desc(help::inputs),
                                     cl::init(""), cl::cat(runCategory));
static cl::opt<std::string> referenceDir("reference", cl::desc(help::reference),
                                         cl::init(""), cl::cat(runCategory));
static cl::opt<double> referenceTolerance("reference-tolerance",
                                          cl::desc(help::referenceTolerance),
                                          cl::init(1e-4), cl::cat(runCategory));
static cl::opt<std::string> outDir("out", cl::desc(help::out), cl::init(""),
                                   cl::cat(runCategory));

static int fail(const Twine &message) {
  llvm::errs() << "ckpt-run: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "ckpt-run: runs a ckpt training step on the CPU or a GPU and measures "
      "its peak memory\n");
  std::string message;
  std::optional<ckpt::StepDevice> stepDevice = stepOptions.check(message);
  if (!stepDevice)
    return fail(message);
  bool onGpu = *stepDevice == ckpt::StepDevice::Cuda;
  if (onGpu && checkGradients > 0)
    return fail("--check-gradients runs on the CPU only; drop --device=cuda");
  if (onGpu && !ckpt::runtime::openCudaDevice(0, message))
    return fail("--device=cuda: " + message);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  std::unique_ptr<ckpt::LoadedStep> loaded = ckpt::loadStep(
      stepOptions.inputFile, stepOptions.functionName, *stepDevice, message);
  if (!loaded)
    return message.empty() ? 1 : fail(message);
  ModuleOp module = *loaded->module;
  const ckpt::runtime::StepSpec *spec = &loaded->spec;
  std::string chip;
  if (onGpu) {
    chip = ckpt::runtime::getCudaDeviceChip();
    llvm::outs() << "device: " << ckpt::runtime::getCudaDeviceName() << " ("
                 << chip << ")\n";
    llvm::outs().flush();
  }
  if (failed(ckpt::lowerStep(module, *stepDevice, chip,
                             stepOptions.permuteGpuIterations)))
    return 1;

  auto host = ckpt::createHostTargetMachine();
  if (!host)
    return fail("cannot target this processor: " +
                llvm::toString(host.takeError()));
  // The options hold a reference to the transformer: it must outlive them.
  std::function<llvm::Error(llvm::Module *)> optimize =
      ckpt::makeStepOptimizer(stepOptions.optLevel, host->get());
  ExecutionEngineOptions engineOptions;
  if (stepOptions.optLevel > 0)
    engineOptions.transformer = optimize;
  engineOptions.jitCodeGenOptLevel = (*host)->getOptLevel();
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return fail("JIT compilation failed: " +
                llvm::toString(engine.takeError()));
  (*engine)->registerSymbols([onGpu](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (auto [name, address] : ckpt::runtime::getStepSymbols(onGpu))
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                 llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  (*engine)->initialize();
  auto lookup = [&](StringRef name) -> ckpt::runtime::PackedFunction {
    auto function = (*engine)->lookupPacked(name);
    if (!function) {
      fail("JIT compilation of '" + name +
           "' failed: " + llvm::toString(function.takeError()));
      return nullptr;
    }
    return *function;
  };
  ckpt::runtime::PackedFunction step = lookup(spec->name);
  if (!step)
    return 1;
  ckpt::runtime::PackedFunction forward = nullptr;
  if (checkGradients > 0 && !spec->forwardName.empty() &&
      !(forward = lookup(spec->forwardName)))
    return 1;

  ckpt::runtime::RunOptions options;
  options.seed = seed;
  options.rngBase = rngBase;
  options.repeat = repeat;
  options.warmup = warmup;
  options.cpuThreads = cpuThreads;
  options.checkGradients = checkGradients;
  options.tolerance = tolerance;
  options.checkPeak = checkPeak;
  options.poisonAllocations = poisonAllocations;
  options.referenceTolerance = referenceTolerance;
  options.inputFiles.assign(inputFiles.begin(), inputFiles.end());
  options.inputDir = inputDir;
  options.referenceDir = referenceDir;
  options.outDir = outDir;
  return ckpt::runtime::runStep(*spec, step, forward, options, "ckpt-run");
}
