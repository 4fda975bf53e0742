//===- CountingAllocatorTest.cpp - live and peak bytes by hand ------------===//

#include "ckpt/Runtime/CountingAllocator.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

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

} // namespace
