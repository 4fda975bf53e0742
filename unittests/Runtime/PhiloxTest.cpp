//===- PhiloxTest.cpp - the reference stream against known answers -------===//
//
// Philox4x32-10 known-answer vectors published with Random123 (kat_vectors),
// and the addressing of the stream (word i = lane i % 4 of counter i / 4).
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/Philox.h"

#include <gtest/gtest.h>

using ckpt::runtime::philoxBlock;
using ckpt::runtime::PhiloxStream;

namespace {

TEST(PhiloxTest, KnownAnswers) {
  using Words = std::array<uint32_t, 4>;
  EXPECT_EQ(philoxBlock({0, 0, 0, 0}, {0, 0}),
            (Words{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philoxBlock({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                        {0xffffffff, 0xffffffff}),
            (Words{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philoxBlock({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                        {0xa4093822, 0x299f31d0}),
            (Words{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(PhiloxTest, StreamAddressesLanesOfCounters) {
  uint64_t seed = 0x0123456789abcdefULL;
  PhiloxStream stream(seed, /*stream=*/7);
  for (uint64_t block : {0ULL, 1ULL, 0x100000000ULL}) {
    std::array<uint32_t, 4> words = philoxBlock(
        {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 7,
         0},
        {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
    for (uint32_t lane = 0; lane < 4; ++lane)
      EXPECT_EQ(stream.word(4 * block + lane), words[lane]);
  }
}

TEST(PhiloxTest, UniformIsTopBitsOverTwoToTheTwentyFour) {
  PhiloxStream stream(42, 0);
  for (uint64_t i = 0; i < 64; ++i) {
    double u = stream.uniform(i);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
    EXPECT_EQ(u * 16777216.0, static_cast<double>(stream.word(i) >> 8));
  }
}

} // namespace
