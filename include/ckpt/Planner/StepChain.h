//===- StepChain.h - a training step as the dp planner's chain ------------===//
//
// Measures the chain model of ChainDp.h on a training step with the memory
// simulator itself, so that the dp search optimises the simulator's peak:
// the step with no plan, and the step with each run of stages as its only
// segment (recomputing everything, and, where the run has expensive ops,
// keeping their results), are materialised and simulated, and every
// program point is given to the stage whose plan decides its live bytes.
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
  /// The segment options: recompute everything, or keep the results of the
  /// ops above the expensive threshold (when the run has any).
  static constexpr unsigned kRecomputeAll = 0, kKeepExpensive = 1;

  /// The chain of `step`, a training step without segments or recompute
  /// regions, cut where at most `maxCrossing` activations cross
  /// (findStages); ops above `expensiveFlopsPerElement`
  /// (isExpensiveToRecompute) may keep their results. Stages whose backward
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

  /// The stages the model's indices refer to, ops of the step it was built
  /// on.
  llvm::ArrayRef<Stage> getStages() const { return stages; }

private:
  llvm::SmallVector<Stage> stages;
  llvm::SmallVector<int64_t> keptPeaks;
  /// segments[first][last - first]; a run stops at the first stage that
  /// may not be recomputed.
  std::vector<std::vector<llvm::SmallVector<ChainSegment, 2>>> segments;
};

} // namespace ckpt

#endif // CKPT_PLANNER_STEPCHAIN_H
