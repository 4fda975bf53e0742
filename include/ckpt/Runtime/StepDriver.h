//===- StepDriver.h - run a compiled training step and measure it ---------===//
//
// What ckpt-run does once a step is compiled, free of MLIR and LLVM so a
// step compiled ahead of time (ckpt-compile) runs the same code: fill or
// load the inputs, run the step's packed entry point, print the loss,
// checksums, measured and simulated peaks and step time, compare with a
// reference, check gradients by finite differences, write the outputs.
// A step is described by a StepSpec, which travels inside a compiled step
// as text (serializeStepSpec / parseStepSpec).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_RUNTIME_STEPDRIVER_H
#define CKPT_RUNTIME_STEPDRIVER_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ckpt::runtime {

/// The values are ckpt_step.h's CKPT_STEP_* constants.
enum class Element { F32, F64, I64, I1, F16, BF16 };

struct TensorSpec {
  Element element = Element::F32;
  std::vector<int64_t> shape;

  size_t elementBytes() const;
  size_t count() const;
  size_t bytes() const;
  /// As MLIR prints the type: tensor<256x64xf32>.
  std::string typeName() const;
  /// The .npy dtype: f4, f8, i8, b1, f2, or u2 for bf16, which NumPy
  /// lacks: its bits as uint16.
  const char *npyDtype() const;
};

struct ArgumentSpec {
  TensorSpec tensor;
  /// The random state (seed, base counter): tensor<2xi64>.
  bool randomState = false;
  bool parameter = false;
  /// Indices are filled uniformly below this (the rows of the embedding
  /// they index, the classes of the cross-entropy they label); 0: no bound.
  int64_t indexBound = 0;
};

struct ResultSpec {
  TensorSpec tensor;
  bool randomState = false;
};

struct StepSpec {
  std::string name;
  /// The forward function a training step differentiates, for the gradient
  /// check; empty when there is none.
  std::string forwardName;
  bool trainingStep = false;
  /// The step runs on the first CUDA device (its buffers are device memory).
  bool onGpu = false;
  std::vector<ArgumentSpec> arguments;
  /// A training step returns its forward function's results (the loss
  /// first), the gradient of every parameter in argument order, then its
  /// random states.
  std::vector<ResultSpec> results;
  size_t forwardResults = 0;
  /// The memory simulator's peak, and its peak without the gradients a
  /// training step returns.
  uint64_t simulatedPeak = 0;
  uint64_t simulatedPeakWithoutGradients = 0;

  /// The number of parameters: the gradients a training step returns.
  size_t parameterCount() const;
};

/// The text a compiled step carries; parseStepSpec reads it back.
std::string serializeStepSpec(const StepSpec &spec);
/// nullopt, with the reason in `error`, for text serializeStepSpec did not
/// write.
std::optional<StepSpec> parseStepSpec(const std::string &text,
                                      std::string &error);

/// A lowered function's packed entry point: one pointer to every field of
/// every argument's memref descriptor, then one to the results' storage.
using PackedFunction = void (*)(void **);

/// The fields of a memref descriptor.
struct MemRef {
  void *allocated = nullptr;
  void *aligned = nullptr;
  int64_t offset = 0;
  std::vector<int64_t> sizes, strides;
};

/// A descriptor of dense row-major `data` of `shape`.
MemRef makeDenseMemRef(void *data, const std::vector<int64_t> &shape);

/// Calls `function` on `arguments` and reads the descriptors of its
/// results into `results`, each of the rank its `sizes` already has.
void callPacked(PackedFunction function, std::vector<MemRef *> &arguments,
                std::vector<MemRef *> &results);

/// What ckpt-compile puts in a compiled step, as the global
/// `ckpt_compiled_step`: the step's and the forward's packed entry points
/// (the forward null when there is none), what must run before the first
/// call and after the last (on the GPU: loading the kernels, once the
/// device is open; null when nothing), and serializeStepSpec's text.
struct CompiledStep {
  PackedFunction step;
  PackedFunction forward;
  void (*initialize)();
  void (*finalize)();
  const char *spec;
};
inline constexpr const char *kCompiledStepSymbol = "ckpt_compiled_step";

/// Gives the counting allocator's blocks back; two results can share one
/// (the same value returned twice).
void releaseResults(const std::vector<MemRef *> &results);

/// How a step is run. The help texts are shared by ckpt-run's options and
/// a compiled step's.
struct RunOptions {
  uint64_t seed = 0;
  uint64_t rngBase = 0;
  unsigned repeat = 1;
  unsigned warmup = 1;
  unsigned cpuThreads = 0;
  unsigned checkGradients = 0;
  double tolerance = 1e-6;
  double checkPeak = 0;
  bool poisonAllocations = false;
  double referenceTolerance = 1e-4;
  std::vector<std::string> inputFiles;
  std::string inputDir;
  std::string referenceDir;
  std::string outDir;
};

namespace help {
inline constexpr const char *seed = "Seed of the input values (default 0)";
inline constexpr const char *rngBase =
    "Base counter of the random state passed to the step (default 0)";
inline constexpr const char *repeat = "Timed runs (default 1)";
inline constexpr const char *warmup =
    "Untimed runs first; under ckpt-run the first run also finishes JIT "
    "compilation (default 1)";
inline constexpr const char *cpuThreads =
    "Threads the CPU's matrix products and parallel loops run on (default "
    "0: every core); the same count gives the same bits on every run";
inline constexpr const char *checkGradients =
    "Compare the gradients with central finite differences of the forward "
    "function along this many random directions (0: off)";
inline constexpr const char *tolerance =
    "Largest relative error --check-gradients accepts (default 1e-6, for "
    "f64 models)";
inline constexpr const char *checkPeak =
    "Fail when a measured peak (with or without the returned gradients) "
    "differs from the simulated one by more than this fraction (0: off)";
inline constexpr const char *poisonAllocations =
    "Fill every block the step allocates with 0xFF bytes (NaN in floating "
    "point) before the step uses it, so that a read before the first write "
    "shows in the results (CPU only; off by default)";
inline constexpr const char *input =
    "Load argument N from a .npy file instead of filling it: --input "
    "N=PATH (repeatable)";
inline constexpr const char *inputs =
    "Load every argument N that has a DIR/argN.npy from it (as "
    "ckpt-import-torch --weights writes parameters); --input overrides "
    "single arguments";
inline constexpr const char *reference =
    "Compare each gradient with DIR/gradN.npy, and each result of the "
    "forward function (the loss is result 0) with DIR/resultK.npy where "
    "there is one (for example from an f64 run of the same graph)";
inline constexpr const char *referenceTolerance =
    "Largest relative L2 difference --reference accepts, of all gradients "
    "together and of each forward result (default 1e-4)";
inline constexpr const char *out =
    "Write each gradient as DIR/grad<N>.npy, N the parameter's argument "
    "number, and each result of the forward function as DIR/result<K>.npy "
    "(the loss is result 0)";
} // namespace help

/// Runs `step` as `options` say and prints what ckpt-run prints to stdout,
/// errors to stderr prefixed with "<program>: error: ". `forward` may be
/// null (no gradient check then). Returns the process's exit status.
int runStep(const StepSpec &spec, PackedFunction step, PackedFunction forward,
            const RunOptions &options, const std::string &program);

/// Parses a compiled step's command line (ckpt-run's run options, both
/// --name=value and --name value) into `options`. Returns nullopt to go on;
/// else the exit status (0 after --help, 1 after an error, printed).
std::optional<int> parseRunOptions(int argc, char **argv,
                                   const std::string &overview,
                                   RunOptions &options);

/// The runtime functions lowered steps call, by name: ckptAllocate,
/// ckptFree, ckptMemrefCopy, and ckptGemm* (Gemm.h) on the CPU or the GPU's
/// mgpu* functions and cuBLAS GEMMs, for a JIT's symbol table. A step
/// compiled ahead of time links the same functions by these names.
std::vector<std::pair<const char *, void *>> getStepSymbols(bool onGpu);

} // namespace ckpt::runtime

#endif // CKPT_RUNTIME_STEPDRIVER_H
