//===- StepChain.h - a training step as the dp planner's chain ------------===//
//
// Measures the chain model of ChainDp.h on a training step with the memory
// simulator itself, so that the dp search optimises the simulator's peak:
// the step with no plan, and the step with each run of stages as its only
// segment, are materialised and simulated, and every program point is
// given to the stage whose plan decides its live bytes.
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
  /// The chain of `step`, a training step without segments or recompute
  /// regions. Stages whose backward ops interleave are merged, so that each
  /// program point belongs to one stage. Fails with an error at an op of
  /// unknown size.
  static mlir::FailureOr<std::unique_ptr<StepChain>>
  build(mlir::func::FuncOp step);

  size_t getStageCount() const override { return stages.size(); }
  int64_t getKeptPeak(size_t stage) const override {
    return keptPeaks[stage];
  }
  std::optional<ChainSegment> getSegment(size_t first,
                                         size_t last) const override;

  /// The stages the model's indices refer to, ops of the step it was built
  /// on.
  llvm::ArrayRef<Stage> getStages() const { return stages; }

private:
  llvm::SmallVector<Stage> stages;
  llvm::SmallVector<int64_t> keptPeaks;
  /// segments[first][last - first]; a run stops at the first stage that
  /// may not be recomputed.
  std::vector<std::vector<ChainSegment>> segments;
};

} // namespace ckpt

#endif // CKPT_PLANNER_STEPCHAIN_H
