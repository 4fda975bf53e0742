//===- ChainIlp.h - exact plans as a mixed-integer program ----------------===//
//
// The ilp strategy's search: the plans of ChainDp.h's model written as a
// MILP (one binary per way a run of stages may be a segment) and solved
// with CBC. Each plan the solver returns is measured (by the memory
// simulator, for the planner); a plan whose measured peak does not fit is
// cut off and the program solved again, so the search stays exact when the
// model's peak only bounds the measured one from below, as it does on
// graphs with skip connections.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_PLANNER_CHAINILP_H
#define CKPT_PLANNER_CHAINILP_H

#include "ckpt/Planner/ChainDp.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace ckpt {

struct IlpLimits {
  /// Wall-clock seconds for all solves together.
  double seconds = 10;
  /// Branch-and-bound nodes per solve; 0: no limit.
  int64_t nodes = 0;
  /// Take dp's optimum of the model first (exact, and found in
  /// milliseconds): it is the answer when its measured peak fits, and a
  /// lower bound otherwise. Off, every plan comes from the program.
  bool dpPresolve = true;
};

struct IlpResult {
  /// The cheapest plan found whose measured peak fits; none when no plan
  /// fits (or, at a limit, none was found).
  std::optional<ChainPlan> plan;
  /// `plan`'s measured peak.
  int64_t measuredPeak = 0;
  /// Whether `plan` is proven the cheapest that fits (or, without a plan,
  /// that none fits).
  bool optimal = false;
  /// FLOPs no fitting plan can beat.
  uint64_t lowerBound = 0;
  /// Solves run: one more for each plan whose measured peak did not fit.
  unsigned solves = 0;
};

/// A plan's true peak (the simulator's); the model's peak must not exceed
/// it.
using PeakMeasure = llvm::function_ref<int64_t(const ChainPlan &)>;

/// The plan with the fewest recompute FLOPs whose measured peak fits
/// `budget`; `start`, a plan known to fit, seeds the search. Without a
/// budget: the plan of smallest model peak (dp's, which the model finds
/// exactly), then the fewest FLOPs within its measured peak.
IlpResult
findChainPlanIlp(const ChainModel &model, std::optional<int64_t> budget,
                 const IlpLimits &limits, PeakMeasure measure,
                 const std::optional<ChainPlan> &start = std::nullopt);

} // namespace ckpt

#endif // CKPT_PLANNER_CHAINILP_H
