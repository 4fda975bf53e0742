//===- CudaRuntime.h - the CUDA driver for steps lowered to the GPU -------===//
//
// What a step lowered by ckpt-lower-to-nvvm needs at run time: the mgpu*
// functions its host code calls to load the kernels' binary and launch
// them, device memory (through the counting allocator, so the peak device
// bytes are measured), copies, and event timing. The driver library
// (libcuda.so.1) is loaded when `openCudaDevice` runs, not linked: programs
// start and run on the CPU without it, and a GPU run without a driver or a
// device fails with a message.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_RUNTIME_CUDARUNTIME_H
#define CKPT_RUNTIME_CUDARUNTIME_H

#include "ckpt/Runtime/CountingAllocator.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ckpt::runtime {

/// Loads the driver, initialises it and makes the primary context of GPU
/// `ordinal` current. On failure returns false and says why in `error`
/// (no driver library, no device, ...).
bool openCudaDevice(int ordinal, std::string &error);

/// The name of the device `openCudaDevice` opened, and its architecture as
/// NVVM names it (sm_90 for compute capability 9.0).
std::string getCudaDeviceName();
std::string getCudaDeviceChip();

/// Device memory for the counting allocator (setMemoryBackend): blocks from
/// a pool (BlockPool.h) over the driver's, so steps after the first take
/// none from the driver. Out of device memory, with the pool's cache given
/// back, gives a null block, which the step reports with its size.
MemoryBackend getCudaMemory();
/// The driver's own cuMemAlloc and cuMemFree, under the pool.
MemoryBackend getCudaDriverMemory();

/// Where cuBLAS is looked for, in order: the loader's search (LD_LIBRARY_PATH,
/// the system's libraries) by the unversioned and the CUDA 13, 12 and 11
/// names, then the lib64 folder of each toolkit that CUDA_HOME, CUDA_PATH or
/// CUDA_ROOT names, then of the default toolkit /usr/local/cuda.
std::vector<std::string> getCublasCandidates();

/// Synchronous copies, after the work queued on the step's stream.
void copyToDevice(void *device, const void *host, size_t bytes);
void copyToHost(void *host, const void *device, size_t bytes);

/// Milliseconds of GPU time between two points of the step's stream:
/// `startGpuTimer` marks the first, `stopGpuTimer` the second, waits for it
/// (the step's one wait) and returns the time between.
void startGpuTimer();
double stopGpuTimer();

/// The mgpu* functions (mgpuModuleLoad, mgpuLaunchKernel, ...) and
/// ckptCudaGemmF32/F64 on cuBLAS (loaded on its first call) by name, for a
/// JIT's symbol table (StepDriver.h's getStepSymbols); a step compiled
/// ahead of time links them by the same C names. They end the process with
/// a message on a CUDA error: the lowered code has no way to handle one.
std::vector<std::pair<const char *, void *>> getCudaRuntimeSymbols();

} // namespace ckpt::runtime

#endif // CKPT_RUNTIME_CUDARUNTIME_H
