//===- CountingAllocator.h - heap allocation that measures its peak -------===//
//
// The allocation functions lowered code calls (`_mlir_memref_to_llvm_alloc`
// and friends, through the generic allocation functions of the memref-to-LLVM
// lowering) are served by this allocator, which counts live bytes and their
// peak, so the peak memory of a training step is measured, not estimated.
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
void *allocateAligned(size_t alignment, size_t size);
void deallocate(void *pointer);

} // namespace ckpt::runtime

extern "C" {
void *_mlir_memref_to_llvm_alloc(size_t size);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
void _mlir_memref_to_llvm_free(void *pointer);
}

#endif // CKPT_RUNTIME_COUNTINGALLOCATOR_H
