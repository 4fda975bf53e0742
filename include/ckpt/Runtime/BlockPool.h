//===- BlockPool.h - a cache of freed blocks over a memory backend --------===//
//
// A GPU step allocates and frees a few hundred blocks, and every step the
// same ones; cuMemAlloc and cuMemFree each cost microseconds and
// cuMemFree waits for the device. The pool keeps freed blocks by size
// class and hands them out again, so after the first step a step takes no
// memory from the driver. The counting allocator above it still counts the
// bytes requested, so the measured peak is unchanged.
//
// Reuse is in stream order: every kernel, product and copy of a step runs
// on one stream, so a block freed by the host while a kernel on the stream
// may still read it is only written again by work queued after that kernel.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_RUNTIME_BLOCKPOOL_H
#define CKPT_RUNTIME_BLOCKPOOL_H

#include "ckpt/Runtime/CountingAllocator.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>

namespace ckpt::runtime {

class BlockPool {
public:
  explicit BlockPool(MemoryBackend upstream) : upstream(upstream) {}
  ~BlockPool() { trim(); }
  BlockPool(const BlockPool &) = delete;
  BlockPool &operator=(const BlockPool &) = delete;

  /// A block of at least `size` bytes: a cached one of the same size class,
  /// else a new one from upstream. When upstream has no memory left, the
  /// cached blocks go back to it and it is asked once more; null if it
  /// still has none.
  void *allocate(size_t size);
  /// Keeps a block `allocate` returned for reuse; other pointers are
  /// ignored.
  void release(void *pointer);
  /// Gives every cached block back to upstream.
  void trim();

  /// The size class of a request: multiples of 512 bytes up to 1 MiB, then
  /// eight classes per power of two (at most an eighth more than asked).
  static size_t getClassSize(size_t size);

  struct Stats {
    /// Calls to upstream's allocate and release since construction.
    uint64_t upstreamAllocations = 0, upstreamReleases = 0;
    /// Bytes held from upstream (live and cached), and cached.
    uint64_t reservedBytes = 0, cachedBytes = 0;
  };
  Stats getStats() const;

private:
  /// trim() with the mutex held.
  void releaseCached();

  MemoryBackend upstream;
  mutable std::mutex mutex;
  /// Cached blocks by class size.
  std::multimap<size_t, void *> cached;
  /// The class size of every block handed out and not yet released.
  std::unordered_map<void *, size_t> handedOut;
  Stats stats;
};

} // namespace ckpt::runtime

#endif // CKPT_RUNTIME_BLOCKPOOL_H
