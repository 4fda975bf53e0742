//===- HalfFloat.cpp - f16 and bf16 to and from f32 -----------------------===//
//
// Bit manipulation on the IEEE layouts, so the conversions do not depend on
// the compiler's or the CPU's 16-bit support. bf16 is the upper half of an
// f32; f16 has 5 exponent bits (bias 15) and 10 fraction bits.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/HalfFloat.h"

#include <cstring>

namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// `bits` shifted right by `shift` (1 to 31), rounded to the nearest, ties
/// to even.
uint32_t shiftRoundingToEven(uint32_t bits, unsigned shift) {
  uint32_t half = 1u << (shift - 1);
  uint32_t rest = bits & ((1u << shift) - 1);
  uint32_t kept = bits >> shift;
  if (rest > half || (rest == half && (kept & 1)))
    ++kept;
  return kept;
}

} // namespace

float ckpt::runtime::bfloat16ToFloat(uint16_t bits) {
  return floatOf(static_cast<uint32_t>(bits) << 16);
}

uint16_t ckpt::runtime::floatToBfloat16(float value) {
  uint32_t bits = bitsOf(value);
  // Every NaN becomes the quiet NaN, as PyTorch and ckpt-expand-bf16 make it.
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return 0x7fc0u;
  // A carry out of the fraction steps into the exponent, up to infinity.
  return static_cast<uint16_t>(shiftRoundingToEven(bits, 16));
}

float ckpt::runtime::halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t fraction = bits & 0x3ffu;
  if (exponent == 0x1f)
    return floatOf(sign | 0x7f800000u | (fraction << 13));
  if (exponent != 0)
    return floatOf(sign | ((exponent + 112) << 23) | (fraction << 13));
  // Zero or subnormal: fraction * 2^-24, exact in f32.
  float magnitude = static_cast<float>(fraction) * floatOf(0x33800000u);
  return sign ? -magnitude : magnitude;
}

uint16_t ckpt::runtime::floatToHalf(float value) {
  uint32_t bits = bitsOf(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u)
    return sign | 0x7e00u | static_cast<uint16_t>((magnitude >> 13) & 0x1ffu);
  int32_t exponent = static_cast<int32_t>(magnitude >> 23) - 127;
  if (exponent >= 16)
    return sign | 0x7c00u;
  if (exponent >= -14) {
    // Normal in f16: rebias the exponent, round the fraction to 10 bits;
    // a carry may reach the exponent and infinity, as it should.
    uint32_t rebiased = magnitude - (112u << 23);
    return sign | static_cast<uint16_t>(shiftRoundingToEven(rebiased, 13));
  }
  if (exponent < -25)
    return sign;
  // Subnormal in f16: the significand with its implicit bit, in units of
  // 2^-24; shifting by 14 - exponent - 1 leaves 2^-24 units.
  uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
  unsigned shift = static_cast<unsigned>(-exponent - 1);
  return sign | static_cast<uint16_t>(shiftRoundingToEven(significand, shift));
}
