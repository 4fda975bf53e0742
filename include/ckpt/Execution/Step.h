//===- Step.h - a training step made ready to run -------------------------===//
//
// What ckpt-run (JIT) and ckpt-compile (ahead of time) share before code
// generation: the description of the step the runtime's driver needs
// (arguments, results, the simulator's peaks), the lowering for the CPU or
// the GPU with the runtime functions under the names the runtime defines,
// and the LLVM target and optimisation both use, so the same step gives
// the same machine code, and the same bits, either way.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_EXECUTION_STEP_H
#define CKPT_EXECUTION_STEP_H

#include "ckpt/Runtime/StepDriver.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Target/TargetMachine.h"

#include <functional>
#include <memory>
#include <string>

namespace ckpt {

/// Where a step runs: the CPU; the CPU running the loops the GPU pipeline
/// builds (checks the GPU mapping without a GPU); the first CUDA device.
enum class StepDevice { Cpu, CpuGpuLoops, Cuda };

/// "cpu", "cpu-gpu-loops" or "cuda"; nullopt for anything else.
std::optional<StepDevice> parseStepDevice(llvm::StringRef name);

/// The options ckpt-run and ckpt-compile share, in the tool's --help
/// category: the step file, the function, the device, LLVM's optimisation
/// level, and the permuted order of the GPU loops on the CPU.
struct StepOptions {
  explicit StepOptions(llvm::cl::OptionCategory &category);

  llvm::cl::opt<std::string> inputFile;
  llvm::cl::opt<std::string> functionName;
  llvm::cl::opt<std::string> device;
  llvm::cl::opt<unsigned> optLevel;
  llvm::cl::opt<bool> permuteGpuIterations;

  /// The device; nullopt, with the reason in `error`, for a device or an
  /// optimisation level that does not exist, or a permuted order off the
  /// GPU loops.
  std::optional<StepDevice> check(std::string &error) const;
};

/// Describes the function to run: the module's training step when
/// `functionName` is empty, else that function. On failure says why in
/// `error`, or leaves it empty where a diagnostic was emitted (the memory
/// simulator's).
mlir::FailureOr<runtime::StepSpec>
describeStep(mlir::ModuleOp module, llvm::StringRef functionName,
             llvm::StringRef fileName, StepDevice device, std::string &error);

/// A step file parsed and described, in a context that can lower it, with
/// its diagnostics printed against the file.
struct LoadedStep {
  mlir::MLIRContext context;
  llvm::SourceMgr sources;
  mlir::SourceMgrDiagnosticHandler diagnostics{sources, &context};
  mlir::OwningOpRef<mlir::ModuleOp> module;
  runtime::StepSpec spec;

  LoadedStep();
};

/// Parses `fileName` ("-": standard input) and describes its step
/// (describeStep). Null on failure, with the reason in `error` or, where
/// a diagnostic was printed, `error` empty.
std::unique_ptr<LoadedStep> loadStep(llvm::StringRef fileName,
                                     llvm::StringRef functionName,
                                     StepDevice device, std::string &error);

/// Lowers `module` with the CPU pipeline (ckpt-lower-to-llvm; for
/// cpu-gpu-loops its gpu-loops, with `permuteGpuIterations`) or the GPU's
/// (ckpt-lower-to-nvvm, kernels for `chip`), then renames what the step
/// calls to the runtime's functions (StepDriver.h): malloc and free to the
/// counting allocator's ckptAllocate and ckptFree, which LLVM cannot then
/// remove, merge or move; memrefCopy to ckptMemrefCopy; on the GPU the
/// GEMMs to cuBLAS's ckptCudaGemmF32/F64.
mlir::LogicalResult lowerStep(mlir::ModuleOp module, StepDevice device,
                              llvm::StringRef chip,
                              bool permuteGpuIterations = false);

/// This processor as LLVM targets it (vector width, instruction set), with
/// the code generation level steps are compiled at.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> createHostTargetMachine();

/// LLVM's optimisation of a lowered step at `optLevel` (0: none; code
/// generation alone optimises).
std::function<llvm::Error(llvm::Module *)>
makeStepOptimizer(unsigned optLevel, llvm::TargetMachine *target);

} // namespace ckpt

#endif // CKPT_EXECUTION_STEP_H
