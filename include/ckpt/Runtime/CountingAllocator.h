//===- CountingAllocator.h - heap allocation that measures its peak -------===//
//
// The `malloc` and `free` that lowered code calls (renamed ckptAllocate and
// ckptFree, StepDriver.h) are this allocator, under ckpt-run and in a
// compiled step alike. It counts live bytes and their peak, so the peak
// memory of a training step is measured, not estimated. It also records every
// allocation and free since the last reset, so the peak can be recomputed
// without chosen blocks (the gradients a step returns).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_RUNTIME_COUNTINGALLOCATOR_H
#define CKPT_RUNTIME_COUNTINGALLOCATOR_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ckpt::runtime {

struct AllocationStats {
  /// Bytes requested and not yet freed.
  uint64_t liveBytes = 0;
  /// The most live bytes since the last reset.
  uint64_t peakBytes = 0;
  /// Allocations since the last reset.
  uint64_t allocations = 0;
};

/// Starts a new measurement: the peak becomes the bytes live now, and the
/// record of allocations and frees starts empty.
void resetPeak();
AllocationStats getAllocationStats();

/// The most bytes that were live at once since the last reset among the
/// blocks allocated since then, not counting the blocks at `excluded` —
/// as if those had been allocated before the measurement (the way a
/// framework accumulates gradients into buffers it already holds).
uint64_t getPeakExcluding(const std::vector<void *> &excluded);

/// Allocates `size` bytes from the backend and counts them.
void *allocate(size_t size);
/// Frees a block `allocate` returned; other pointers are ignored.
void deallocate(void *pointer);

/// Where blocks come from: the host heap by default; device memory for a
/// step that runs on a GPU (CudaRuntime.h).
struct MemoryBackend {
  void *(*allocate)(size_t size);
  void (*release)(void *pointer);
};
void setMemoryBackend(MemoryBackend memory);

} // namespace ckpt::runtime

#endif // CKPT_RUNTIME_COUNTINGALLOCATOR_H
