//===- CheckedMath.h - products that report overflow -----------------------===//
//
// Element and byte counts of tensors are products of their dimensions; an
// absurd shape must be an error, never a count that wrapped around. Every
// such product in the compiler and the runtime goes through these helpers.
// Header-only and free of LLVM, so the runtime library can use it too.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_SUPPORT_CHECKEDMATH_H
#define CKPT_SUPPORT_CHECKEDMATH_H

#include <cstdint>
#include <optional>

namespace ckpt {

/// a * b, or nullopt when the product does not fit 64 bits.
inline std::optional<uint64_t> checkedMultiply(uint64_t a, uint64_t b) {
  uint64_t product;
  if (__builtin_mul_overflow(a, b, &product))
    return std::nullopt;
  return product;
}

/// The product of `sizes` (a range of integers) times `factor`, or nullopt
/// when a size is negative (or dynamic, which MLIR spells as a negative
/// number) or the product does not fit 64 bits. A size of 0 makes the
/// product 0 even where the other sizes alone would overflow.
template <typename Range>
std::optional<uint64_t> checkedProduct(const Range &sizes,
                                       uint64_t factor = 1) {
  std::optional<uint64_t> product = factor;
  bool empty = false;
  for (auto size : sizes) {
    if (size < 0)
      return std::nullopt;
    if (size == 0)
      empty = true;
    else if (product)
      product = checkedMultiply(*product, static_cast<uint64_t>(size));
  }
  if (empty)
    return 0;
  return product;
}

} // namespace ckpt

#endif // CKPT_SUPPORT_CHECKEDMATH_H
