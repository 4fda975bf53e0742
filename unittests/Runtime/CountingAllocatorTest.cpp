//===- CountingAllocatorTest.cpp - live and peak bytes by hand ------------===//

#include "ckpt/Runtime/CountingAllocator.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

using namespace ckpt::runtime;

namespace {

TEST(CountingAllocatorTest, CountsRequestedBytesAndThePeak) {
  resetPeak();
  uint64_t before = getAllocationStats().liveBytes;
  void *a = allocate(100);
  void *b = allocate(1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % alignof(std::max_align_t), 0u);
  EXPECT_EQ(getAllocationStats().liveBytes, before + 1100);
  deallocate(a);
  void *c = allocate(50);
  // Peak: 1100 while a and b were live; now 1050.
  AllocationStats stats = getAllocationStats();
  EXPECT_EQ(stats.liveBytes, before + 1050);
  EXPECT_EQ(stats.peakBytes, before + 1100);
  EXPECT_EQ(stats.allocations, 3u);
  deallocate(b);
  deallocate(c);
  EXPECT_EQ(getAllocationStats().liveBytes, before);
  // A new measurement starts at what is live.
  resetPeak();
  EXPECT_EQ(getAllocationStats().peakBytes, before);
}

// The peak without chosen blocks, against a hand-computed timeline.
TEST(CountingAllocatorTest, PeakExcludingBlocksAllocatedDuringTheMeasurement) {
  void *earlier = allocate(7);
  resetPeak();
  void *a = allocate(100);
  void *kept = allocate(40);
  deallocate(a);
  void *b = allocate(300);
  void *c = allocate(20);
  deallocate(b);
  // Everything: 100 + 40, then 40 + 300 + 20 = 360 at the most.
  EXPECT_EQ(getAllocationStats().peakBytes,
            getAllocationStats().liveBytes - 60 + 360);
  // Without `kept` and `c`: 100, then 300.
  EXPECT_EQ(getPeakExcluding({kept, c}), 300u);
  // Without nothing: 360 (blocks live before the reset do not count).
  EXPECT_EQ(getPeakExcluding({}), 360u);
  // A block allocated before the reset is not in the record.
  EXPECT_EQ(getPeakExcluding({earlier}), 360u);
  deallocate(kept);
  deallocate(c);
  deallocate(earlier);
}

// A freed block's address can come back for an excluded block: only the
// allocation still live at the end is excluded, whether or not malloc
// reused the address.
TEST(CountingAllocatorTest, PeakExcludingReusedAddress) {
  resetPeak();
  void *first = allocate(64);
  deallocate(first);
  void *second = allocate(64);
  void *other = allocate(100);
  // 64, 0, [second], 100.
  EXPECT_EQ(getPeakExcluding({second}), 100u);
  deallocate(second);
  deallocate(other);
}

// Blocks come from the backend set (device memory for GPU steps) and go
// back to it; a pointer the allocator did not hand out is left alone.
TEST(CountingAllocatorTest, UsesTheMemoryBackend) {
  static std::vector<size_t> requested;
  static std::vector<void *> released;
  static char arena[4][64];
  static int next = 0;
  setMemoryBackend({[](size_t size) -> void * {
                      requested.push_back(size);
                      return arena[next++];
                    },
                    [](void *pointer) { released.push_back(pointer); }});
  uint64_t before = getAllocationStats().liveBytes;
  void *a = allocate(24);
  void *b = allocate(8);
  EXPECT_EQ(a, arena[0]);
  EXPECT_EQ(b, arena[1]);
  EXPECT_EQ(requested, (std::vector<size_t>{24, 8}));
  EXPECT_EQ(getAllocationStats().liveBytes, before + 32);
  char elsewhere;
  deallocate(&elsewhere);
  deallocate(a);
  EXPECT_EQ(released, std::vector<void *>{a});
  EXPECT_EQ(getAllocationStats().liveBytes, before + 8);
  deallocate(b);
  setMemoryBackend({[](size_t size) { return std::malloc(size ? size : 1); },
                    [](void *pointer) { std::free(pointer); }});
}

} // namespace
