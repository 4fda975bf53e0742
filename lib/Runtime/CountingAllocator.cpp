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
#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

namespace {

/// Precedes every block; sized so the returned pointer keeps malloc's
/// alignment.
struct alignas(std::max_align_t) Header {
  uint64_t size;
};

std::atomic<uint64_t> live{0}, peak{0}, count{0};

/// An allocation (positive size) or a free (negative) of the block at
/// `pointer`, in the order they happened.
struct Event {
  void *pointer;
  int64_t size;
};
std::mutex traceMutex;
std::vector<Event> trace;

void record(void *pointer, int64_t size) {
  std::lock_guard<std::mutex> lock(traceMutex);
  trace.push_back({pointer, size});
}

void *recordAllocation(Header *header, uint64_t size) {
  header->size = size;
  record(header + 1, static_cast<int64_t>(size));
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
  std::lock_guard<std::mutex> lock(traceMutex);
  trace.clear();
}

uint64_t getPeakExcluding(const std::vector<void *> &excluded) {
  std::lock_guard<std::mutex> lock(traceMutex);
  // A block freed during the measurement may be reused by a later, excluded
  // block at the same address: only the last allocation at an excluded
  // address (still live at the end) is excluded.
  std::unordered_map<void *, size_t> lastAllocation;
  for (void *pointer : excluded)
    lastAllocation.emplace(pointer, trace.size());
  for (size_t i = 0; i < trace.size(); ++i)
    if (trace[i].size > 0)
      if (auto it = lastAllocation.find(trace[i].pointer);
          it != lastAllocation.end())
        it->second = i;
  std::vector<bool> skip(trace.size() + 1, false);
  for (const auto &entry : lastAllocation)
    skip[entry.second] = true;
  int64_t now = 0, most = 0;
  for (size_t i = 0; i < trace.size(); ++i) {
    if (skip[i])
      continue;
    now += trace[i].size;
    most = std::max(most, now);
  }
  return static_cast<uint64_t>(most);
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
  record(pointer, -static_cast<int64_t>(header->size));
  std::free(header);
}

} // namespace ckpt::runtime
