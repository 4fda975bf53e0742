//===- SumSplit.h - how a long sum is split into partial sums ---*- C++ -*-===//
//
// A sum of a whole large tensor to one number is computed in two stages:
// partial sums, each of a fixed part of the elements, then the sum of the
// partials in order. The split is chosen from the shape alone, here, so
// that the lowering (CkptToLinalg) and the scratch bytes the memory
// simulator counts for the partials always agree, and so that every device
// and thread count adds in the same order.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_SUMSPLIT_H
#define CKPT_DIALECT_CKPT_IR_SUMSPLIT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace ckpt {

/// Sums of fewer elements than this stay one sequential sum.
constexpr int64_t kSplitSumMinimum = int64_t(1) << 16;
/// The most partial sums.
constexpr int64_t kMostPartialSums = 1024;
/// Fewer partial sums than this would not be worth a second stage.
constexpr int64_t kFewestPartialSums = 64;

/// The partials are indexed by the trailing dimensions, so neighbouring
/// partials read neighbouring elements (coalesced on a GPU): dimension
/// `dim` is cut as `q * factor + t`, and partial (t, i[dim+1], ...) sums
/// the elements over all the dimensions before `dim` and q, in row-major
/// order. Its shape is [factor, shape[dim+1], ...].
struct SumSplit {
  int64_t dim;
  int64_t factor;
  llvm::SmallVector<int64_t> partialShape;
};

/// How a sum of all of a tensor of `shape` is split, or nothing when it is
/// summed in one sequence: at most kMostPartialSums partials, from the
/// trailing dimensions whole and a divisor of the next one.
inline std::optional<SumSplit> getSumSplit(llvm::ArrayRef<int64_t> shape) {
  int64_t elements = 1;
  for (int64_t size : shape)
    elements *= size;
  if (elements < kSplitSumMinimum)
    return std::nullopt;
  int64_t partials = 1;
  for (int64_t dim = static_cast<int64_t>(shape.size()) - 1; dim >= 0; --dim) {
    // The largest divisor of this dimension that keeps the partials within
    // the limit; the whole dimension when it does, moving on.
    int64_t factor = 1;
    for (int64_t candidate = 1;
         candidate <= std::min(shape[dim], kMostPartialSums / partials);
         ++candidate)
      if (shape[dim] % candidate == 0 &&
          partials * candidate <= kMostPartialSums)
        factor = candidate;
    if (factor == shape[dim] && dim > 0) {
      partials *= factor;
      continue;
    }
    if (partials * factor < kFewestPartialSums)
      return std::nullopt;
    SumSplit split{dim, factor, {factor}};
    split.partialShape.append(shape.begin() + dim + 1, shape.end());
    return split;
  }
  return std::nullopt;
}

} // namespace ckpt

#endif // CKPT_DIALECT_CKPT_IR_SUMSPLIT_H
