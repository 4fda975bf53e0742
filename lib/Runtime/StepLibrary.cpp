//===- StepLibrary.cpp - the C interface of a step compiled as a library --===//
//
// `ckpt-compile STEP.mlir --shared -o libstep.so` links this with the
// compiled step: the functions of ckpt_step.h, which describe the step and
// run it on the caller's arrays, measuring the peak like ckpt-run.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/CountingAllocator.h"
#include "ckpt/Runtime/CudaRuntime.h"
#include "ckpt/Runtime/Gemm.h"
#include "ckpt/Runtime/StepDriver.h"
#include "ckpt/Runtime/ckpt_step.h"

#include <cstring>
#include <mutex>

extern "C" const ckpt::runtime::CompiledStep ckpt_compiled_step;

using namespace ckpt::runtime;

namespace {

/// The step's description, parsed once, and its C views.
struct Library {
  StepSpec spec;
  std::vector<ckpt_step_tensor> arguments, results;
  std::string error;
  bool deviceOpen = false;
  bool initialized = false;
};

ckpt_step_tensor describe(const TensorSpec &tensor) {
  ckpt_step_tensor view = {};
  view.element = static_cast<int>(tensor.element);
  view.rank = static_cast<int>(tensor.shape.size());
  view.shape = tensor.shape.data();
  view.bytes = tensor.bytes();
  return view;
}

Library &library() {
  static Library *instance = [] {
    auto *library = new Library;
    std::string error;
    // ckpt-compile wrote the description; it parses.
    library->spec = *parseStepSpec(ckpt_compiled_step.spec, error);
    for (const ArgumentSpec &arg : library->spec.arguments) {
      ckpt_step_tensor view = describe(arg.tensor);
      view.parameter = arg.parameter;
      view.random_state = arg.randomState;
      view.index_bound = arg.indexBound;
      library->arguments.push_back(view);
    }
    for (const ResultSpec &result : library->spec.results) {
      ckpt_step_tensor view = describe(result.tensor);
      view.random_state = result.randomState;
      library->results.push_back(view);
    }
    return library;
  }();
  return *instance;
}

// The element kinds are the header's constants.
static_assert(CKPT_STEP_F32 == static_cast<int>(Element::F32) &&
              CKPT_STEP_F64 == static_cast<int>(Element::F64) &&
              CKPT_STEP_I64 == static_cast<int>(Element::I64) &&
              CKPT_STEP_I1 == static_cast<int>(Element::I1) &&
              CKPT_STEP_F16 == static_cast<int>(Element::F16) &&
              CKPT_STEP_BF16 == static_cast<int>(Element::BF16));

/// Runs are one at a time: the counting allocator measures one step.
std::mutex running;

} // namespace

extern "C" {

const char *ckpt_step_name(void) { return library().spec.name.c_str(); }

int ckpt_step_num_arguments(void) {
  return static_cast<int>(library().arguments.size());
}

int ckpt_step_num_results(void) {
  return static_cast<int>(library().results.size());
}

const ckpt_step_tensor *ckpt_step_argument(int index) {
  Library &l = library();
  return index >= 0 && index < static_cast<int>(l.arguments.size())
             ? &l.arguments[index]
             : nullptr;
}

const ckpt_step_tensor *ckpt_step_result(int index) {
  Library &l = library();
  return index >= 0 && index < static_cast<int>(l.results.size())
             ? &l.results[index]
             : nullptr;
}

uint64_t ckpt_step_simulated_peak(void) { return library().spec.simulatedPeak; }

void ckpt_step_set_threads(int threads) { setCpuThreads(threads); }

int ckpt_step_run(const void *const *arguments, void *const *results,
                  uint64_t *peak_bytes) {
  std::lock_guard<std::mutex> lock(running);
  Library &l = library();
  const StepSpec &spec = l.spec;
  if (!arguments || !results) {
    l.error = "ckpt_step_run needs an array of arguments and one of results";
    return 1;
  }
  if (spec.onGpu && !l.deviceOpen) {
    if (!openCudaDevice(0, l.error))
      return 1;
    setMemoryBackend(getCudaMemory());
    l.deviceOpen = true;
  }
  // The kernels load once, with the device open; they stay loaded while
  // the process lives.
  if (ckpt_compiled_step.initialize && !l.initialized) {
    ckpt_compiled_step.initialize();
    l.initialized = true;
  }
  // The step does not write its arguments; on the GPU it reads device
  // copies of them.
  std::vector<MemRef> inputs;
  std::vector<void *> deviceInputs;
  uint64_t inputBytes = 0;
  for (size_t i = 0; i < spec.arguments.size(); ++i) {
    const TensorSpec &tensor = spec.arguments[i].tensor;
    void *data = const_cast<void *>(arguments[i]);
    if (spec.onGpu) {
      void *copy = getCudaMemory().allocate(tensor.bytes());
      copyToDevice(copy, data, tensor.bytes());
      deviceInputs.push_back(data = copy);
    }
    inputs.push_back(makeDenseMemRef(data, tensor.shape));
    inputBytes += tensor.bytes();
  }
  std::vector<MemRef> outputs(spec.results.size());
  for (size_t i = 0; i < outputs.size(); ++i)
    outputs[i].sizes.resize(spec.results[i].tensor.shape.size());
  std::vector<MemRef *> inputPointers, outputPointers;
  for (MemRef &memref : inputs)
    inputPointers.push_back(&memref);
  for (MemRef &memref : outputs)
    outputPointers.push_back(&memref);
  resetPeak();
  callPacked(ckpt_compiled_step.step, inputPointers, outputPointers);
  if (peak_bytes)
    *peak_bytes = inputBytes + getAllocationStats().peakBytes;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorSpec &tensor = spec.results[i].tensor;
    const char *data = static_cast<const char *>(outputs[i].aligned) +
                       outputs[i].offset * tensor.elementBytes();
    if (spec.onGpu)
      copyToHost(results[i], data, tensor.bytes());
    else if (tensor.bytes() > 0)
      std::memcpy(results[i], data, tensor.bytes());
  }
  releaseResults(outputPointers);
  for (void *copy : deviceInputs)
    getCudaMemory().release(copy);
  return 0;
}

const char *ckpt_step_error(void) { return library().error.c_str(); }

} // extern "C"
