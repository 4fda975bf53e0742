//===- HalfFloat.h - f16 and bf16 to and from f32 -------------------------===//
//
// The runtime moves 16-bit floats as their bits (uint16_t): it fills inputs
// in f32 and rounds them, and reads results back through f32, which holds
// every f16 and bf16 value exactly. Rounding is to the nearest, ties to
// even, as arith.truncf and PyTorch round; NaNs stay NaNs (bf16's the one
// quiet NaN 0x7fc0, as PyTorch's).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_RUNTIME_HALFFLOAT_H
#define CKPT_RUNTIME_HALFFLOAT_H

#include <cstdint>

namespace ckpt::runtime {

float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);

float bfloat16ToFloat(uint16_t bits);
uint16_t floatToBfloat16(float value);

} // namespace ckpt::runtime

#endif // CKPT_RUNTIME_HALFFLOAT_H
