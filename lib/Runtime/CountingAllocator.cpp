//===- CountingAllocator.cpp - heap allocation that measures its peak -----===//
//
// Each block carries its size in a header in front of the returned pointer,
// so `free` knows how many bytes stop being live. Counts are of the bytes
// requested (what the memory simulator predicts), not of malloc's rounding.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/CountingAllocator.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

namespace {

/// Precedes every block; sized so the returned pointer keeps malloc's
/// alignment.
struct alignas(std::max_align_t) Header {
  uint64_t size;
  void *base;
};

std::atomic<uint64_t> live{0}, peak{0}, count{0};

void *recordAllocation(void *base, void *user, uint64_t size) {
  auto *header = static_cast<Header *>(user) - 1;
  header->size = size;
  header->base = base;
  uint64_t now = live.fetch_add(size) + size;
  uint64_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
  count.fetch_add(1);
  return user;
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
  return recordAllocation(base, static_cast<Header *>(base) + 1, size);
}

void *allocateAligned(size_t alignment, size_t size) {
  alignment = std::max(alignment, alignof(Header));
  void *base = std::malloc(sizeof(Header) + alignment + size);
  if (!base)
    return nullptr;
  auto address = reinterpret_cast<uintptr_t>(static_cast<Header *>(base) + 1);
  address = (address + alignment - 1) / alignment * alignment;
  return recordAllocation(base, reinterpret_cast<void *>(address), size);
}

void deallocate(void *pointer) {
  if (!pointer)
    return;
  Header *header = static_cast<Header *>(pointer) - 1;
  live.fetch_sub(header->size);
  std::free(header->base);
}

} // namespace ckpt::runtime
