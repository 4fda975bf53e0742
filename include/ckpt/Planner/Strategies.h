//===- Strategies.h - plans written as checkpoint segments ----------------===//
//
// Each strategy writes one plan on a training step as checkpoint segments
// (and `ckpt.keep` marks); ckpt-plan and ckpt-sweep run them.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_PLANNER_STRATEGIES_H
#define CKPT_PLANNER_STRATEGIES_H

#include "ckpt/Planner/ChainDp.h"
#include "ckpt/Planner/Segments.h"
#include "ckpt/Planner/StepChain.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>

namespace ckpt {

struct StrategyOptions {
  /// auto, manual, none, uniform, sqrt, selective, dp, ilp or tensor.
  std::string strategy = "auto";
  /// Stages per segment of uniform and selective.
  unsigned stagesPerSegment = 1;
  /// Selective (and dp, in the segments where it keeps expensive results)
  /// keeps results costing more FLOPs per element than this.
  unsigned selectiveThreshold = 64;
  /// Emit a remark per planned segment naming its stages.
  bool describe = false;
  /// The peak dp and ilp must fit, in bytes; without it they plan the
  /// smallest peak.
  std::optional<uint64_t> budget = std::nullopt;
  /// Microbatches a pipeline stage holds in flight (1F1B): the peak that
  /// must fit the budget is MemoryPeak::getPeakWithMicrobatches of it.
  unsigned microbatchesInFlight = 1;
  /// dp and ilp cut stages where at most this many activations cross; 0:
  /// each setting from 1 that cuts the chain finer, within a bound on its
  /// stages, is tried and the best simulated plan taken.
  unsigned stageCrossings = 0;
  /// ilp's limits: seconds for all its solves, branch-and-bound nodes per
  /// solve (0: none), and the most stages it takes on.
  double ilpSeconds = 10;
  int64_t ilpNodes = 0;
  unsigned ilpMaxStages = 150;
  /// ilp takes dp's model optimum first (IlpLimits::dpPresolve).
  bool ilpPresolve = true;
};

/// Why `options` are invalid, or an empty string.
std::string checkStrategyOptions(const StrategyOptions &options);

/// Writes the strategy's plan on `step` and records it as `ckpt.plan`:
/// manual checks the user's segments, none removes them, uniform and sqrt
/// replace them with segments of stages (ops that may not be recomputed
/// stay outside, with a remark), selective also marks the results of
/// expensive ops `ckpt.keep`, and dp and ilp write the cheapest plan of the
/// stage chain within the budget (the smallest peak when none fits, for the
/// budget check to report): dp from its search's front, ilp proven optimal
/// (or with a warning giving its gap at a limit).
mlir::LogicalResult applyStrategy(mlir::func::FuncOp step,
                                  const StrategyOptions &options);

/// Writes the plan `segments` of `chain` on the stages `stages` (the
/// chain's, or their copies made with mapStages): checkpoint segments,
/// marking `ckpt.keep` the ops each keeps; with `describe`, a remark per
/// segment.
void writeChainPlan(const StepChain &chain, llvm::ArrayRef<Stage> stages,
                    llvm::ArrayRef<PlannedSegment> segments, bool describe);

/// The ops of `step` marked `ckpt.keep`, those whose results are cheapest
/// to make again per byte first: the order in which a budget gives them
/// up.
llvm::SmallVector<mlir::Operation *> getKeptOpsByGain(mlir::func::FuncOp step);

} // namespace ckpt

#endif // CKPT_PLANNER_STRATEGIES_H
