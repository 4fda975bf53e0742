//===- Philox.cpp - the reference counter-based random stream -------------===//
//
// Delegates to Random123's philox4x32 (this file builds with exceptions,
// which Random123's array helpers need; the rest of the project does not
// use them).
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/Philox.h"

#include <Random123/philox.h>

using namespace ckpt::runtime;

std::array<uint32_t, 4> ckpt::runtime::philoxBlock(
    std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key) {
  r123::Philox4x32::ctr_type c = {{counter[0], counter[1], counter[2],
                                   counter[3]}};
  r123::Philox4x32::key_type k = {{key[0], key[1]}};
  r123::Philox4x32::ctr_type r = r123::Philox4x32()(c, k);
  return {r[0], r[1], r[2], r[3]};
}

PhiloxStream::PhiloxStream(uint64_t seed, uint32_t stream)
    : key{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)},
      stream(stream) {}

uint32_t PhiloxStream::word(uint64_t index) const {
  uint64_t block = index / 4;
  return philoxBlock({static_cast<uint32_t>(block),
                     static_cast<uint32_t>(block >> 32), stream, 0},
                    key)[index % 4];
}

double PhiloxStream::uniform(uint64_t index) const {
  return static_cast<double>(word(index) >> 8) / 16777216.0;
}
