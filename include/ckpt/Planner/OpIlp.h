//===- OpIlp.h - op-level plans on the fixed schedule, exactly -----------===//
//
// The tensor strategy's plan space and search. Each saved buffer (a forward
// value backward reads, with its views) is kept or dropped; a dropped one
// comes back right before its first backward reader, or with the region
// of an earlier site that may clone it anyway (and is then held to its
// readers, as a checkpoint segment holds its values), by a region that
// clones what it needs and reads kept values and earlier copies. A
// mixed-integer program over that space, whose memory rows follow the
// simulator's (allocate at definition, free after the last use, scratch
// while an op runs, views alias, arguments live throughout), is solved with
// CBC; each solution is materialised and simulated, and one whose simulated
// peak misses the budget is cut off and the program solved again.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_PLANNER_OPILP_H
#define CKPT_PLANNER_OPILP_H

#include "ckpt/Planner/ChainIlp.h"
#include "ckpt/Planner/OpPlan.h"
#include "ckpt/Planner/Recompute.h"

#include <memory>
#include <vector>

namespace ckpt {

class OpPlanSpace {
public:
  /// A buffer the plan may drop: a forward value backward reads (made by
  /// an op that may be recomputed, not returned), with the views of it.
  struct Candidate {
    /// The buffer's value first, then its views.
    llvm::SmallVector<mlir::Value, 1> members;
    uint64_t bytes = 0;
    /// Where it may come back when dropped, ascending: positions of the
    /// step's ops (sites precede them), its first backward reader last.
    llvm::SmallVector<int, 2> sites;
  };
  /// A plan of the space: per candidate, -1 when kept, else the site (one
  /// of its `sites`) where it comes back.
  using Choice = std::vector<int>;

  /// The space of `step`, a training step without segments, marks or
  /// recompute regions. Fails with an error at an op of unknown size.
  static mlir::FailureOr<std::unique_ptr<OpPlanSpace>>
  build(mlir::func::FuncOp step);
  ~OpPlanSpace();

  llvm::ArrayRef<Candidate> getCandidates() const { return candidates; }
  /// The plan `choice` stands for.
  OpPlan getPlan(const Choice &choice) const;

  /// Internal: the step as the program sees it.
  struct Model;
  const Model &getModel() const { return *model; }

private:
  OpPlanSpace() = default;
  mlir::func::FuncOp step;
  std::vector<Candidate> candidates;
  std::unique_ptr<Model> model;
};

struct OpIlpResult {
  /// The best fitting plan; none when no plan fits (or, at a limit, none
  /// was found).
  std::optional<OpPlanSpace::Choice> choice;
  /// Its simulated peak (with the microbatches in flight) and recompute
  /// FLOPs.
  int64_t peak = 0;
  uint64_t flops = 0;
  /// Whether it is proven the cheapest plan of the space that fits.
  bool optimal = false;
  /// FLOPs no fitting plan of the space can beat.
  uint64_t lowerBound = 0;
  /// Solves run, and how many plans the simulator found over the budget
  /// that the program had accepted (each a miss of its memory model).
  unsigned solves = 0;
  unsigned misses = 0;
};

/// What a search for a cheaper plan than one known to fit is worth: only
/// plans that recompute `gain` FLOPs less than `known` do, and none closer
/// than `gain` to the cheapest possible (the search stops once it cannot
/// gain that much more). The search first bounds what it can gain with the
/// program's linear relaxation: below `gain` it stops there, else it
/// takes a share of the time limit in proportion to what it can gain beyond
/// `gain`, all of it where that is `fullTime` FLOPs or more.
struct OpIlpWorth {
  uint64_t known;
  uint64_t gain;
  uint64_t fullTime;
};

/// The plan of `space` with the fewest recompute FLOPs whose simulated
/// peak with `microbatches` in flight (MemoryPeak::getPeakWithMicrobatches)
/// fits `budget` (without one: the smallest such peak the program finds,
/// then the fewest FLOPs within it), within `limits` (seconds and nodes;
/// dpPresolve is ignored), and with `worth`, within what the search is
/// worth. `start`, a plan known to fit, seeds the search.
OpIlpResult
findOpPlanIlp(mlir::func::FuncOp step, const OpPlanSpace &space,
              std::optional<int64_t> budget, const IlpLimits &limits,
              unsigned microbatches = 1,
              const std::optional<OpPlanSpace::Choice> &start = std::nullopt,
              std::optional<OpIlpWorth> worth = std::nullopt);

} // namespace ckpt

#endif // CKPT_PLANNER_OPILP_H
