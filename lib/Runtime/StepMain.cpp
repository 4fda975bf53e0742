//===- StepMain.cpp - the main of a step compiled into an executable ------===//
//
// `ckpt-compile STEP.mlir -o EXE` links this with the compiled step: it
// reads the step's description from the step itself and runs it through
// the driver with ckpt-run's run options, printing what ckpt-run prints.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/CudaRuntime.h"
#include "ckpt/Runtime/StepDriver.h"

#include <cstdio>
#include <filesystem>

extern "C" const ckpt::runtime::CompiledStep ckpt_compiled_step;

int main(int argc, char **argv) {
  using namespace ckpt::runtime;
  std::string program = std::filesystem::path(argv[0]).filename().string();
  std::string error;
  std::optional<StepSpec> spec = parseStepSpec(ckpt_compiled_step.spec, error);
  if (!spec) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), error.c_str());
    return 1;
  }
  RunOptions options;
  if (std::optional<int> status = parseRunOptions(
          argc, argv,
          "runs the training step @" + spec->name +
              " that ckpt-compile compiled, and measures its peak memory",
          options))
    return *status;
  if (spec->onGpu) {
    if (!openCudaDevice(0, error)) {
      std::fprintf(stderr, "%s: error: %s\n", program.c_str(), error.c_str());
      return 1;
    }
    std::printf("device: %s (%s)\n", getCudaDeviceName().c_str(),
                getCudaDeviceChip().c_str());
  }
  if (ckpt_compiled_step.initialize)
    ckpt_compiled_step.initialize();
  int status = runStep(*spec, ckpt_compiled_step.step,
                       ckpt_compiled_step.forward, options, program);
  if (ckpt_compiled_step.finalize)
    ckpt_compiled_step.finalize();
  return status;
}
