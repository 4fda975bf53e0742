//===- StepDriver.cpp - run a compiled training step and measure it -------===//
//
// Fills or loads a step's inputs, runs its packed entry point, measures the
// peak through the counting allocator and prints what ckpt-run prints. The
// JIT (ckpt-run) and a step compiled ahead of time (ckpt-compile) both run
// their steps through here, so they fill, time and compare alike.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/StepDriver.h"
#include "ckpt/Runtime/CountingAllocator.h"
#include "ckpt/Runtime/CudaRuntime.h"
#include "ckpt/Runtime/Gemm.h"
#include "ckpt/Runtime/HalfFloat.h"
#include "ckpt/Runtime/Npy.h"
#include "ckpt/Runtime/Philox.h"
#include "ckpt/Support/CheckedMath.h"
#include "ckpt/Support/FormatBytes.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <malloc.h>
#include <sstream>

using namespace ckpt::runtime;

namespace {

/// The program name errors are prefixed with ("ckpt-run", a compiled
/// step's name); the allocator's out-of-memory message needs it too.
std::string programName = "ckpt-run";

/// Whether the step's blocks start as 0xFF bytes (--poison-allocations).
bool poisonAllocations = false;

int fail(const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %s\n", programName.c_str(), message.c_str());
  return 1;
}

std::string formatNumber(const char *format, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

/// One argument or result buffer: its memref descriptor and its type.
struct Buffer : MemRef {
  const TensorSpec *tensor;

  explicit Buffer(const TensorSpec *tensor) : tensor(tensor) {
    sizes.resize(tensor->shape.size());
  }

  char *data() const {
    return static_cast<char *>(aligned) + offset * tensor->elementBytes();
  }
  /// Points the descriptor at new 64-byte-aligned host memory; false when
  /// there is not that much.
  bool allocateOnHost() {
    size_t bytes = std::max<size_t>(tensor->bytes(), 1);
    allocated = aligned = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    offset = 0;
    return allocated;
  }
  double at(size_t i) const {
    switch (tensor->element) {
    case Element::F64:
      return reinterpret_cast<const double *>(data())[i];
    case Element::F16:
      return halfToFloat(reinterpret_cast<const uint16_t *>(data())[i]);
    case Element::BF16:
      return bfloat16ToFloat(reinterpret_cast<const uint16_t *>(data())[i]);
    default:
      return reinterpret_cast<const float *>(data())[i];
    }
  }
  /// Writes `value` to element `i` of a float buffer (rounded to f32, then
  /// to a 16-bit type's nearest).
  void set(size_t i, double value) {
    switch (tensor->element) {
    case Element::F64:
      reinterpret_cast<double *>(data())[i] = value;
      break;
    case Element::F16:
      reinterpret_cast<uint16_t *>(data())[i] =
          floatToHalf(static_cast<float>(value));
      break;
    case Element::BF16:
      reinterpret_cast<uint16_t *>(data())[i] =
          floatToBfloat16(static_cast<float>(value));
      break;
    default:
      reinterpret_cast<float *>(data())[i] = static_cast<float>(value);
    }
  }
};

template <typename T> std::vector<MemRef *> pointers(std::vector<T> &buffers) {
  std::vector<MemRef *> result;
  for (T &buffer : buffers)
    result.push_back(&buffer);
  return result;
}

/// Fills an input: floats uniform in [-1, 1) (16-bit ones rounded from
/// f32), indices uniform over their valid range, masks uniform bits.
void fill(Buffer &buffer, const PhiloxStream &stream, int64_t bound) {
  size_t n = buffer.tensor->count();
  for (size_t i = 0; i < n; ++i) {
    switch (buffer.tensor->element) {
    case Element::F32:
    case Element::F16:
    case Element::BF16:
      buffer.set(i, static_cast<float>(2.0 * stream.uniform(i) - 1.0));
      break;
    case Element::F64:
      buffer.set(i, 2.0 * stream.uniform(i) - 1.0);
      break;
    case Element::I64:
      reinterpret_cast<int64_t *>(buffer.data())[i] =
          static_cast<int64_t>(stream.word(i) % std::max<int64_t>(bound, 1));
      break;
    case Element::I1:
      reinterpret_cast<uint8_t *>(buffer.data())[i] = stream.word(i) & 1;
      break;
    }
  }
}

/// Writes every file of `files` (name, then the result to write there)
/// into `dir`, all or none: each goes to a temporary file first, and only
/// when all are written are they renamed into place.
int writeOutputs(
    const std::string &dir,
    const std::vector<std::pair<std::string, const Buffer *>> &files) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(dir, error);
  if (error)
    return fail("cannot create '" + dir + "': " + error.message());
  std::vector<std::pair<std::string, std::string>> written; // temp, final
  auto removeWritten = [&] {
    for (auto &[temporary, path] : written)
      fs::remove(temporary, error);
  };
  for (auto &[file, buffer] : files) {
    std::string path = (fs::path(dir) / file).string();
    std::string temporary = path + ".partial";
    std::string message;
    written.push_back({temporary, path});
    if (!writeNpy(temporary, buffer->tensor->npyDtype(), buffer->tensor->shape,
                  buffer->data(), buffer->tensor->bytes(), message)) {
      removeWritten();
      return fail(message);
    }
  }
  for (auto &[temporary, path] : written) {
    fs::rename(temporary, path, error);
    if (error) {
      std::string message = error.message();
      removeWritten();
      return fail("cannot write '" + path + "': " + message);
    }
  }
  return 0;
}

/// Each element type's name in MLIR, its .npy dtype and its size, in the
/// order of Element.
struct ElementInfo {
  const char *name;
  const char *npyDtype;
  size_t bytes;
};
constexpr ElementInfo kElements[] = {{"f32", "f4", 4}, {"f64", "f8", 8},
                                     {"i64", "i8", 8}, {"i1", "b1", 1},
                                     {"f16", "f2", 2}, {"bf16", "u2", 2}};

const ElementInfo &info(Element element) {
  return kElements[static_cast<size_t>(element)];
}

const char *elementName(Element element) { return info(element).name; }

/// Whether a .npy dtype holds floats, u2 holding bf16 bits
/// (TensorSpec::npyDtype).
bool isFloatDtype(const std::string &dtype) {
  return dtype == "f8" || dtype == "f4" || dtype == "f2" || dtype == "u2";
}

/// Element `i` of a float array read from a .npy file.
double npyFloat(const NpyArray &array, size_t i) {
  const char *data = array.data.data();
  if (array.dtype == "f8")
    return reinterpret_cast<const double *>(data)[i];
  if (array.dtype == "f4")
    return reinterpret_cast<const float *>(data)[i];
  uint16_t bits = reinterpret_cast<const uint16_t *>(data)[i];
  return array.dtype == "f2" ? halfToFloat(bits) : bfloat16ToFloat(bits);
}

} // namespace

//===----------------------------------------------------------------------===//
// The step's description
//===----------------------------------------------------------------------===//

size_t TensorSpec::elementBytes() const { return info(element).bytes; }

// A spec is made from a module whose sizes the memory simulator checked, or
// parsed with the same check: the products fit.
size_t TensorSpec::count() const { return *checkedProduct(shape, 1); }
size_t TensorSpec::bytes() const {
  return *checkedProduct(shape, elementBytes());
}

std::string TensorSpec::typeName() const {
  std::string name = "tensor<";
  for (int64_t size : shape)
    name += std::to_string(size) + "x";
  return name + elementName(element) + ">";
}

const char *TensorSpec::npyDtype() const { return info(element).npyDtype; }

size_t StepSpec::parameterCount() const {
  return std::count_if(arguments.begin(), arguments.end(),
                       [](const ArgumentSpec &arg) { return arg.parameter; });
}

// One record per line: a keyword, numbers, and names last (the rest of the
// line), so any symbol name survives.
std::string ckpt::runtime::serializeStepSpec(const StepSpec &spec) {
  std::ostringstream os;
  auto tensor = [&](const TensorSpec &t) {
    os << elementName(t.element) << " " << t.shape.size();
    for (int64_t size : t.shape)
      os << " " << size;
  };
  os << "ckpt-step 1\n";
  os << "training " << spec.trainingStep << " gpu " << spec.onGpu
     << " forward-results " << spec.forwardResults << " peak "
     << spec.simulatedPeak << " " << spec.simulatedPeakWithoutGradients << "\n";
  for (const ArgumentSpec &arg : spec.arguments) {
    os << "argument " << arg.randomState << " " << arg.parameter << " "
       << arg.indexBound << " ";
    tensor(arg.tensor);
    os << "\n";
  }
  for (const ResultSpec &result : spec.results) {
    os << "result " << result.randomState << " ";
    tensor(result.tensor);
    os << "\n";
  }
  os << "name " << spec.name << "\n";
  os << "forward " << spec.forwardName << "\n";
  return os.str();
}

std::optional<StepSpec> ckpt::runtime::parseStepSpec(const std::string &text,
                                                     std::string &error) {
  StepSpec spec;
  std::istringstream lines(text);
  std::string line;
  bool header = false, counts = false;
  auto tensor = [](std::istream &is, TensorSpec &t) {
    std::string element;
    size_t rank = 0;
    if (!(is >> element >> rank) || rank > 64)
      return false;
    const ElementInfo *known =
        std::find_if(std::begin(kElements), std::end(kElements),
                     [&](const ElementInfo &e) { return element == e.name; });
    if (known == std::end(kElements))
      return false;
    t.element = static_cast<Element>(known - std::begin(kElements));
    t.shape.resize(rank);
    for (int64_t &size : t.shape)
      if (!(is >> size) || size < 0)
        return false;
    return checkedProduct(t.shape, t.elementBytes()).has_value();
  };
  while (std::getline(lines, line)) {
    std::istringstream is(line);
    std::string keyword;
    is >> keyword;
    bool ok = true;
    if (keyword == "ckpt-step") {
      int version = 0;
      ok = (is >> version) && version == 1;
      header = ok;
    } else if (keyword == "training") {
      std::string gpu, forwardResults, peak;
      ok = (is >> spec.trainingStep >> gpu >> spec.onGpu >> forwardResults >>
            spec.forwardResults >> peak >> spec.simulatedPeak >>
            spec.simulatedPeakWithoutGradients) &&
           gpu == "gpu" && forwardResults == "forward-results" &&
           peak == "peak";
      counts = ok;
    } else if (keyword == "argument") {
      ArgumentSpec &arg = spec.arguments.emplace_back();
      ok = (is >> arg.randomState >> arg.parameter >> arg.indexBound) &&
           tensor(is, arg.tensor);
    } else if (keyword == "result") {
      ResultSpec &result = spec.results.emplace_back();
      ok = (is >> result.randomState) && tensor(is, result.tensor);
    } else if (keyword == "name" || keyword == "forward") {
      std::string &name = keyword == "name" ? spec.name : spec.forwardName;
      name = line.size() > keyword.size() + 1 ? line.substr(keyword.size() + 1)
                                              : std::string();
    } else {
      ok = false;
    }
    if (!ok) {
      error = "malformed step description line '" + line + "'";
      return std::nullopt;
    }
  }
  if (!header || !counts || spec.name.empty() ||
      spec.forwardResults > spec.results.size()) {
    error = "incomplete step description";
    return std::nullopt;
  }
  return spec;
}

//===----------------------------------------------------------------------===//
// The runtime functions lowered code calls
//===----------------------------------------------------------------------===//

extern "C" {

/// The lowered step's `malloc`. The step's code cannot handle a null block,
/// so running out of memory ends the run here, with the size.
void *ckptAllocate(size_t size) {
  if (void *pointer = allocate(size)) {
    if (poisonAllocations)
      std::memset(pointer, 0xFF, size);
    return pointer;
  }
  fail("the step could not allocate " + ckpt::formatBytes(size) +
       "; the memory simulator predicts its peak without running it "
       "(ckpt-opt --ckpt-report)");
  std::fflush(stderr);
  // Not exit(): the step is mid-call, perhaps in JIT code whose engine
  // static destructors would tear down.
  std::_Exit(1);
}

void ckptFree(void *pointer) { deallocate(pointer); }

/// MLIR's memref.copy between strided buffers: an unranked descriptor each
/// (rank, then a pointer to the ranked descriptor).
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};

void ckptMemrefCopy(int64_t elementBytes, UnrankedMemRef *source,
                    UnrankedMemRef *target) {
  int64_t rank = source->rank;
  auto fields = [](UnrankedMemRef *memref) {
    return static_cast<int64_t *>(memref->descriptor);
  };
  int64_t *from = fields(source), *to = fields(target);
  char *fromData = reinterpret_cast<char *>(from[1]) + from[2] * elementBytes;
  char *toData = reinterpret_cast<char *>(to[1]) + to[2] * elementBytes;
  const int64_t *sizes = from + 3;
  const int64_t *fromStrides = from + 3 + rank, *toStrides = to + 3 + rank;
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d)
    count *= sizes[d];
  if (count == 0)
    return;
  // The innermost dimension is copied in one piece where both are dense.
  int64_t inner =
      rank > 0 && fromStrides[rank - 1] == 1 && toStrides[rank - 1] == 1
          ? sizes[rank - 1]
          : 1;
  int64_t outerRank = inner > 1 ? rank - 1 : rank;
  std::vector<int64_t> index(std::max<int64_t>(outerRank, 1), 0);
  for (int64_t done = 0; done < count; done += inner) {
    int64_t fromOffset = 0, toOffset = 0;
    for (int64_t d = 0; d < outerRank; ++d) {
      fromOffset += index[d] * fromStrides[d];
      toOffset += index[d] * toStrides[d];
    }
    std::memcpy(toData + toOffset * elementBytes,
                fromData + fromOffset * elementBytes, inner * elementBytes);
    for (int64_t d = outerRank - 1; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
}

// ckptGemmF32, ckptGemmF64, ckptGemmF16 and ckptGemmBF16 (Gemm.h).
CKPT_DEFINE_GEMM_ENTRY(ckptGemmF32, blasGemm, float)
CKPT_DEFINE_GEMM_ENTRY(ckptGemmF64, blasGemm, double)
CKPT_DEFINE_GEMM_ENTRY(ckptGemmF16, blasGemm, Half)
CKPT_DEFINE_GEMM_ENTRY(ckptGemmBF16, blasGemm, BFloat16)

} // extern "C"

std::vector<std::pair<const char *, void *>>
ckpt::runtime::getStepSymbols(bool onGpu) {
  std::vector<std::pair<const char *, void *>> symbols = {
      {"ckptAllocate", reinterpret_cast<void *>(&ckptAllocate)},
      {"ckptFree", reinterpret_cast<void *>(&ckptFree)},
      {"ckptMemrefCopy", reinterpret_cast<void *>(&ckptMemrefCopy)},
  };
  if (onGpu) {
    for (auto symbol : getCudaRuntimeSymbols())
      symbols.push_back(symbol);
  } else {
    symbols.push_back({"ckptGemmF32", reinterpret_cast<void *>(&ckptGemmF32)});
    symbols.push_back({"ckptGemmF64", reinterpret_cast<void *>(&ckptGemmF64)});
    symbols.push_back({"ckptGemmF16", reinterpret_cast<void *>(&ckptGemmF16)});
    symbols.push_back(
        {"ckptGemmBF16", reinterpret_cast<void *>(&ckptGemmBF16)});
  }
  return symbols;
}

//===----------------------------------------------------------------------===//
// Running a step
//===----------------------------------------------------------------------===//

MemRef ckpt::runtime::makeDenseMemRef(void *data,
                                      const std::vector<int64_t> &shape) {
  MemRef memref;
  memref.allocated = memref.aligned = data;
  memref.sizes = shape;
  memref.strides.assign(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    memref.strides[i] = memref.strides[i + 1] * shape[i + 1];
  return memref;
}

void ckpt::runtime::callPacked(PackedFunction function,
                               std::vector<MemRef *> &arguments,
                               std::vector<MemRef *> &results) {
  // A pointer to every descriptor field of every argument, then a pointer
  // to the results (a struct of descriptors, all 8-byte fields).
  std::vector<void *> packed;
  for (MemRef *memref : arguments) {
    packed.insert(packed.end(),
                  {&memref->allocated, &memref->aligned, &memref->offset});
    for (int64_t &size : memref->sizes)
      packed.push_back(&size);
    for (int64_t &stride : memref->strides)
      packed.push_back(&stride);
  }
  size_t resultWords = 0;
  for (const MemRef *memref : results)
    resultWords += 3 + 2 * memref->sizes.size();
  std::vector<int64_t> storage(std::max<size_t>(resultWords, 1));
  packed.push_back(storage.data());
  function(packed.data());
  int64_t *field = storage.data();
  for (MemRef *memref : results) {
    memref->allocated = reinterpret_cast<void *>(field[0]);
    memref->aligned = reinterpret_cast<void *>(field[1]);
    memref->offset = field[2];
    size_t rank = memref->sizes.size();
    memref->sizes.assign(field + 3, field + 3 + rank);
    memref->strides.assign(field + 3 + rank, field + 3 + 2 * rank);
    field += 3 + 2 * rank;
  }
}

void ckpt::runtime::releaseResults(const std::vector<MemRef *> &results) {
  std::vector<void *> freed;
  for (const MemRef *memref : results)
    if (std::find(freed.begin(), freed.end(), memref->allocated) ==
        freed.end()) {
      freed.push_back(memref->allocated);
      deallocate(memref->allocated);
    }
}

int ckpt::runtime::runStep(const StepSpec &spec, PackedFunction step,
                           PackedFunction forward, const RunOptions &options,
                           const std::string &program) {
  programName = program;
  const std::string &name = spec.name;
  bool onGpu = spec.onGpu;
  setCpuThreads(options.cpuThreads);
  // Steps repeat the same allocations: freed blocks stay with the process
  // for the next step instead of going back to the kernel, whose fresh
  // pages then fault in again (a tenth of a U-Net step). The counts are of
  // the bytes requested either way.
  mallopt(M_MMAP_THRESHOLD, std::numeric_limits<int>::max());
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  if (options.checkGradients > 0 && onGpu)
    return fail("--check-gradients runs on the CPU only; drop --device=cuda");
  auto isHalf = [](const TensorSpec &t) {
    return t.element == Element::F16 || t.element == Element::BF16;
  };
  if (options.checkGradients > 0 &&
      (std::any_of(spec.arguments.begin(), spec.arguments.end(),
                   [&](const ArgumentSpec &arg) {
                     return arg.parameter && isHalf(arg.tensor);
                   }) ||
       (!spec.results.empty() && isHalf(spec.results.front().tensor))))
    return fail(
        "--check-gradients needs f32 or f64 parameters and loss (16-bit "
        "finite differences measure rounding); compare a 16-bit step "
        "with --reference, e.g. an f64 run's gradients");
  if (options.poisonAllocations && onGpu)
    return fail("--poison-allocations runs on the CPU only (the step's "
                "blocks are device memory); use --device=cpu-gpu-loops");
  poisonAllocations = options.poisonAllocations;
  if (onGpu)
    setMemoryBackend(getCudaMemory());

  std::vector<Buffer> inputs, results;
  for (const ArgumentSpec &arg : spec.arguments)
    inputs.emplace_back(&arg.tensor);
  for (const ResultSpec &result : spec.results)
    results.emplace_back(&result.tensor);
  size_t forwardResults = spec.forwardResults;
  std::vector<unsigned> paramArgs;
  for (size_t i = 0; i < spec.arguments.size(); ++i)
    if (spec.arguments[i].parameter)
      paramArgs.push_back(i);
  auto isGradient = [&](size_t index) {
    return spec.trainingStep && index >= forwardResults &&
           index < forwardResults + paramArgs.size();
  };

  // Every exit from here on, an error included, gives back what the run
  // holds: host blocks, device copies of the inputs, and the results of
  // the last run of the step.
  std::vector<void *> hostBlocks, deviceInputs;
  std::vector<Buffer> heldResults;
  auto releaseHeld = [&] {
    releaseResults(pointers(heldResults));
    heldResults.clear();
  };
  struct ReleaseAll {
    std::function<void()> run;
    ~ReleaseAll() { run(); }
  } releaseAll{[&] {
    releaseHeld();
    for (void *block : deviceInputs)
      getCudaMemory().release(block);
    for (void *block : hostBlocks)
      std::free(block);
  }};

  // Inputs live in plain aligned memory: the simulator counts arguments as
  // live throughout, and so does the measured peak.
  uint64_t inputBytes = 0;
  for (size_t index = 0; index < inputs.size(); ++index) {
    Buffer &buffer = inputs[index];
    if (!buffer.allocateOnHost())
      return fail("cannot allocate " + formatBytes(buffer.tensor->bytes()) +
                  " for argument " + std::to_string(index) + " of '" + name +
                  "'");
    hostBlocks.push_back(buffer.allocated);
    static_cast<MemRef &>(buffer) =
        makeDenseMemRef(buffer.allocated, buffer.tensor->shape);
    if (spec.arguments[index].randomState) {
      reinterpret_cast<int64_t *>(buffer.data())[0] = options.seed;
      reinterpret_cast<int64_t *>(buffer.data())[1] = options.rngBase;
    } else {
      fill(buffer, PhiloxStream(options.seed, index),
           spec.arguments[index].indexBound);
    }
    inputBytes += buffer.tensor->bytes();
  }

  auto loadInput = [&](unsigned index, const std::string &path) -> bool {
    Buffer &buffer = inputs[index];
    NpyArray array;
    std::string error;
    if (!readNpy(path, array, error))
      return fail(error), false;
    if (spec.arguments[index].randomState)
      return fail("argument " + std::to_string(index) +
                  " is the random state, which --seed and --rng-base set; it "
                  "is not loaded from '" +
                  path + "'"),
             false;
    std::string expected = buffer.tensor->npyDtype();
    if (array.dtype != expected || array.shape != buffer.tensor->shape) {
      std::string shape;
      for (int64_t size : array.shape)
        shape += std::to_string(size) + ",";
      return fail("'" + path + "' holds " + array.dtype + " of shape (" +
                  shape + ") but argument " + std::to_string(index) + " is " +
                  buffer.tensor->typeName() + " (dtype " + expected + ")"),
             false;
    }
    // An empty array has no data to copy (and memcpy no null source).
    if (buffer.tensor->bytes() > 0)
      std::memcpy(buffer.data(), array.data.data(), buffer.tensor->bytes());
    return true;
  };
  if (!options.inputDir.empty()) {
    namespace fs = std::filesystem;
    std::error_code error;
    if (!fs::is_directory(options.inputDir, error))
      return fail("--inputs: '" + options.inputDir + "' is not a directory");
    unsigned loaded = 0;
    for (unsigned index = 0; index < inputs.size(); ++index) {
      std::string path = (fs::path(options.inputDir) /
                          ("arg" + std::to_string(index) + ".npy"))
                             .string();
      if (!fs::exists(path, error))
        continue;
      if (!loadInput(index, path))
        return 1;
      ++loaded;
    }
    if (loaded == 0)
      return fail("--inputs: '" + options.inputDir +
                  "' holds no argN.npy for any of the " +
                  std::to_string(inputs.size()) + " arguments of '" + name +
                  "'");
  }
  for (const std::string &input : options.inputFiles) {
    size_t equals = input.find('=');
    std::string indexText = input.substr(0, equals);
    std::string path =
        equals == std::string::npos ? std::string() : input.substr(equals + 1);
    char *end = nullptr;
    unsigned long index = std::strtoul(indexText.c_str(), &end, 10);
    if (indexText.empty() || *end || path.empty() || index >= inputs.size())
      return fail("--input expects N=PATH with N an argument number below " +
                  std::to_string(inputs.size()) + ", got '" + input + "'");
    if (!loadInput(index, path))
      return 1;
  }

  // On the GPU the step reads device copies of the inputs (not counted in
  // the heap, like the host inputs on the CPU).
  if (onGpu)
    for (Buffer &buffer : inputs) {
      void *copy = getCudaMemory().allocate(buffer.tensor->bytes());
      deviceInputs.push_back(copy);
      copyToDevice(copy, buffer.data(), buffer.tensor->bytes());
      buffer.allocated = buffer.aligned = copy;
      buffer.offset = 0;
    }

  std::vector<MemRef *> arguments = pointers(inputs);
  /// Runs `function` on the inputs and reads the descriptors of its results
  /// into `outputs`.
  auto invoke = [&](PackedFunction function, std::vector<Buffer> &outputs) {
    std::vector<MemRef *> results = pointers(outputs);
    callPacked(function, arguments, results);
  };
  /// Runs the step into `results`, which `releaseAll` then owns.
  auto runOnce = [&] {
    invoke(step, results);
    heldResults = results;
  };

  for (unsigned i = 0; i < options.warmup; ++i) {
    runOnce();
    releaseHeld();
  }
  unsigned runs = std::max(1u, options.repeat);
  double totalSeconds = 0, bestSeconds = INFINITY;
  uint64_t peakAllocated = 0;
  for (unsigned i = 0; i < runs; ++i) {
    resetPeak();
    auto start = std::chrono::steady_clock::now();
    if (onGpu)
      startGpuTimer();
    runOnce();
    // GPU time between events; on the CPU, wall time.
    double seconds = onGpu ? 1e-3 * stopGpuTimer()
                           : std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - start)
                                 .count();
    totalSeconds += seconds;
    bestSeconds = std::min(bestSeconds, seconds);
    peakAllocated = getAllocationStats().peakBytes;
    if (i + 1 < runs)
      releaseHeld();
  }
  // The same run without the gradients (and next random state) a training
  // step returns, as if they had existed before it: PyTorch's accounting
  // when .grad buffers persist across steps. The forward's results stay.
  std::vector<void *> returnedFromBackward;
  if (spec.trainingStep)
    for (size_t i = forwardResults; i < results.size(); ++i)
      returnedFromBackward.push_back(results[i].allocated);
  uint64_t peakWithoutGradients = getPeakExcluding(returnedFromBackward);
  // What follows reads the results on the host.
  if (onGpu) {
    for (size_t i = 0; i < results.size(); ++i) {
      Buffer &buffer = results[i];
      if (!buffer.allocateOnHost())
        return fail("cannot allocate " + formatBytes(buffer.tensor->bytes()) +
                    " on the host for a result of '" + name + "'");
      hostBlocks.push_back(buffer.allocated);
      copyToHost(buffer.data(), heldResults[i].data(), buffer.tensor->bytes());
    }
  }

  std::printf("function: @%s\n", name.c_str());
  // What --reference compared: per tensor its squared differences and
  // squared reference values.
  struct Compared {
    std::string label;
    double difference, norm;
  };
  std::vector<Compared> comparedGradients, comparedResults;
  // Written at the end, once nothing can fail: never some files of a run.
  std::vector<std::pair<std::string, const Buffer *>> outputs;
  for (size_t index = 0; index < results.size(); ++index) {
    const Buffer &buffer = results[index];
    if (spec.results[index].randomState) {
      const int64_t *state = reinterpret_cast<const int64_t *>(buffer.data());
      std::printf("next random state: seed %lld, base counter %lld\n",
                  static_cast<long long>(state[0]),
                  static_cast<long long>(state[1]));
      continue;
    }
    double sum = 0, sumSquares = 0;
    for (size_t i = 0, e = buffer.tensor->count(); i < e; ++i) {
      double value = buffer.at(i);
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
    } else {
      label = (spec.trainingStep ? "forward result " : "result ") +
              std::to_string(index);
      file = "result" + std::to_string(index) + ".npy";
    }
    if (spec.trainingStep && index == 0 && buffer.tensor->shape.empty())
      std::printf("loss: %.9g\n", sum);
    else
      std::printf("%s: sum %.9g, l2 %.9g\n", label.c_str(), sum,
                  std::sqrt(sumSquares));
    // Every gradient has a reference; the forward's results are compared
    // where the reference has them.
    std::string referencePath =
        (std::filesystem::path(options.referenceDir) / file).string();
    std::error_code exists;
    if (!options.referenceDir.empty() && !file.empty() &&
        (isGradient(index) || std::filesystem::exists(referencePath, exists))) {
      NpyArray reference;
      std::string error;
      if (!readNpy(referencePath, reference, error))
        return fail(error);
      if (reference.shape != buffer.tensor->shape ||
          !isFloatDtype(reference.dtype))
        return fail("'" + referencePath +
                    "' does not hold a float array of the shape of " + label);
      double difference = 0, norm = 0;
      for (size_t i = 0, e = buffer.tensor->count(); i < e; ++i) {
        double expected = npyFloat(reference, i);
        double delta = buffer.at(i) - expected;
        difference += delta * delta;
        norm += expected * expected;
      }
      (isGradient(index) ? comparedGradients : comparedResults)
          .push_back({label, difference, norm});
    }
    if (!options.outDir.empty() && !file.empty())
      outputs.push_back({file, &buffer});
  }
  /// Prints one measured-versus-simulated line; returns the relative
  /// difference.
  auto comparePeak = [&](const char *label, uint64_t heap, uint64_t simulated) {
    uint64_t measured = inputBytes + heap;
    double difference = (static_cast<double>(measured) - simulated) /
                        std::max<double>(simulated, 1);
    std::printf("%s: measured %llu (inputs %llu + heap %llu), simulated %llu "
                "(%+.2f%%)\n",
                label, static_cast<unsigned long long>(measured),
                static_cast<unsigned long long>(inputBytes),
                static_cast<unsigned long long>(heap),
                static_cast<unsigned long long>(simulated), 100 * difference);
    return difference;
  };
  double difference =
      comparePeak("peak bytes", peakAllocated, spec.simulatedPeak);
  if (spec.trainingStep)
    difference = std::max(
        difference,
        comparePeak("peak bytes without returned gradients",
                    peakWithoutGradients, spec.simulatedPeakWithoutGradients),
        [](double a, double b) { return std::abs(a) < std::abs(b); });
  std::printf("step time: %.3f ms mean, %.3f ms best of %u\n",
              1e3 * totalSeconds / runs, 1e3 * bestSeconds, runs);

  int status = 0;
  if (!options.referenceDir.empty()) {
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
    double gradients = relative(difference, norm), worstResult = 0;
    for (const Compared &result : comparedResults)
      worstResult =
          std::max(worstResult, relative(result.difference, result.norm));
    bool agrees = gradients <= options.referenceTolerance &&
                  worstResult <= options.referenceTolerance;
    std::printf("reference: %s (gradients: relative L2 difference %.3g over "
                "all %zu",
                agrees ? "agrees" : "DIFFERS", gradients,
                comparedGradients.size());
    if (!comparedResults.empty())
      std::printf("; forward results: worst relative L2 difference %.3g of "
                  "%zu",
                  worstResult, comparedResults.size());
    std::printf("; tolerance %.3g)\n", options.referenceTolerance);
    // The gradients that make most of the difference, largest first.
    std::vector<const Compared *> largest;
    for (const Compared &gradient : comparedGradients)
      if (gradient.difference > 0)
        largest.push_back(&gradient);
    std::stable_sort(largest.begin(), largest.end(),
                     [](const Compared *a, const Compared *b) {
                       return a->difference > b->difference;
                     });
    for (size_t i = 0; i < std::min<size_t>(largest.size(), 3); ++i)
      std::printf("  %s: %.1f%% of the squared difference, relative L2 "
                  "difference %.3g of its own\n",
                  largest[i]->label.c_str(),
                  100 * largest[i]->difference / difference,
                  relative(largest[i]->difference, largest[i]->norm));
    if (!agrees)
      status = 1;
  }
  if (options.checkPeak > 0 && std::abs(difference) > options.checkPeak) {
    fail("measured and simulated peaks differ by " +
         formatNumber("%.2f", 100 * std::abs(difference)) + "%, more than " +
         formatNumber("%.2f", 100 * options.checkPeak) + "%");
    status = 1;
  }
  if (options.checkGradients > 0) {
    if (!spec.trainingStep || !forward)
      return fail("--check-gradients needs a training step whose forward "
                  "function is in the file (ckpt-autodiff keeps it by "
                  "default)");
    double worst = 0;
    for (unsigned k = 0; k < options.checkGradients; ++k) {
      // A random direction v over all parameters; the step's gradients give
      // the directional derivative exactly, central differences of the
      // forward loss approximately.
      std::vector<std::vector<double>> direction, original;
      double analytic = 0, scale = 0;
      for (size_t p = 0; p < paramArgs.size(); ++p) {
        unsigned arg = paramArgs[p];
        PhiloxStream stream(options.seed + 1 + k, arg);
        const Buffer &grad = results[forwardResults + p];
        std::vector<double> &v = direction.emplace_back();
        std::vector<double> &x = original.emplace_back();
        for (size_t i = 0, e = grad.tensor->count(); i < e; ++i) {
          v.push_back(2.0 * stream.uniform(i) - 1.0);
          x.push_back(inputs[arg].at(i));
          analytic += grad.at(i) * v.back();
          scale = std::max(scale, std::abs(inputs[arg].at(i)));
        }
      }
      // Fourth-order central differences with a step of the cube root of
      // the machine epsilon of the least precise parameter or loss: small
      // enough for steep losses (saturated softmax), large enough that
      // rounding stays far below the tolerance.
      bool f64 =
          results.front().tensor->element == Element::F64 &&
          std::all_of(paramArgs.begin(), paramArgs.end(), [&](unsigned arg) {
            return inputs[arg].tensor->element == Element::F64;
          });
      double step =
          std::cbrt(f64 ? 2.220446e-16 : 1.192093e-07) * std::max(scale, 1.0);
      auto moveParameters = [&](double t) {
        for (size_t p = 0; p < paramArgs.size(); ++p)
          for (size_t i = 0; i < direction[p].size(); ++i)
            inputs[paramArgs[p]].set(i, original[p][i] + t * direction[p][i]);
      };
      auto lossAt = [&](double t) {
        moveParameters(t);
        // The forward returns the loss and its other results.
        std::vector<Buffer> forwardOutputs(results.begin(),
                                           results.begin() + forwardResults);
        invoke(forward, forwardOutputs);
        double value = forwardOutputs.front().at(0);
        releaseResults(pointers(forwardOutputs));
        return value;
      };
      double at[4];
      const double offsets[4] = {step, -step, 2 * step, -2 * step};
      for (int j = 0; j < 4; ++j)
        at[j] = lossAt(offsets[j]);
      moveParameters(0.0); // restores the parameters exactly
      double numeric = (8 * (at[0] - at[1]) - (at[2] - at[3])) / (12 * step);
      double error = std::abs(numeric - analytic) /
                     std::max({std::abs(numeric), std::abs(analytic), 1e-30});
      worst = std::max(worst, error);
      std::printf("gradient check %u: directional derivative %.12g, finite "
                  "difference %.12g, relative error %.3g\n",
                  k, analytic, numeric, error);
    }
    bool passed = worst <= options.tolerance;
    std::printf("gradient check: %s (worst relative error %.3g, tolerance "
                "%.3g)\n",
                passed ? "passed" : "FAILED", worst, options.tolerance);
    if (!passed)
      status = 1;
  }
  // A verdict (reference, peak or gradient check) that fails still leaves
  // complete results to inspect.
  if (!outputs.empty() && writeOutputs(options.outDir, outputs) != 0)
    return 1;
  std::fflush(stdout);
  return status;
}

//===----------------------------------------------------------------------===//
// A compiled step's command line
//===----------------------------------------------------------------------===//

std::optional<int> ckpt::runtime::parseRunOptions(int argc, char **argv,
                                                  const std::string &overview,
                                                  RunOptions &options) {
  struct Option {
    const char *name;
    const char *help;
    std::function<bool(const std::string &)> set;
  };
  auto number = [](auto &field) {
    return [&field](const std::string &text) {
      std::istringstream is(text);
      using Field = std::remove_reference_t<decltype(field)>;
      // Counts are unsigned: a sign is an error, not a wrapped value.
      if (std::is_unsigned_v<Field> && text.find('-') != std::string::npos)
        return false;
      Field value;
      if (!(is >> value) || !is.eof())
        return false;
      field = value;
      return true;
    };
  };
  auto text = [](std::string &field) {
    return [&field](const std::string &value) {
      field = value;
      return true;
    };
  };
  const Option table[] = {
      {"seed", help::seed, number(options.seed)},
      {"rng-base", help::rngBase, number(options.rngBase)},
      {"repeat", help::repeat, number(options.repeat)},
      {"warmup", help::warmup, number(options.warmup)},
      {"cpu-threads", help::cpuThreads, number(options.cpuThreads)},
      {"check-gradients", help::checkGradients, number(options.checkGradients)},
      {"tolerance", help::tolerance, number(options.tolerance)},
      {"check-peak", help::checkPeak, number(options.checkPeak)},
      {"poison-allocations", help::poisonAllocations,
       number(options.poisonAllocations)},
      {"input", help::input,
       [&](const std::string &value) {
         options.inputFiles.push_back(value);
         return true;
       }},
      {"inputs", help::inputs, text(options.inputDir)},
      {"reference", help::reference, text(options.referenceDir)},
      {"reference-tolerance", help::referenceTolerance,
       number(options.referenceTolerance)},
      {"out", help::out, text(options.outDir)},
  };
  programName = std::filesystem::path(argv[0]).filename().string();
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string name = arg.substr(arg.find_first_not_of('-'));
    if (arg[0] != '-' || name.empty())
      return fail("unexpected argument '" + arg + "' (see --help)");
    if (name == "help") {
      std::printf("OVERVIEW: %s\n\nUSAGE: %s [options]\n\nOPTIONS:\n",
                  overview.c_str(), programName.c_str());
      for (const Option &option : table)
        std::printf("  --%-20s - %s\n", option.name, option.help);
      return 0;
    }
    std::optional<std::string> value;
    if (size_t equals = name.find('='); equals != std::string::npos) {
      value = name.substr(equals + 1);
      name = name.substr(0, equals);
    }
    const Option *option =
        std::find_if(std::begin(table), std::end(table),
                     [&](const Option &o) { return name == o.name; });
    if (option == std::end(table))
      return fail("unknown option '" + arg + "' (see --help)");
    if (!value) {
      if (i + 1 == argc)
        return fail("--" + name + " needs a value");
      value = argv[++i];
    }
    if (!option->set(*value))
      return fail("--" + name + ": invalid value '" + *value + "'");
  }
  return std::nullopt;
}
