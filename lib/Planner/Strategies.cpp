//===- Strategies.cpp - plans written as checkpoint segments --------------===//
//
// The user's segments, none, uniform groups of stages, about sqrt(n)
// groups of equal forward FLOPs, selective (uniform segments with expensive
// results kept), and dp and ilp, whose searches (ChainDp.h, ChainIlp.h)
// run on the StepChain model.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Planner/Strategies.h"

#include "ckpt/Dialect/Ckpt/IR/Recomputability.h"
#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"
#include "ckpt/Planner/ChainIlp.h"
#include "ckpt/Planner/OpIlp.h"
#include "ckpt/Planner/OpPlan.h"
#include "ckpt/Planner/Recompute.h"
#include "ckpt/Planner/StepChain.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace ckpt;

/// One segment per group of consecutive stages (first and last stage of
/// each); ops that may not be recomputed split a segment and stay outside
/// it, with a remark. With `describe`, a remark per segment names its
/// stages.
static void planStageGroups(ArrayRef<Stage> stages,
                            ArrayRef<std::pair<size_t, size_t>> groups,
                            bool describe) {
  SmallVector<std::pair<SmallVector<Operation *>, std::string>> runs;
  for (auto [first, last] : groups) {
    std::string name =
        first == last ? ("stage " + Twine(first)).str()
                      : ("stages " + Twine(first) + " to " + Twine(last)).str();
    runs.push_back({{}, name});
    for (size_t stage = first; stage <= last; ++stage)
      for (Operation *op : stages[stage].ops) {
        std::string reason = whyNotSegmentable(op);
        if (reason.empty()) {
          runs.back().first.push_back(op);
          continue;
        }
        op->emitRemark() << "kept outside the segment of " << name << ": it "
                         << reason;
        if (!runs.back().first.empty())
          runs.push_back({{}, name});
      }
  }
  llvm::erase_if(runs, [](auto &run) { return run.first.empty(); });
  for (auto [index, run] : llvm::enumerate(runs)) {
    CheckpointOp segment = wrapInSegment(run.first);
    if (describe)
      segment->emitRemark()
          << "segment " << index << " of " << runs.size() << ": " << run.second
          << ", " << run.first.size() << " ops";
  }
}

/// Groups of `size` consecutive stages.
static SmallVector<std::pair<size_t, size_t>> uniformGroups(size_t stages,
                                                            size_t size) {
  SmallVector<std::pair<size_t, size_t>> groups;
  for (size_t first = 0; first < stages; first += size)
    groups.push_back({first, std::min(first + size, stages) - 1});
  return groups;
}

/// About sqrt(n) groups of consecutive stages with equal forward FLOPs
/// (Chen et al. 2016): group k ends at the stage boundary nearest to k
/// shares of the total.
static FailureOr<SmallVector<std::pair<size_t, size_t>>>
sqrtGroups(ArrayRef<Stage> stages) {
  SmallVector<uint64_t> flops;
  for (const Stage &stage : stages) {
    uint64_t total = 0;
    for (Operation *op : stage.ops) {
      auto cost = dyn_cast<CostOpInterface>(op);
      if (!cost)
        continue;
      if (failed(verifyStaticSizes(cost)))
        return failure();
      total += cost.getFlops();
    }
    flops.push_back(total);
  }
  size_t count = std::max<size_t>(
      1, static_cast<size_t>(std::lround(std::sqrt(stages.size()))));
  double share = static_cast<double>(
                     std::accumulate(flops.begin(), flops.end(), uint64_t(0))) /
                 count;
  SmallVector<std::pair<size_t, size_t>> groups;
  double sofar = 0;
  size_t first = 0;
  for (size_t stage = 0; stage < stages.size(); ++stage) {
    sofar += flops[stage];
    // Close the group at the stage boundary nearest to its share.
    double target = share * (groups.size() + 1);
    bool last = stage + 1 == stages.size();
    bool nearest = !last && std::abs(sofar - target) <=
                                std::abs(sofar + flops[stage + 1] - target);
    if (last || (groups.size() + 1 < count && nearest)) {
      groups.push_back({first, stage});
      first = stage + 1;
    }
  }
  return groups;
}

/// The ops in segments whose results cost more than `threshold` FLOPs per
/// element to make again (matrix products): selective keeps their results.
static FailureOr<SmallVector<Operation *>>
findExpensiveOps(func::FuncOp step, unsigned threshold) {
  SmallVector<Operation *> expensive;
  WalkResult walk = step.walk([&](CostOpInterface op) {
    if (!op->getParentOfType<CheckpointOp>())
      return WalkResult::advance();
    if (failed(verifyStaticSizes(op)))
      return WalkResult::interrupt();
    if (isExpensiveToRecompute(op, threshold))
      expensive.push_back(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return expensive;
}

void ckpt::writeChainPlan(const StepChain &chain, ArrayRef<Stage> stages,
                          ArrayRef<PlannedSegment> segments, bool describe) {
  SmallVector<std::pair<size_t, size_t>> groups;
  for (const PlannedSegment &segment : segments) {
    groups.push_back({segment.first, segment.last});
    std::optional<unsigned> threshold = chain.getKeepThreshold(segment);
    if (!threshold)
      continue;
    for (size_t stage = segment.first; stage <= segment.last; ++stage)
      for (Operation *op : stages[stage].ops)
        if (isExpensiveToRecompute(op, *threshold))
          op->setAttr(CkptDialect::kKeepAttrName,
                      UnitAttr::get(op->getContext()));
  }
  planStageGroups(stages, groups, describe);
}

/// The simulated peak of `segments` written on a copy of `step`, whose
/// chain is `chain`, with `microbatches` in flight; the largest peak when
/// the plan cannot be evaluated.
static int64_t simulateChainPlan(func::FuncOp step, const StepChain &chain,
                                 ArrayRef<PlannedSegment> segments,
                                 unsigned microbatches) {
  IRMapping mapping;
  OwningOpRef<func::FuncOp> copy = cast<func::FuncOp>(step->clone(mapping));
  writeChainPlan(chain, mapStages(chain.getStages(), mapping), segments,
                 /*describe=*/false);
  FailureOr<PlanEvaluation> evaluated = evaluatePlan(*copy);
  if (failed(evaluated))
    return INT64_MAX;
  return static_cast<int64_t>(std::min<uint64_t>(
      evaluated->peak.getPeakWithMicrobatches(microbatches), INT64_MAX));
}

namespace {

/// A plan of one stage chain: what dp or ilp found on it, simulated.
struct ChainCandidate {
  std::unique_ptr<StepChain> chain;
  ChainPlan plan;
  int64_t simulatedPeak = 0;
  unsigned stageCrossings = 1;
  /// ilp's outcome, for the remark.
  std::string outcome;
};

} // namespace

/// The plan of `front` (ordered by FLOPs) with the smallest simulated
/// peak, the cheapest of equals.
static ChainPlan findSmallestSimulatedPlan(ArrayRef<ChainPlan> front,
                                           PeakMeasure simulate) {
  const ChainPlan *smallest = &front.back();
  int64_t smallestPeak = INT64_MAX;
  for (const ChainPlan &plan : front)
    if (int64_t peak = simulate(plan); peak < smallestPeak) {
      smallest = &plan;
      smallestPeak = peak;
    }
  return *smallest;
}

/// dp's plan on `chain`: the cheapest whose simulated peak fits `budget`,
/// or, without one, the cheapest of the smallest model peak. Where
/// activations cross the chain's cuts beside the one carried forward (skip
/// connections), or more than one microbatch is in flight, the model's
/// peak only bounds the simulated one from below, so the front is walked
/// from the cheapest plan the model fits until one does; nothing when none
/// does. The front is built once, and only when the budgeted search's plan
/// does not fit. With microbatches in flight and no budget, the front's
/// plan of smallest simulated peak.
static std::optional<ChainPlan>
findFittingChainPlan(const StepChain &chain, std::optional<int64_t> budget,
                     unsigned microbatches, PeakMeasure simulate,
                     SmallVector<ChainPlan> &front) {
  if (!budget && microbatches > 1) {
    front = findChainPlans(chain);
    return findSmallestSimulatedPlan(front, simulate);
  }
  if (!budget)
    return findChainPlans(chain, findLowestChainPeak(chain)).front();
  SmallVector<ChainPlan> plans = findChainPlans(chain, budget);
  if (plans.empty())
    return std::nullopt;
  if (simulate(plans.front()) <= *budget)
    return plans.front();
  front = findChainPlans(chain);
  for (ChainPlan &plan : front)
    if (plan.peak <= *budget && simulate(plan) <= *budget)
      return plan;
  return std::nullopt;
}

/// dp and ilp on the chain cut where at most `crossings` activations
/// cross: the cheapest plan within the budget, or the smallest peak (also
/// when nothing fits, for the budget check to report), simulated.
static FailureOr<ChainCandidate> planChainWith(func::FuncOp step,
                                               const StrategyOptions &options,
                                               unsigned crossings,
                                               std::optional<int64_t> budget) {
  bool ilp = options.strategy == "ilp";
  if (ilp) {
    size_t stages = findStages(step, crossings, /*inputsCross=*/false).size();
    if (stages > options.ilpMaxStages)
      return step.emitOpError()
             << "has " << stages << " stages, more than strategy 'ilp' takes "
             << "on (ilp-max-stages=" << options.ilpMaxStages
             << "); plan it with dp or selective, or raise ilp-max-stages";
  }
  FailureOr<std::unique_ptr<StepChain>> built =
      StepChain::build(step, options.selectiveThreshold, crossings);
  if (failed(built))
    return failure();
  ChainCandidate candidate;
  candidate.chain = std::move(*built);
  candidate.stageCrossings = crossings;
  const StepChain &chain = *candidate.chain;
  if (chain.getStageCount() == 0)
    return candidate;
  auto simulate = [&](const ChainPlan &plan) {
    return simulateChainPlan(step, chain, plan.segments,
                             options.microbatchesInFlight);
  };

  SmallVector<ChainPlan> front;
  std::optional<ChainPlan> plan = findFittingChainPlan(
      chain, budget, options.microbatchesInFlight, simulate, front);
  if (ilp) {
    IlpLimits limits{options.ilpSeconds, options.ilpNodes, options.ilpPresolve};
    std::optional<ChainPlan> start;
    if (budget)
      start = plan;
    IlpResult solved = findChainPlanIlp(chain, budget, limits, simulate, start);
    if (solved.plan && !solved.optimal) {
      double gap = solved.plan->flops
                       ? 100.0 *
                             double(solved.plan->flops - solved.lowerBound) /
                             double(solved.plan->flops)
                       : 0.0;
      step.emitWarning() << "strategy 'ilp' stopped at its limits after "
                         << solved.solves
                         << (solved.solves == 1 ? " solve" : " solves")
                         << ": the plan recomputes " << solved.plan->flops
                         << " FLOPs, at most "
                         << llvm::formatv("{0:F1}", gap).str()
                         << "% more than the optimum (no plan recomputes "
                            "fewer than "
                         << solved.lowerBound << ")";
    }
    candidate.outcome =
        solved.plan ? (solved.optimal ? "optimal" : "not proven optimal")
                    : (solved.optimal ? "proven that no plan fits"
                                      : "no fitting plan found");
    candidate.outcome += ", " + std::to_string(solved.solves) +
                         (solved.solves == 1 ? " solve" : " solves");
    plan = std::move(solved.plan);
  }
  // Nothing fits: the smallest peak, for the budget check to report (with
  // microbatches in flight, not the model's but the simulated one).
  if (!plan) {
    if (front.empty())
      front = findChainPlans(chain);
    plan = options.microbatchesInFlight > 1
               ? findSmallestSimulatedPlan(front, simulate)
               : front.back();
  }
  candidate.plan = std::move(*plan);
  candidate.simulatedPeak = simulate(candidate.plan);
  return candidate;
}

/// The settings of stage-crossings that automatic planning tries: 1, and
/// each higher one up to 4 that cuts the chain finer, while its chain has
/// at most twice the stages of the first (or 256), so that planning time
/// stays within a small multiple of one setting's, and at most
/// `maxStages`.
static SmallVector<unsigned> getAutomaticCrossings(func::FuncOp step,
                                                   size_t maxStages) {
  SmallVector<unsigned> settings = {1};
  size_t first = findStages(step, 1, /*inputsCross=*/false).size();
  size_t previous = first;
  for (unsigned crossings = 2; crossings <= 4; ++crossings) {
    size_t stages = findStages(step, crossings, /*inputsCross=*/false).size();
    if (stages > std::min(std::max<size_t>(2 * first, 256), maxStages))
      break;
    if (stages > previous)
      settings.push_back(crossings);
    previous = stages;
  }
  return settings;
}

/// dp and ilp: the cheapest plan of the step's chain within the budget, or
/// the smallest peak. The model is the simulator's (StepChain.h), and every
/// plan is simulated before it is taken, so the budget check that follows
/// agrees; the brute-force tests hold the searches to the simulator's
/// optimum. With automatic stage crossings, each setting's plan is found
/// and the one whose simulated peak fits with the fewest FLOPs is taken
/// (without a budget, or when none fits: the smallest simulated peak).
static LogicalResult planChain(func::FuncOp step,
                               const StrategyOptions &options) {
  std::optional<int64_t> budget;
  if (options.budget)
    budget =
        static_cast<int64_t>(std::min<uint64_t>(*options.budget, INT64_MAX));
  SmallVector<unsigned> settings = {options.stageCrossings};
  // ilp takes on no more stages than ilp-max-stages: beyond one crossing,
  // settings above it are not tried.
  if (options.stageCrossings == 0)
    settings = getAutomaticCrossings(
        step, options.strategy == "ilp" ? options.ilpMaxStages : SIZE_MAX);
  auto better = [&](const ChainCandidate &a, const ChainCandidate &b) {
    bool aFits = budget && a.simulatedPeak <= *budget;
    bool bFits = budget && b.simulatedPeak <= *budget;
    if (aFits != bFits)
      return aFits;
    if (aFits)
      return std::tie(a.plan.flops, a.simulatedPeak) <
             std::tie(b.plan.flops, b.simulatedPeak);
    return std::tie(a.simulatedPeak, a.plan.flops) <
           std::tie(b.simulatedPeak, b.plan.flops);
  };
  std::optional<ChainCandidate> best;
  for (unsigned crossings : settings) {
    FailureOr<ChainCandidate> candidate =
        planChainWith(step, options, crossings, budget);
    if (failed(candidate))
      return failure();
    if (!best || better(*candidate, *best))
      best = std::move(*candidate);
  }
  const StepChain &chain = *best->chain;
  if (chain.getStageCount() == 0)
    return success();
  const ChainPlan &plan = best->plan;
  writeChainPlan(chain, chain.getStages(), plan.segments, options.describe);
  if (options.describe) {
    InFlightDiagnostic remark = step.emitRemark();
    remark << options.strategy << ": " << plan.segments.size() << " segments ("
           << llvm::count_if(
                  plan.segments,
                  [&](const PlannedSegment &segment) {
                    return chain.getKeepThreshold(segment).has_value();
                  })
           << " keeping expensive results) over " << chain.getStageCount()
           << " stages, peak "
           << formatBytes(static_cast<uint64_t>(best->simulatedPeak))
           << ", recompute " << plan.flops << " FLOPs";
    if (!best->outcome.empty())
      remark << " (" << best->outcome << ")";
    if (options.stageCrossings == 0) {
      remark << "; stage-crossings=" << best->stageCrossings
             << " chosen automatically of";
      for (unsigned crossings : settings)
        remark << " " << crossings;
    }
  }
  return success();
}

/// tensor: the op-level program's plan (OpIlp.h) within the budget; when
/// none fits, or without a budget, the smallest peak it finds; when its
/// limits stop it before any plan, everything is kept. Returns how the
/// plan was found: "optimal", or the gap to the proven lower bound.
/// `space` is the step's.
static std::string planTensors(func::FuncOp step, const OpPlanSpace &space,
                               const StrategyOptions &options,
                               bool warn = true) {
  std::optional<int64_t> budget;
  if (options.budget)
    budget =
        static_cast<int64_t>(std::min<uint64_t>(*options.budget, INT64_MAX));
  IlpLimits limits{options.ilpSeconds, options.ilpNodes, false};
  OpIlpResult solved =
      findOpPlanIlp(step, space, budget, limits, options.microbatchesInFlight);
  std::string outcome;
  if (!solved.choice && budget && solved.optimal) {
    outcome = "proven that no plan fits the budget; ";
    solved = findOpPlanIlp(step, space, std::nullopt, limits,
                           options.microbatchesInFlight);
  }
  size_t candidates = space.getCandidates().size();
  OpPlanSpace::Choice choice =
      solved.choice ? *solved.choice : OpPlanSpace::Choice(candidates, -1);
  std::string method = "optimal";
  if (!solved.choice) {
    method = "stopped at its limits without a plan";
    if (warn)
      step.emitWarning() << "strategy 'tensor' stopped at its limits after "
                         << solved.solves
                         << (solved.solves == 1 ? " solve" : " solves")
                         << " without a plan; everything is kept (raise "
                            "ilp-seconds or ilp-nodes, or use dp)";
  } else if (!solved.optimal) {
    double gap = solved.flops
                     ? 100.0 *
                           double(solved.flops -
                                  std::min(solved.lowerBound, solved.flops)) /
                           double(solved.flops)
                     : 0.0;
    method =
        "at most " + llvm::formatv("{0:F2}", gap).str() + "% above the optimum";
    if (warn)
      step.emitWarning() << "strategy 'tensor' stopped at its limits after "
                         << solved.solves
                         << (solved.solves == 1 ? " solve" : " solves")
                         << ": the plan recomputes " << solved.flops
                         << " FLOPs, " << method
                         << " (no plan recomputes fewer "
                         << "than " << solved.lowerBound << ")";
  }
  OpPlan plan = space.getPlan(choice);
  writeOpPlan(step, plan);
  if (options.describe && solved.choice)
    step.emitRemark() << "tensor: "
                      << llvm::count_if(choice, [](int at) { return at >= 0; })
                      << " of " << candidates << " saved buffers recomputed at "
                      << plan.sites.size() << " sites, peak "
                      << formatBytes(static_cast<uint64_t>(solved.peak))
                      << ", recompute " << solved.flops << " FLOPs (" << outcome
                      << method << ", " << solved.solves
                      << (solved.solves == 1 ? " solve" : " solves") << ", "
                      << solved.misses << " cut by the simulator)";
  return method;
}

/// The most saved buffers auto gives the op-level program (about five
/// seconds of solving on a GPT-2 of 133).
constexpr size_t kAutoMaxCandidates = 200;

/// What auto's op-level program must save over dp's plan to be worth
/// solving, in percent of one forward's FLOPs: the search stops once it
/// cannot recompute that much less (a few seconds of solving for a gain
/// of a hundredth of a percent is no gain). It takes all of ilp-seconds
/// only where its relaxation leaves it kAutoFullTimePercent to gain beyond
/// kAutoWorthPercent, a share of them below.
constexpr double kAutoWorthPercent = 1.0;
constexpr double kAutoFullTimePercent = 10.0;

/// auto: dp's plan under the budget, then, where it fits and the op-level
/// program can recompute at least kAutoWorthPercent of a forward less,
/// tensor's within that, in the time that gain is worth; the better (fitting,
/// then fewer recompute FLOPs, then a lower peak; when neither fits, the lower
/// peak), each made and simulated on a copy. The step records which, as "auto:
/// tensor (optimal)".
static FailureOr<std::string>
planAutomatically(func::FuncOp step, const StrategyOptions &options) {
  struct Planned {
    OwningOpRef<func::FuncOp> copy;
    std::string name;
    PlanEvaluation evaluation;
  };
  SmallVector<Planned, 2> plans;
  StrategyOptions quiet = options;
  quiet.describe = false;
  quiet.strategy = "dp";
  Planned chain{step.clone(), "dp", {}};
  if (failed(planChain(*chain.copy, quiet)))
    return failure();
  FailureOr<PlanEvaluation> chainEvaluation = evaluatePlan(*chain.copy);
  if (failed(chainEvaluation))
    return failure();
  chain.evaluation = std::move(*chainEvaluation);
  auto peakOf = [&](const Planned &plan) {
    return plan.evaluation.peak.getPeakWithMicrobatches(
        options.microbatchesInFlight);
  };
  bool chainFits = peakOf(chain) <= *options.budget;
  uint64_t chainFlops = chain.evaluation.cost.recompute.flops;
  double forwardFlops = double(chain.evaluation.cost.forward.flops);
  uint64_t worthGain =
      static_cast<uint64_t>(forwardFlops * kAutoWorthPercent / 100);
  plans.push_back(std::move(chain));

  // The op-level program grows faster than its candidates: beyond
  // kAutoMaxCandidates it would spend its whole time limit.
  OwningOpRef<func::FuncOp> tensorCopy = step.clone();
  FailureOr<std::unique_ptr<OpPlanSpace>> space =
      OpPlanSpace::build(*tensorCopy);
  if (failed(space))
    return failure();
  size_t candidates = (*space)->getCandidates().size();
  std::string skipped;
  if (candidates > kAutoMaxCandidates) {
    skipped = "tensor not tried: " + std::to_string(candidates) +
              " saved buffers, more than " + std::to_string(kAutoMaxCandidates);
  } else if (chainFits && chainFlops <= worthGain) {
    skipped = "tensor not tried: dp recomputes less than " +
              llvm::formatv("{0}", kAutoWorthPercent).str() + "% of a forward";
  } else {
    std::optional<int64_t> budget =
        static_cast<int64_t>(std::min<uint64_t>(*options.budget, INT64_MAX));
    IlpLimits limits{options.ilpSeconds, options.ilpNodes, false};
    std::optional<OpIlpWorth> worth;
    if (chainFits)
      worth = OpIlpWorth{
          chainFlops, worthGain,
          static_cast<uint64_t>(forwardFlops * kAutoFullTimePercent / 100)};
    OpIlpResult solved =
        findOpPlanIlp(*tensorCopy, **space, budget, limits,
                      options.microbatchesInFlight, std::nullopt, worth);
    if (solved.choice) {
      writeOpPlan(*tensorCopy, (*space)->getPlan(*solved.choice));
      FailureOr<PlanEvaluation> evaluation = evaluatePlan(*tensorCopy);
      if (failed(evaluation))
        return failure();
      std::string method =
          solved.optimal
              ? "optimal"
              : "at most " +
                    llvm::formatv(
                        "{0:F2}",
                        100.0 *
                            double(solved.flops -
                                   std::min(solved.lowerBound, solved.flops)) /
                            double(std::max<uint64_t>(solved.flops, 1)))
                        .str() +
                    "% above the optimum";
      plans.push_back(Planned{std::move(tensorCopy), "tensor (" + method + ")",
                              std::move(*evaluation)});
    } else {
      skipped = worth ? "tensor found no plan recomputing " +
                            std::to_string(worthGain) + " FLOPs less than dp's"
                      : "tensor found no plan";
    }
  }
  // When neither fits, the smaller peak, for the budget check to report.
  auto score = [&](const Planned &plan) {
    uint64_t peak = peakOf(plan);
    uint64_t flops = plan.evaluation.cost.recompute.flops;
    bool over = peak > *options.budget;
    return over ? std::make_tuple(over, peak, flops)
                : std::make_tuple(over, flops, peak);
  };
  Planned *best = &plans.front();
  for (Planned &plan : plans)
    if (score(plan) < score(*best))
      best = &plan;
  step.getBody().takeBody(best->copy->getBody());
  if (options.describe) {
    InFlightDiagnostic remark = step.emitRemark();
    remark << "auto: took " << best->name;
    for (const Planned &plan : plans)
      remark << "; " << plan.name << ": peak " << formatBytes(peakOf(plan))
             << ", recompute " << plan.evaluation.cost.recompute.flops
             << " FLOPs";
    if (!skipped.empty())
      remark << "; " << skipped;
  }
  return "auto: " + best->name;
}

std::string ckpt::checkStrategyOptions(const StrategyOptions &options) {
  if (!llvm::is_contained({"auto", "manual", "none", "uniform", "sqrt",
                           "selective", "dp", "ilp", "tensor"},
                          StringRef(options.strategy)))
    return "unknown planning strategy '" + options.strategy +
           "'; expected auto, manual, none, uniform, sqrt, selective, dp, "
           "ilp or tensor";
  if (options.stagesPerSegment == 0)
    return "stages-per-segment must be at least 1";
  if (!(options.ilpSeconds > 0))
    return "ilp-seconds must be positive";
  if (options.ilpNodes < 0)
    return "ilp-nodes must not be negative";
  if (options.microbatchesInFlight == 0)
    return "microbatches-in-flight must be at least 1";
  return "";
}

LogicalResult ckpt::applyStrategy(func::FuncOp step,
                                  const StrategyOptions &options) {
  std::string strategy = options.strategy;
  if (failed(verifyNotMaterialized(step)))
    return failure();
  // auto plans only a step without the user's own plan, under a budget.
  if (strategy == "auto" && (!step.getOps<CheckpointOp>().empty() ||
                             hasOpPlan(step) || !options.budget))
    strategy = "manual";
  if (strategy == "manual" && hasOpPlan(step)) {
    if (failed(readOpPlan(step)))
      return failure();
  } else if (strategy == "manual") {
    bool recomputable = true;
    for (auto segment : step.getOps<CheckpointOp>())
      recomputable &= succeeded(verifyRecomputable(segment));
    if (!recomputable)
      return failure();
  } else {
    inlineAllSegments(step);
    eraseOpPlan(step);
    if (strategy == "dp" || strategy == "ilp") {
      if (failed(planChain(step, options)))
        return failure();
    } else if (strategy == "tensor") {
      FailureOr<std::unique_ptr<OpPlanSpace>> space = OpPlanSpace::build(step);
      if (failed(space))
        return failure();
      planTensors(step, **space, options);
    } else if (strategy == "auto") {
      FailureOr<std::string> chosen = planAutomatically(step, options);
      if (failed(chosen))
        return failure();
      strategy = *chosen;
    } else if (strategy != "none") {
      SmallVector<Stage> stages = findStages(step);
      // selective segments like uniform, then keeps expensive results.
      FailureOr<SmallVector<std::pair<size_t, size_t>>> groups =
          strategy == "sqrt"
              ? sqrtGroups(stages)
              : uniformGroups(stages.size(), options.stagesPerSegment);
      if (failed(groups))
        return failure();
      planStageGroups(stages, *groups, options.describe);
    }
  }
  step->setAttr(CkptDialect::kPlanAttrName,
                StringAttr::get(step.getContext(), strategy));
  if (strategy != "selective")
    return success();
  FailureOr<SmallVector<Operation *>> expensive =
      findExpensiveOps(step, options.selectiveThreshold);
  if (failed(expensive))
    return failure();
  for (Operation *op : *expensive)
    op->setAttr(CkptDialect::kKeepAttrName, UnitAttr::get(op->getContext()));
  return success();
}

SmallVector<Operation *> ckpt::getKeptOpsByGain(func::FuncOp step) {
  SmallVector<Operation *> kept;
  step.walk([&](Operation *op) {
    if (op->hasAttr(CkptDialect::kKeepAttrName) && isa<CostOpInterface>(op))
      kept.push_back(op);
  });
  // FLOPs to make one byte again: the cheapest bytes to recompute first.
  auto flopsPerByte = [](Operation *op) {
    uint64_t bytes = getTotalTensorBytes(op->getResultTypes());
    return static_cast<double>(cast<CostOpInterface>(op).getFlops()) /
           std::max<uint64_t>(bytes, 1);
  };
  llvm::stable_sort(kept, [&](Operation *a, Operation *b) {
    return flopsPerByte(a) < flopsPerByte(b);
  });
  return kept;
}
