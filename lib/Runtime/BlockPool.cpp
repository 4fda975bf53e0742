//===- BlockPool.cpp - a cache of freed blocks over a memory backend ------===//
//
// Blocks are cached whole, by size class, and never split or merged: a
// training step repeats the same requests, so exact classes reuse every
// block from the second step on without the bookkeeping of a splitting
// allocator.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/BlockPool.h"

#include <algorithm>

namespace ckpt::runtime {

size_t BlockPool::getClassSize(size_t size) {
  constexpr size_t kSmallStep = 512, kSmallLimit = size_t(1) << 20;
  if (size <= kSmallLimit)
    return std::max<size_t>(kSmallStep,
                            (size + kSmallStep - 1) / kSmallStep * kSmallStep);
  // Eight steps between consecutive powers of two.
  size_t step = (size_t(1) << (63 - __builtin_clzll(size))) / 8;
  return (size + step - 1) / step * step;
}

void *BlockPool::allocate(size_t size) {
  size_t classSize = getClassSize(size);
  std::lock_guard<std::mutex> lock(mutex);
  void *block = nullptr;
  if (auto it = cached.find(classSize); it != cached.end()) {
    block = it->second;
    cached.erase(it);
    stats.cachedBytes -= classSize;
  } else {
    block = upstream.allocate(classSize);
    if (!block && !cached.empty()) {
      releaseCached();
      block = upstream.allocate(classSize);
    }
    if (!block)
      return nullptr;
    ++stats.upstreamAllocations;
    stats.reservedBytes += classSize;
  }
  handedOut.emplace(block, classSize);
  return block;
}

void BlockPool::release(void *pointer) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = handedOut.find(pointer);
  if (it == handedOut.end())
    return;
  cached.emplace(it->second, pointer);
  stats.cachedBytes += it->second;
  handedOut.erase(it);
}

void BlockPool::trim() {
  std::lock_guard<std::mutex> lock(mutex);
  releaseCached();
}

void BlockPool::releaseCached() {
  for (auto [bytes, pointer] : cached) {
    upstream.release(pointer);
    ++stats.upstreamReleases;
    stats.reservedBytes -= bytes;
  }
  cached.clear();
  stats.cachedBytes = 0;
}

BlockPool::Stats BlockPool::getStats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return stats;
}

} // namespace ckpt::runtime
