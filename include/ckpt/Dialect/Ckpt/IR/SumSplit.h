//===- SumSplit.h - how a long sum is split into partial sums ---*- C++ -*-===//
//
// A sum over some dimensions whose results are few and long (a whole
// tensor to one number, a bias gradient's columns) is computed in two
// stages: partial sums, each of a fixed part of its result's elements,
// then the sum of each result's partials in order. The split is chosen from
// the shape alone, here, so that the lowering (CkptToLinalg) and the
// scratch bytes the memory simulator counts for the partials always agree,
// and so that every device and thread count adds in the same order.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_SUMSPLIT_H
#define CKPT_DIALECT_CKPT_IR_SUMSPLIT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace ckpt {

/// Sums of fewer elements than this in all stay one sequential sum each.
constexpr int64_t kSplitSumMinimum = int64_t(1) << 16;
/// The most partial sums of one result.
constexpr int64_t kMostPartialSums = 1024;
/// The most partial sums of all results together.
constexpr int64_t kMostPartialSumsInAll = int64_t(1) << 16;
/// The fewest elements one partial sum adds.
constexpr int64_t kShortestPartialSum = 64;
/// Fewer partial sums per result or in all than these would not be worth
/// a second stage (two more kernels on a GPU: the partials' zeros and the
/// second stage).
constexpr int64_t kFewestPartialSumsPerResult = 8;
constexpr int64_t kFewestPartialSums = 64;

/// The partials are indexed by the kept dimensions and the trailing
/// dimensions, so neighbouring partials read neighbouring elements
/// (coalesced on a GPU): reduced dimension `dim` is cut as `q * factor + t`,
/// and partial (kept dimensions before `dim`, t, i[dim+1], ...) sums the
/// elements over the reduced dimensions before `dim` and q, in row-major
/// order; the second stage sums over t and the reduced dimensions after
/// `dim`. Its shape is [kept sizes before dim..., factor, shape[dim+1],
/// ...].
struct SumSplit {
  int64_t dim;
  int64_t factor;
  llvm::SmallVector<int64_t> partialShape;
};

/// How a sum over `reducedDims` of a tensor of `shape` is split, or nothing
/// when each result is summed in one sequence: at most kMostPartialSums
/// partials per result and kMostPartialSumsInAll in all, each of at least
/// kShortestPartialSum elements, from the trailing reduced dimensions
/// whole and a divisor of the next one; none with fewer than
/// kFewestPartialSumsPerResult per result or kFewestPartialSums in all.
inline std::optional<SumSplit>
getSumSplit(llvm::ArrayRef<int64_t> shape,
            llvm::ArrayRef<int64_t> reducedDims) {
  int64_t rank = static_cast<int64_t>(shape.size());
  auto reduced = [&](int64_t dim) {
    return llvm::is_contained(reducedDims, dim);
  };
  int64_t elements = 1, results = 1;
  for (int64_t dim = 0; dim < rank; ++dim) {
    elements *= shape[dim];
    if (!reduced(dim))
      results *= shape[dim];
  }
  if (elements < kSplitSumMinimum || results == 0)
    return std::nullopt;
  int64_t limit = std::min({kMostPartialSums, kMostPartialSumsInAll / results,
                            elements / results / kShortestPartialSum});
  int64_t partials = 1;
  for (int64_t dim = rank - 1; dim >= 0; --dim) {
    if (!reduced(dim))
      continue;
    // The largest divisor of this dimension that keeps the partials within
    // the limit; the whole dimension when it does and an earlier reduced
    // dimension is left for the first stage, moving on.
    int64_t factor = 1;
    for (int64_t candidate = 1;
         candidate <= std::min(shape[dim], limit / partials); ++candidate)
      if (shape[dim] % candidate == 0)
        factor = candidate;
    bool earlierReduced = llvm::any_of(llvm::seq<int64_t>(0, dim), reduced);
    if (factor == shape[dim] && earlierReduced) {
      partials *= factor;
      continue;
    }
    if (partials * factor < kFewestPartialSumsPerResult ||
        results * partials * factor < kFewestPartialSums)
      return std::nullopt;
    SumSplit split{dim, factor, {}};
    for (int64_t d = 0; d < dim; ++d)
      if (!reduced(d))
        split.partialShape.push_back(shape[d]);
    split.partialShape.push_back(factor);
    split.partialShape.append(shape.begin() + dim + 1, shape.end());
    return split;
  }
  return std::nullopt;
}

/// The number of partials of a reduction over `reducedDims` of a tensor of
/// `shape` (getSumSplit), 0 when it is not split: the scratch, times the
/// partials' element width, that its op's cost counts.
inline int64_t getSplitPartialCount(llvm::ArrayRef<int64_t> shape,
                                    llvm::ArrayRef<int64_t> reducedDims) {
  std::optional<SumSplit> split = getSumSplit(shape, reducedDims);
  if (!split)
    return 0;
  int64_t partials = 1;
  for (int64_t size : split->partialShape)
    partials *= size;
  return partials;
}

} // namespace ckpt

#endif // CKPT_DIALECT_CKPT_IR_SUMSPLIT_H
