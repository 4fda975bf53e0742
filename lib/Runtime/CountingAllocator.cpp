//===- CountingAllocator.cpp - heap allocation that measures its peak -----===//
//
// Each block carries its size in a header in front of the returned pointer,
// so `free` knows how many bytes stop being live. Counts are of the bytes
// requested (what the memory simulator predicts), not of malloc's rounding.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/CountingAllocator.h"

#include <atomic>
#include <cstdlib>
#include <cstddef>

namespace {

/// Precedes every block; sized so the returned pointer keeps malloc's
/// alignment.
struct alignas(std::max_align_t) Header {
  uint64_t size;
};

std::atomic<uint64_t> live{0}, peak{0}, count{0};

void *recordAllocation(Header *header, uint64_t size) {
  header->size = size;
  uint64_t now = live.fetch_add(size) + size;
  uint64_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
  count.fetch_add(1);
  return header + 1;
}

} // namespace

namespace ckpt::runtime {

void resetPeak() {
  peak.store(live.load());
  count.store(0);
}

AllocationStats getAllocationStats() {
  return {live.load(), peak.load(), count.load()};
}

void *allocate(size_t size) {
  void *base = std::malloc(sizeof(Header) + size);
  if (!base)
    return nullptr;
  return recordAllocation(static_cast<Header *>(base), size);
}

void deallocate(void *pointer) {
  if (!pointer)
    return;
  Header *header = static_cast<Header *>(pointer) - 1;
  live.fetch_sub(header->size);
  std::free(header);
}

} // namespace ckpt::runtime
