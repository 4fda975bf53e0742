//===- HalfFloatTest.cpp - 16-bit conversions against oracles -------------===//
//
// f16 against the compiler's _Float16 (hardware or libgcc rounding), bf16
// against the nearest of the two neighbouring bf16 values, computed in
// double; every 16-bit pattern and a sweep of f32 patterns.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/HalfFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace ckpt::runtime;

namespace {

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// Every 4099th f32 pattern and the neighbours of every power of two and
/// every bf16/f16 rounding boundary near it: the cases rounding gets wrong.
std::vector<float> sampleFloats() {
  std::vector<float> values;
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 4099)
    values.push_back(floatOf(static_cast<uint32_t>(bits)));
  for (uint32_t exponent = 0; exponent < 256; ++exponent)
    for (uint32_t sign : {0u, 0x80000000u})
      for (uint32_t low : {0u, 1u, 0xfffu, 0x1000u, 0x1001u, 0x7fffu, 0x8000u,
                           0x8001u, 0x18000u, 0x7fffffu})
        values.push_back(floatOf(sign | exponent << 23 | low));
  return values;
}

TEST(HalfFloatTest, HalfWidensExactly) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    _Float16 half;
    uint16_t pattern = static_cast<uint16_t>(bits);
    std::memcpy(&half, &pattern, sizeof(half));
    float expected = static_cast<float>(half);
    float actual = halfToFloat(pattern);
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(actual)) << std::hex << bits;
    else
      EXPECT_EQ(actual, expected) << std::hex << bits;
  }
}

TEST(HalfFloatTest, HalfRoundsToNearestEven) {
  for (float value : sampleFloats()) {
    _Float16 half = static_cast<_Float16>(value);
    uint16_t expected;
    std::memcpy(&expected, &half, sizeof(expected));
    uint16_t actual = floatToHalf(value);
    if (std::isnan(value))
      EXPECT_TRUE(std::isnan(halfToFloat(actual)));
    else
      EXPECT_EQ(actual, expected) << value;
  }
}

TEST(HalfFloatTest, BfloatRoundTripsEveryPattern) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    uint16_t pattern = static_cast<uint16_t>(bits);
    float value = bfloat16ToFloat(pattern);
    if (std::isnan(value))
      EXPECT_TRUE(std::isnan(bfloat16ToFloat(floatToBfloat16(value))));
    else
      EXPECT_EQ(floatToBfloat16(value), pattern) << std::hex << bits;
  }
}

TEST(HalfFloatTest, BfloatRoundsToNearestEven) {
  for (float value : sampleFloats()) {
    uint16_t actual = floatToBfloat16(value);
    if (std::isnan(value)) {
      EXPECT_EQ(actual, 0x7fc0) << "PyTorch's quiet NaN";
      continue;
    }
    // The bf16 values just below and above |value| (truncation and the
    // next pattern), chosen by distance in double; past the largest finite
    // value the next is infinity, at the distance 2^128 would be.
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    uint16_t below = static_cast<uint16_t>(bits >> 16);
    uint16_t above = static_cast<uint16_t>(below + 1);
    double low = bfloat16ToFloat(below), high = bfloat16ToFloat(above);
    if (std::isinf(high) && !std::isinf(low))
      high = std::copysign(std::ldexp(1.0, 128), low);
    double dLow = std::fabs(double(value) - low);
    double dHigh = std::fabs(double(value) - high);
    uint16_t expected = below;
    if (low != double(value) && !std::isinf(low) &&
        (dHigh < dLow || (dHigh == dLow && (below & 1))))
      expected = above;
    EXPECT_EQ(actual, expected) << value;
  }
}

} // namespace
