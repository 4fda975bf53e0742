//===- Philox.h - the reference counter-based random stream ---------------===//
//
// Philox4x32-10 as Random123 defines it, keyed by a 64-bit seed and a 32-bit
// stream number: word `i` is lane i % 4 of the block at counter i / 4.
// ckpt-run fills inputs from it, so inputs are the same on every machine.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_RUNTIME_PHILOX_H
#define CKPT_RUNTIME_PHILOX_H

#include <array>
#include <cstdint>

namespace ckpt::runtime {

/// One Philox4x32-10 block: 4 words from a 4-word counter and a 2-word key.
std::array<uint32_t, 4> philoxBlock(std::array<uint32_t, 4> counter,
                                   std::array<uint32_t, 2> key);

class PhiloxStream {
public:
  PhiloxStream(uint64_t seed, uint32_t stream);

  uint32_t word(uint64_t index) const;

  /// Uniform in [0, 1): the top 24 bits of the word over 2^24.
  double uniform(uint64_t index) const;

private:
  std::array<uint32_t, 2> key;
  uint32_t stream;
};

} // namespace ckpt::runtime

#endif // CKPT_RUNTIME_PHILOX_H
