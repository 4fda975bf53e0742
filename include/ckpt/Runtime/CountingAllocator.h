//===- CountingAllocator.h - heap allocation that measures its peak -------===//
//
// ckpt-run binds the `malloc` and `free` that lowered code calls to this
// allocator, which counts live bytes and their peak, so the peak memory of a
// training step is measured, not estimated.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_RUNTIME_COUNTINGALLOCATOR_H
#define CKPT_RUNTIME_COUNTINGALLOCATOR_H

#include <cstddef>
#include <cstdint>

namespace ckpt::runtime {

struct AllocationStats {
  /// Bytes requested and not yet freed.
  uint64_t liveBytes = 0;
  /// The most live bytes since the last reset.
  uint64_t peakBytes = 0;
  /// Allocations since the last reset.
  uint64_t allocations = 0;
};

/// Starts a new measurement: the peak becomes the bytes live now.
void resetPeak();
AllocationStats getAllocationStats();

void *allocate(size_t size);
void deallocate(void *pointer);

} // namespace ckpt::runtime

#endif // CKPT_RUNTIME_COUNTINGALLOCATOR_H
