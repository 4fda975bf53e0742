//===- Recompute.h - materialise and evaluate a plan ----------------------===//
//
// The one writer of a plan: turns a training step's plan into
// ckpt.recompute regions (ckpt-insert-recompute runs it), and evaluates a
// plan on its materialised copy.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_PLANNER_RECOMPUTE_H
#define CKPT_PLANNER_RECOMPUTE_H

#include "ckpt/Analysis/MemorySimulator.h"
#include "ckpt/Analysis/StepCost.h"

namespace ckpt {

struct OpPlan;

/// Materialises the plan on `step`: its checkpoint segments, converted, or
/// else its op-level plan attributes (none: nothing is recomputed). Each
/// site becomes a ckpt.recompute region right before its backward op,
/// holding copies of the ops its values depend on; the plan's marks and
/// segments are removed. Fails with errors at the ops that may not be
/// recomputed or whose marks are inconsistent, leaving `step` unchanged.
mlir::LogicalResult materializePlan(mlir::func::FuncOp step);

/// Materialises `plan`, found on `step` (see OpPlan).
void materializeOpPlan(mlir::func::FuncOp step, const OpPlan &plan);

/// What a plan costs: its simulated memory (the peak and the timeline; not
/// the live set at the peak) and its FLOPs (recompute among them), computed
/// on a materialised copy; `step` is unchanged.
struct PlanEvaluation {
  MemoryPeak peak;
  StepCost cost;
};
mlir::FailureOr<PlanEvaluation> evaluatePlan(mlir::func::FuncOp step);

/// The same for `step`, a materialised plan.
mlir::FailureOr<PlanEvaluation>
evaluateMaterializedPlan(mlir::func::FuncOp step);

/// The same for `plan`, found on `step` (its marks and segments aside).
mlir::FailureOr<PlanEvaluation> evaluateOpPlan(mlir::func::FuncOp step,
                                               const OpPlan &plan);

} // namespace ckpt

#endif // CKPT_PLANNER_RECOMPUTE_H
