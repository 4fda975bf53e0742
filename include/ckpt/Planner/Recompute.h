//===- Recompute.h - materialise and evaluate a plan ----------------------===//
//
// The one consumer of the plan representation: turns a training step's
// checkpoint segments into ckpt.recompute regions (ckpt-insert-recompute
// runs it), and evaluates a plan on its materialised copy.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_PLANNER_RECOMPUTE_H
#define CKPT_PLANNER_RECOMPUTE_H

#include "ckpt/Analysis/MemorySimulator.h"
#include "ckpt/Analysis/StepCost.h"

namespace ckpt {

/// For every segment of `step`, innermost first: the values it recomputes
/// (made inside, read by backward, used by no forward op outside) come from
/// one ckpt.recompute region placed right before the first backward op
/// that reads one of them, holding copies of only the ops they depend on
/// within the segment. Segments are removed. Fails with errors at the ops
/// that may not be recomputed, leaving `step` unchanged.
mlir::LogicalResult materializePlan(mlir::func::FuncOp step);

/// What a plan costs: its simulated memory (the peak and the timeline; not
/// the live set at the peak) and its FLOPs (recompute among them), computed
/// on a materialised copy; `step` is unchanged.
struct PlanEvaluation {
  MemoryPeak peak;
  StepCost cost;
};
mlir::FailureOr<PlanEvaluation> evaluatePlan(mlir::func::FuncOp step);

} // namespace ckpt

#endif // CKPT_PLANNER_RECOMPUTE_H
