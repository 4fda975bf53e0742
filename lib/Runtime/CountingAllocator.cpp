//===- CountingAllocator.cpp - heap allocation that measures its peak -----===//
//
// The size of each live block is kept in a map, so `free` knows how many
// bytes stop being live. Counts are of the bytes requested (what the memory
// simulator predicts), not of the backend's rounding.
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

std::atomic<uint64_t> live{0}, peak{0}, count{0};

/// An allocation (positive size) or a free (negative) of the block at
/// `pointer`, in the order they happened; the sizes of the live blocks
/// (kept here, not in the block: device memory is not the host's to
/// write).
struct Event {
  void *pointer;
  int64_t size;
};
std::mutex traceMutex;
std::vector<Event> trace;
std::unordered_map<void *, uint64_t> liveSizes;

ckpt::runtime::MemoryBackend backend = {
    [](size_t size) { return std::malloc(std::max<size_t>(size, 1)); },
    [](void *pointer) { std::free(pointer); }};

} // namespace

namespace ckpt::runtime {

void setMemoryBackend(MemoryBackend memory) { backend = memory; }

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
  void *pointer = backend.allocate(size);
  if (!pointer)
    return nullptr;
  {
    std::lock_guard<std::mutex> lock(traceMutex);
    trace.push_back({pointer, static_cast<int64_t>(size)});
    liveSizes[pointer] = size;
  }
  uint64_t now = live.fetch_add(size) + size;
  uint64_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
  count.fetch_add(1);
  return pointer;
}

void deallocate(void *pointer) {
  if (!pointer)
    return;
  uint64_t size;
  {
    std::lock_guard<std::mutex> lock(traceMutex);
    auto it = liveSizes.find(pointer);
    if (it == liveSizes.end())
      return;
    size = it->second;
    liveSizes.erase(it);
    trace.push_back({pointer, -static_cast<int64_t>(size)});
  }
  live.fetch_sub(size);
  backend.release(pointer);
}

} // namespace ckpt::runtime
