//===- StepChain.h - a training step as the dp planner's chain ------------===//
//
// The chain model of ChainDp.h for a training step, so that the dp search
// optimises the memory simulator's peak. The step is simulated once with no
// plan; each run of stages as the step's only segment (recomputing
// everything, or keeping the results of the ops above one of a ladder of
// FLOPs-per-element thresholds) then changes the lifetimes of only the buffers it recomputes or reads, so
// its peak, freed bytes and FLOPs follow from that one timeline (range
// maxima) and those buffers, without writing the plan. Every program point
// is given to the stage whose plan decides its live bytes.
// simulateChainRun materialises and simulates a run instead: the oracle the
// model is tested against, byte for byte.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_PLANNER_STEPCHAIN_H
#define CKPT_PLANNER_STEPCHAIN_H

#include "ckpt/Planner/ChainDp.h"
#include "ckpt/Planner/Segments.h"

#include <memory>
#include <vector>

namespace ckpt {

class StepChain : public ChainModel {
public:
  /// The most keep thresholds the ladder has: each adds a way to recompute
  /// every run, so the model's build time grows with their number.
  static constexpr size_t kMaxKeepThresholds = 4;

  /// The chain of `step`, a training step without segments or recompute
  /// regions, cut where at most `maxCrossing` activations cross
  /// (findStages). A run is recomputed entirely, or keeps the results of
  /// the ops above a threshold of FLOPs per element (isExpensiveToRecompute):
  /// `expensiveFlopsPerElement`, then higher ones at the costs of the
  /// step's ops above it (at most kMaxKeepThresholds in all), so that
  /// each run has the ways from keeping every matrix product to keeping
  /// only the costliest, and the search picks per run. Stages whose backward
  /// ops interleave are merged, so that each program point belongs to one
  /// stage. Fails with an error at an op of unknown size, or at a step with
  /// recompute regions.
  ///
  /// With one activation crossing each cut the model's peaks are the
  /// simulator's. With more, an activation that crosses a whole segment may
  /// live longer than the model counts (the segment's recomputation reads
  /// it after its last use without the segment), so the model's peak is a
  /// lower bound of the simulated one.
  static mlir::FailureOr<std::unique_ptr<StepChain>>
  build(mlir::func::FuncOp step, unsigned expensiveFlopsPerElement,
        unsigned maxCrossing = 1);

  size_t getStageCount() const override { return stages.size(); }
  int64_t getKeptPeak(size_t stage) const override {
    return keptPeaks[stage];
  }
  llvm::SmallVector<ChainSegment, 2>
  getSegmentOptions(size_t first, size_t last) const override;
  int64_t getLowestPeakFrom(size_t first, size_t last) const override;

  /// The keep thresholds, ascending.
  llvm::ArrayRef<unsigned> getKeepThresholds() const { return thresholds; }
  /// The threshold above which `segment` keeps its ops' results; none when
  /// it recomputes them all.
  std::optional<unsigned> getKeepThreshold(const PlannedSegment &segment) const;

  /// The stages the model's indices refer to, ops of the step it was built
  /// on.
  llvm::ArrayRef<Stage> getStages() const { return stages; }
  /// The stage of each point of the step's timeline: 0 is the arguments
  /// alone, i + 1 the step's op at position i.
  llvm::ArrayRef<size_t> getPointStages() const { return pointStages; }

private:
  llvm::SmallVector<Stage> stages;
  llvm::SmallVector<size_t> pointStages;
  llvm::SmallVector<int64_t> keptPeaks;
  /// segments[first][last - first]; a run stops at the first stage that
  /// may not be recomputed.
  std::vector<std::vector<llvm::SmallVector<ChainSegment, 2>>> segments;
  /// For each of those options, how many thresholds its kept ops exceed
  /// (0: it recomputes everything).
  std::vector<std::vector<llvm::SmallVector<uint8_t, 2>>> keepLevels;
  llvm::SmallVector<unsigned> thresholds;
  /// lowestPeaks[first][last - first]: getLowestPeakFrom.
  std::vector<std::vector<int64_t>> lowestPeaks;
};

/// Stages first..last of `chain` (built on `step`) as the only segment of a
/// copy of `step`, written as dp writes it, materialised and simulated: the
/// peak at the run's points, the bytes fewer at the next stage's first op
/// and the recompute FLOPs that the model predicts for that option.
mlir::FailureOr<ChainSegment> simulateChainRun(mlir::func::FuncOp step,
                                               const StepChain &chain,
                                               size_t first, size_t last,
                                               unsigned option);

} // namespace ckpt

#endif // CKPT_PLANNER_STEPCHAIN_H
