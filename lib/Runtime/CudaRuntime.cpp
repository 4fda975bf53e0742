//===- CudaRuntime.cpp - the CUDA driver for steps lowered to the GPU -----===//
//
// The driver API is reached through function pointers that dlsym finds in
// libcuda.so.1, with the driver's own types declared here (handles are
// pointers, CUresult an int), so this builds without the CUDA toolkit and
// programs linking it start on machines without a driver.
//
// A step's work is queued on one stream and the host waits for it once: at
// the end of a timed run, or before a copy. Kernels, cuBLAS products and
// copies are ordered by the stream, and device memory comes from a pool
// (BlockPool.h) whose reuse is in the same order.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/CudaRuntime.h"
#include "ckpt/Runtime/BlockPool.h"
#include "ckpt/Runtime/Gemm.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <iterator>
#include <type_traits>

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = uint64_t;
using Handle = void *; // CUcontext, CUmodule, CUfunction, CUstream, CUevent

constexpr CUresult kOutOfMemory = 2; // CUDA_ERROR_OUT_OF_MEMORY

/// The driver functions used, with their exported (versioned) names.
struct Driver {
  CUresult (*init)(unsigned);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*deviceGetName)(char *, int, CUdevice);
  CUresult (*deviceGetAttribute)(int *, int, CUdevice);
  CUresult (*primaryCtxRetain)(Handle *, CUdevice);
  CUresult (*ctxSetCurrent)(Handle);
  CUresult (*getErrorName)(CUresult, const char **);
  CUresult (*getErrorString)(CUresult, const char **);
  CUresult (*moduleLoadData)(Handle *, const void *);
  CUresult (*moduleUnload)(Handle);
  CUresult (*moduleGetFunction)(Handle *, Handle, const char *);
  CUresult (*launchKernel)(Handle, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, Handle, void **,
                           void **);
  CUresult (*streamCreate)(Handle *, unsigned);
  CUresult (*streamSynchronize)(Handle);
  CUresult (*memAlloc)(CUdeviceptr *, size_t);
  CUresult (*memFree)(CUdeviceptr);
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*memcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*eventCreate)(Handle *, unsigned);
  CUresult (*eventRecord)(Handle, Handle);
  CUresult (*eventSynchronize)(Handle);
  CUresult (*eventElapsedTime)(float *, Handle, Handle);
};

/// The cuBLAS functions used, loaded on the first GEMM.
struct Cublas {
  int (*create)(Handle *);
  int (*setStream)(Handle, Handle);
  /// cublasGemmStridedBatchedEx: every element type through one entry.
  int (*gemm)(Handle, int, int, int, int, int, const void *, const void *, int,
              int, long long, const void *, int, int, long long, const void *,
              void *, int, int, long long, int, int, int);
  Handle handle = nullptr;
};
Cublas cublas;

Driver driver;
CUdevice device;
/// The stream every launch, product and timer event of a step is queued
/// on. Blocking (flags 0), so the synchronous copies, which run on the
/// legacy default stream, also wait for it.
Handle stream;
Handle timerStart, timerStop;

std::string describe(CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (driver.getErrorName)
    driver.getErrorName(result, &name);
  if (driver.getErrorString)
    driver.getErrorString(result, &text);
  std::string message = "CUDA error " + std::to_string(result);
  if (name)
    message += std::string(" ") + name;
  if (text)
    message += std::string(" (") + text + ")";
  return message;
}

/// Ends the process on a failed call from lowered code or a copy.
void check(CUresult result, const char *call) {
  if (result == 0)
    return;
  std::fprintf(stderr, "ckpt-run: error: %s failed: %s\n", call,
               describe(result).c_str());
  std::exit(1);
}

template <typename Function>
bool bind(void *library, const char *symbol, Function &function,
          std::string &error) {
  function = reinterpret_cast<Function>(dlsym(library, symbol));
  if (!function)
    error = std::string("the CUDA driver has no ") + symbol;
  return function != nullptr;
}

} // namespace

// The mgpu* functions, with the signatures gpu-to-llvm's calls have, under
// their own names: a step compiled ahead of time links them by name.
extern "C" {

void *mgpuModuleLoad(void *data, size_t) {
  Handle module = nullptr;
  check(driver.moduleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

void mgpuModuleUnload(void *module) {
  check(driver.moduleUnload(module), "cuModuleUnload");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  Handle function = nullptr;
  check(driver.moduleGetFunction(&function, module, name),
        "cuModuleGetFunction");
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes, void *stream,
                      void **params, void **extra, size_t) {
  check(driver.launchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                            blockZ, sharedBytes, stream, params, extra),
        "cuLaunchKernel");
}

// A launch that is synchronous in MLIR's GPU dialect translates to create,
// launch, synchronise and destroy a stream. Here every launch goes to the
// step's one stream and the host does not wait: nothing in a step's host
// code reads device memory, and what reads it later (a copy, the timer)
// waits for the stream first.
void *mgpuStreamCreate() { return stream; }

void mgpuStreamDestroy(void *) {}

void mgpuStreamSynchronize(void *) {}

} // extern "C"

namespace {

/// Loads cuBLAS and makes its handle, or ends the process saying why.
void openCublas() {
  if (cublas.handle)
    return;
  void *library = nullptr;
  std::vector<std::string> candidates = ckpt::runtime::getCublasCandidates();
  for (const std::string &name : candidates)
    if ((library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)))
      break;
  std::string error;
  if (!library) {
    error = "cannot load cuBLAS; tried";
    for (const std::string &name : candidates)
      error += " " + name;
    error += " (add its folder to LD_LIBRARY_PATH, or set CUDA_HOME)";
  } else if (bind(library, "cublasCreate_v2", cublas.create, error) &&
             bind(library, "cublasSetStream_v2", cublas.setStream, error) &&
             bind(library, "cublasGemmStridedBatchedEx", cublas.gemm, error)) {
    if (cublas.create(&cublas.handle) != 0)
      error = "cublasCreate failed";
    else if (cublas.setStream(cublas.handle, stream) != 0)
      error = "cublasSetStream failed";
  }
  if (!error.empty()) {
    std::fprintf(stderr, "ckpt-run: error: %s\n", error.c_str());
    std::exit(1);
  }
}

/// cuBLAS's data types (cudaDataType) of an element type.
constexpr int kCudaF32 = 0, kCudaF64 = 1, kCudaF16 = 2, kCudaBF16 = 14;
template <typename T> constexpr int kCudaType = kCudaF32;
template <> constexpr int kCudaType<double> = kCudaF64;
template <> constexpr int kCudaType<ckpt::runtime::Half> = kCudaF16;
template <> constexpr int kCudaType<ckpt::runtime::BFloat16> = kCudaBF16;

/// ckptGemm* (Gemm.h) on cuBLAS, computing in C's type (f32 for 16-bit A
/// and B, CUBLAS_COMPUTE_32F; f64 in CUBLAS_COMPUTE_64F). Row-major C =
/// op(A) op(B) is column-major C^T = op(B)^T op(A)^T: cuBLAS multiplies B's
/// and A's memory as they are.
template <typename T>
void cublasGemm(int64_t, void *a, int64_t, void *b, int64_t, void *c,
                int64_t batch, int64_t m, int64_t n, int64_t k, int64_t strideA,
                int64_t strideB, int64_t transposedA, int64_t transposedB) {
  using Result = typename ckpt::runtime::GemmResult<T>::type;
  openCublas();
  // CUBLAS_OP_T : CUBLAS_OP_N
  int operationA = transposedA ? 1 : 0, operationB = transposedB ? 1 : 0;
  int lda = transposedA ? m : k, ldb = transposedB ? k : n;
  constexpr int kComputeF32 = 68, kComputeF64 = 70, kDefaultAlgorithm = -1;
  Result one = 1;
  int status = cublas.gemm(
      cublas.handle, operationB, operationA, n, m, k, &one,
      ckpt::runtime::getMemRefData<T>(b), kCudaType<T>, ldb, strideB,
      ckpt::runtime::getMemRefData<T>(a), kCudaType<T>, lda, strideA, &one,
      ckpt::runtime::getMemRefData<Result>(c), kCudaType<Result>, n, m * n,
      batch, std::is_same_v<Result, double> ? kComputeF64 : kComputeF32,
      kDefaultAlgorithm);
  if (status != 0) {
    std::fprintf(stderr, "ckpt-run: error: cuBLAS GEMM failed: status %d\n",
                 status);
    std::exit(1);
  }
}

} // namespace

// The GPU's ckptGemm*: the step's module names them so on the GPU
// (ckpt::runtime::getStepSymbols), apart from the CPU's.
extern "C" {

CKPT_DEFINE_GEMM_ENTRY(ckptCudaGemmF32, cublasGemm, float)
CKPT_DEFINE_GEMM_ENTRY(ckptCudaGemmF64, cublasGemm, double)
CKPT_DEFINE_GEMM_ENTRY(ckptCudaGemmF16, cublasGemm, ckpt::runtime::Half)
CKPT_DEFINE_GEMM_ENTRY(ckptCudaGemmBF16, cublasGemm, ckpt::runtime::BFloat16)

} // extern "C"

namespace ckpt::runtime {

std::vector<std::string> getCublasCandidates() {
  const char *names[] = {"libcublas.so", "libcublas.so.13", "libcublas.so.12",
                         "libcublas.so.11"};
  std::vector<std::string> candidates(std::begin(names), std::end(names));
  std::vector<std::string> toolkits;
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *folder = std::getenv(variable); folder && *folder)
      toolkits.push_back(folder);
  toolkits.push_back("/usr/local/cuda");
  for (const std::string &toolkit : toolkits)
    for (const char *name : names)
      candidates.push_back(toolkit + "/lib64/" + name);
  return candidates;
}

bool openCudaDevice(int ordinal, std::string &error) {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    error = "cannot load the CUDA driver (libcuda.so.1): no NVIDIA driver "
            "is installed on this machine";
    return false;
  }
  if (!bind(library, "cuInit", driver.init, error) ||
      !bind(library, "cuGetErrorName", driver.getErrorName, error) ||
      !bind(library, "cuGetErrorString", driver.getErrorString, error) ||
      !bind(library, "cuDeviceGet", driver.deviceGet, error) ||
      !bind(library, "cuDeviceGetName", driver.deviceGetName, error) ||
      !bind(library, "cuDeviceGetAttribute", driver.deviceGetAttribute,
            error) ||
      !bind(library, "cuDevicePrimaryCtxRetain", driver.primaryCtxRetain,
            error) ||
      !bind(library, "cuCtxSetCurrent", driver.ctxSetCurrent, error) ||
      !bind(library, "cuModuleLoadData", driver.moduleLoadData, error) ||
      !bind(library, "cuModuleUnload", driver.moduleUnload, error) ||
      !bind(library, "cuModuleGetFunction", driver.moduleGetFunction, error) ||
      !bind(library, "cuLaunchKernel", driver.launchKernel, error) ||
      !bind(library, "cuStreamCreate", driver.streamCreate, error) ||
      !bind(library, "cuStreamSynchronize", driver.streamSynchronize, error) ||
      !bind(library, "cuMemAlloc_v2", driver.memAlloc, error) ||
      !bind(library, "cuMemFree_v2", driver.memFree, error) ||
      !bind(library, "cuMemcpyHtoD_v2", driver.memcpyHtoD, error) ||
      !bind(library, "cuMemcpyDtoH_v2", driver.memcpyDtoH, error) ||
      !bind(library, "cuEventCreate", driver.eventCreate, error) ||
      !bind(library, "cuEventRecord", driver.eventRecord, error) ||
      !bind(library, "cuEventSynchronize", driver.eventSynchronize, error) ||
      !bind(library, "cuEventElapsedTime", driver.eventElapsedTime, error))
    return false;
  Handle context = nullptr;
  CUresult result = driver.init(0);
  if (result == 0)
    result = driver.deviceGet(&device, ordinal);
  if (result == 0)
    result = driver.primaryCtxRetain(&context, device);
  if (result == 0)
    result = driver.ctxSetCurrent(context);
  if (result == 0)
    result = driver.streamCreate(&stream, 0);
  if (result == 0)
    result = driver.eventCreate(&timerStart, 0);
  if (result == 0)
    result = driver.eventCreate(&timerStop, 0);
  if (result != 0) {
    error =
        "cannot use GPU " + std::to_string(ordinal) + ": " + describe(result);
    return false;
  }
  return true;
}

std::string getCudaDeviceName() {
  char name[256] = {0};
  check(driver.deviceGetName(name, sizeof(name) - 1, device),
        "cuDeviceGetName");
  return name;
}

std::string getCudaDeviceChip() {
  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR and _MINOR.
  int major = 0, minor = 0;
  check(driver.deviceGetAttribute(&major, 75, device), "cuDeviceGetAttribute");
  check(driver.deviceGetAttribute(&minor, 76, device), "cuDeviceGetAttribute");
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

MemoryBackend getCudaMemory() {
  // Never destroyed: at exit the driver takes back the context's memory.
  static BlockPool *pool = new BlockPool(getCudaDriverMemory());
  return {[](size_t size) { return pool->allocate(size); },
          [](void *pointer) { pool->release(pointer); }};
}

MemoryBackend getCudaDriverMemory() {
  return {[](size_t size) -> void * {
            CUdeviceptr pointer = 0;
            CUresult result = driver.memAlloc(&pointer, size ? size : 1);
            // Out of memory is the step's to report, with its byte count
            // (ckptAllocate, the driver's buffers); other errors end here.
            if (result == kOutOfMemory)
              return nullptr;
            check(result, "cuMemAlloc");
            return reinterpret_cast<void *>(pointer);
          },
          [](void *pointer) {
            // Work queued earlier may still use the block.
            check(driver.streamSynchronize(stream), "cuStreamSynchronize");
            check(driver.memFree(reinterpret_cast<CUdeviceptr>(pointer)),
                  "cuMemFree");
          }};
}

void copyToDevice(void *device, const void *host, size_t bytes) {
  check(driver.streamSynchronize(stream), "cuStreamSynchronize");
  check(driver.memcpyHtoD(reinterpret_cast<CUdeviceptr>(device), host, bytes),
        "cuMemcpyHtoD");
}

void copyToHost(void *host, const void *device, size_t bytes) {
  check(driver.streamSynchronize(stream), "cuStreamSynchronize");
  check(driver.memcpyDtoH(host, reinterpret_cast<CUdeviceptr>(device), bytes),
        "cuMemcpyDtoH");
}

void startGpuTimer() {
  check(driver.eventRecord(timerStart, stream), "cuEventRecord");
}

double stopGpuTimer() {
  check(driver.eventRecord(timerStop, stream), "cuEventRecord");
  check(driver.eventSynchronize(timerStop), "cuEventSynchronize");
  float milliseconds = 0;
  check(driver.eventElapsedTime(&milliseconds, timerStart, timerStop),
        "cuEventElapsedTime");
  return milliseconds;
}

std::vector<std::pair<const char *, void *>> getCudaRuntimeSymbols() {
  return {
      {"mgpuModuleLoad", reinterpret_cast<void *>(&mgpuModuleLoad)},
      {"mgpuModuleUnload", reinterpret_cast<void *>(&mgpuModuleUnload)},
      {"mgpuModuleGetFunction",
       reinterpret_cast<void *>(&mgpuModuleGetFunction)},
      {"mgpuLaunchKernel", reinterpret_cast<void *>(&mgpuLaunchKernel)},
      {"mgpuStreamCreate", reinterpret_cast<void *>(&mgpuStreamCreate)},
      {"mgpuStreamDestroy", reinterpret_cast<void *>(&mgpuStreamDestroy)},
      {"mgpuStreamSynchronize",
       reinterpret_cast<void *>(&mgpuStreamSynchronize)},
      {"ckptCudaGemmF32", reinterpret_cast<void *>(&ckptCudaGemmF32)},
      {"ckptCudaGemmF64", reinterpret_cast<void *>(&ckptCudaGemmF64)},
      {"ckptCudaGemmF16", reinterpret_cast<void *>(&ckptCudaGemmF16)},
      {"ckptCudaGemmBF16", reinterpret_cast<void *>(&ckptCudaGemmBF16)},
  };
}

} // namespace ckpt::runtime
