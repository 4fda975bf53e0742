//===- ChainDp.h - exact single-level plans for a chain of stages ---------===//
//
// The dp strategy's search. A chain of n stages is cut into groups: a stage
// kept as it is, or a run of stages recomputed as one segment, in one of
// the ways the model offers (all of it, or all but the results of
// expensive ops). The model (StepChain.h measures it with the memory
// simulator) says, per group, the
// most bytes live at the program points that belong to it when no segment
// below it exists, how many bytes a segment frees at every point above it,
// and the FLOPs it recomputes. A plan's peak is the largest of its groups'
// peaks less the bytes freed by the segments below each; the search returns
// the plans no other plan beats on both peak and recompute FLOPs.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_PLANNER_CHAINDP_H
#define CKPT_PLANNER_CHAINDP_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace ckpt {

/// Stages first..last (inclusive) recomputed as one segment, one way.
struct ChainSegment {
  /// Most live bytes at the segment's points (its stages' forward and
  /// backward ops and its recompute region) with no segment below it.
  int64_t peak = 0;
  /// Bytes fewer at every point of the groups above it: the saved tensors
  /// it recomputes, less what it keeps alive longer (its input).
  int64_t freed = 0;
  /// FLOPs its recompute region runs.
  uint64_t flops = 0;
};

class ChainModel {
public:
  virtual ~ChainModel();
  virtual size_t getStageCount() const = 0;
  /// Most live bytes at `stage`'s points when it is kept and no segment is
  /// below it.
  virtual int64_t getKeptPeak(size_t stage) const = 0;
  /// The ways stages first..last may be one segment; none when they may
  /// not be one (then no longer run from `first` may be one either).
  virtual llvm::SmallVector<ChainSegment, 2>
  getSegmentOptions(size_t first, size_t last) const = 0;
  /// The lowest peak of any way stages first..last, or a longer run from
  /// `first`, may be one segment (INT64_MAX when none may): the search
  /// stops extending a run when even that cannot help. By default, a scan
  /// of the options.
  virtual int64_t getLowestPeakFrom(size_t first, size_t last) const;
};

/// A segment of a plan: its first and last stage and the model's option.
struct PlannedSegment {
  size_t first;
  size_t last;
  unsigned option = 0;
};

struct ChainPlan {
  /// The segments in order; other stages are kept.
  llvm::SmallVector<PlannedSegment> segments;
  int64_t peak = 0;
  uint64_t flops = 0;
};

/// The model's peak and FLOPs of `segments` (ordered, disjoint), or nothing
/// when the model forbids one of them: what the search optimises,
/// evaluated directly.
std::optional<ChainPlan>
evaluateChainPlan(const ChainModel &model,
                  llvm::ArrayRef<PlannedSegment> segments);

/// The Pareto front of single-level plans, by increasing FLOPs and
/// decreasing peak: each has the smallest peak of all plans with its FLOPs
/// or fewer. With `budget`, only the cheapest plan whose peak fits (none
/// when no plan fits), found without building the whole front.
llvm::SmallVector<ChainPlan>
findChainPlans(const ChainModel &model,
               std::optional<int64_t> budget = std::nullopt);

/// At most `most` plans of `front` (findChainPlans's, without a budget)
/// spread evenly over its peaks: for each of `most` peaks evenly spaced from
/// the first plan's to the last's, the cheapest plan within it (so the first
/// and the last plans are always among them). All of them when `most` is 0
/// or the front is no longer; `most` must not be 1.
llvm::SmallVector<ChainPlan> thinChainPlans(llvm::ArrayRef<ChainPlan> front,
                                            size_t most);

/// The smallest peak of any single-level plan (the last of
/// findChainPlans's front, found without building the front: only what
/// partial plans free and their peaks are compared).
int64_t findLowestChainPeak(const ChainModel &model);

} // namespace ckpt

#endif // CKPT_PLANNER_CHAINDP_H
