//===- BlockPoolTest.cpp - the block cache against a counting fake --------===//
//
// The upstream here is the host heap with a byte limit, counting its calls,
// so the tests see what a GPU step would ask of the driver.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/BlockPool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <unordered_map>
#include <vector>

using namespace ckpt::runtime;

namespace {

/// The fake device: malloc with a limit on the bytes held.
struct FakeUpstream {
  uint64_t limit = UINT64_MAX, held = 0, allocations = 0, releases = 0;
  std::unordered_map<void *, size_t> sizes;
};
FakeUpstream fake;

MemoryBackend getFakeBackend() {
  fake = FakeUpstream();
  return {[](size_t size) -> void * {
            if (fake.held + size > fake.limit)
              return nullptr;
            void *block = std::malloc(size);
            fake.sizes[block] = size;
            fake.held += size;
            ++fake.allocations;
            return block;
          },
          [](void *block) {
            fake.held -= fake.sizes.at(block);
            fake.sizes.erase(block);
            ++fake.releases;
            std::free(block);
          }};
}

TEST(BlockPoolTest, ClassSizesCoverTheRequestWithLittleToSpare) {
  size_t previous = 0;
  for (size_t size :
       {size_t(0), size_t(1), size_t(511), size_t(512), size_t(513),
        size_t(1) << 20, (size_t(1) << 20) + 1, size_t(3000000),
        size_t(1) << 30, (size_t(1) << 30) + 7}) {
    size_t classSize = BlockPool::getClassSize(size);
    EXPECT_GE(classSize, std::max<size_t>(size, 1)) << size;
    EXPECT_LE(classSize, size + size / 8 + 512) << size;
    EXPECT_GE(classSize, previous) << size;
    EXPECT_EQ(BlockPool::getClassSize(classSize), classSize) << size;
    previous = classSize;
  }
  EXPECT_EQ(BlockPool::getClassSize(513), 1024u);
  // Above 1 MiB, steps of an eighth of the power of two below.
  EXPECT_EQ(BlockPool::getClassSize(3000000), 3145728u);
}

// A step's allocations and frees, repeated: the driver is asked only during
// the first, live blocks never overlap (each keeps its own pattern until
// freed), and upstream gets every block back at the end.
TEST(BlockPoolTest, RepeatedStepsTakeNoNewMemory) {
  BlockPool pool(getFakeBackend());
  std::mt19937 random(7);
  std::vector<size_t> sizes;
  // Sizes spread over both kinds of class, from a byte to 4 MiB.
  for (int i = 0; i < 200; ++i) {
    size_t power = size_t(1)
                   << std::uniform_int_distribution<int>(0, 21)(random);
    sizes.push_back(power +
                    std::uniform_int_distribution<size_t>(0, power)(random));
  }
  // When each block is freed: an index after its allocation, or the end.
  std::vector<size_t> freeAfter(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i)
    freeAfter[i] =
        std::uniform_int_distribution<size_t>(i, sizes.size())(random);
  uint64_t afterFirstStep = 0;
  for (int step = 0; step < 3; ++step) {
    std::vector<void *> blocks(sizes.size(), nullptr);
    auto freeBlock = [&](size_t i) {
      auto *bytes = static_cast<unsigned char *>(blocks[i]);
      for (size_t j = 0; j < sizes[i]; ++j)
        ASSERT_EQ(bytes[j], static_cast<unsigned char>(i)) << i;
      pool.release(blocks[i]);
    };
    for (size_t i = 0; i < sizes.size(); ++i) {
      blocks[i] = pool.allocate(sizes[i]);
      ASSERT_NE(blocks[i], nullptr);
      std::memset(blocks[i], static_cast<int>(i & 0xff), sizes[i]);
      for (size_t j = 0; j <= i; ++j)
        if (freeAfter[j] == i)
          freeBlock(j);
    }
    for (size_t j = 0; j < sizes.size(); ++j)
      if (freeAfter[j] == sizes.size())
        freeBlock(j);
    if (step == 0)
      afterFirstStep = fake.allocations;
    EXPECT_EQ(fake.allocations, afterFirstStep) << "step " << step;
    EXPECT_EQ(pool.getStats().upstreamAllocations, fake.allocations);
    EXPECT_EQ(pool.getStats().cachedBytes, pool.getStats().reservedBytes);
  }
  EXPECT_LT(afterFirstStep, sizes.size());
  pool.trim();
  EXPECT_EQ(fake.held, 0u);
  EXPECT_EQ(fake.releases, fake.allocations);
  EXPECT_EQ(pool.getStats().reservedBytes, 0u);
}

// Out of memory upstream: the cached blocks go back and the request is tried
// again; a request that cannot fit even then is null, and nothing leaks.
TEST(BlockPoolTest, OutOfMemoryReleasesTheCacheAndRetries) {
  BlockPool pool(getFakeBackend());
  fake.limit = 8192;
  void *small = pool.allocate(2048);
  void *other = pool.allocate(4096);
  ASSERT_NE(small, nullptr);
  ASSERT_NE(other, nullptr);
  pool.release(other);
  // 2048 live and 4096 cached of 8192: 5000 (class 5120) fits only once the
  // cache is given back.
  void *fits = pool.allocate(5000);
  ASSERT_NE(fits, nullptr);
  EXPECT_EQ(fake.releases, 1u);
  EXPECT_EQ(pool.getStats().cachedBytes, 0u);
  EXPECT_EQ(fake.held, 2048u + 5120u);
  // 6200 (class 6656) does not fit at all.
  EXPECT_EQ(pool.allocate(6200), nullptr);
  EXPECT_EQ(fake.held, 2048u + 5120u);
  // Pointers the pool did not hand out are ignored.
  int notFromThePool;
  pool.release(&notFromThePool);
  pool.release(nullptr);
  pool.release(small);
  pool.release(fits);
  pool.release(fits);
  EXPECT_EQ(pool.getStats().cachedBytes, 2048u + 5120u);
  pool.trim();
  EXPECT_EQ(fake.held, 0u);
}

} // namespace
