//===- ChainIlpTest.cpp - the ilp planner against dp and brute force ------===//
//
// On random chain models the program alone must find dp's optimum, for
// random budgets and for the smallest peak; with and without dp's presolve,
// when each plan's measured peak exceeds the model's by a random amount, it
// must find the brute-force optimum of the measure. On random training
// steps with skip connections, cut where up to three activations cross,
// every plan is materialised and simulated: the model must bound each
// plan's simulated peak from below and predict its recompute FLOPs, and
// ilp (both ways), measuring its candidates with the simulator, must find
// the simulator's optimum.
//
//===----------------------------------------------------------------------===//

#include "RandomChains.h"

#include "ckpt/Planner/ChainIlp.h"
#include "ckpt/Planner/Recompute.h"
#include "ckpt/Planner/StepChain.h"
#include "ckpt/Planner/Strategies.h"

#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <map>
#include <tuple>

using namespace mlir;
using namespace ckpt;

namespace {

// The program alone, and after dp's presolve (the planner's way).
const IlpLimits kProgramOnly{/*seconds=*/120, /*nodes=*/0,
                             /*dpPresolve=*/false};
const IlpLimits kPresolved{/*seconds=*/120, /*nodes=*/0, /*dpPresolve=*/true};

TEST(ChainIlpTest, FindsDpsOptimumOfRandomChains) {
  std::mt19937_64 rng(11);
  auto modelPeak = [](const ChainPlan &plan) { return plan.peak; };
  for (int trial = 0; trial < 60; ++trial) {
    size_t stages = 1 + trial % 12;
    RandomChain model(rng, stages);
    std::string what = "model " + std::to_string(trial);

    SmallVector<ChainPlan> front = findChainPlans(model);
    // Brute force: the smallest peak, and the fewest FLOPs at it.
    std::optional<std::pair<int64_t, uint64_t>> lowestPlan;
    Segments enumerated;
    enumeratePlans(model, 0, enumerated, [&](const Segments &segments) {
      std::optional<ChainPlan> scored = evaluateChainPlan(model, segments);
      ASSERT_TRUE(scored);
      std::pair<int64_t, uint64_t> score{scored->peak, scored->flops};
      if (!lowestPlan || score < *lowestPlan)
        lowestPlan = score;
    });
    ASSERT_TRUE(lowestPlan) << what;
    IlpResult smallest =
        findChainPlanIlp(model, std::nullopt, kProgramOnly, modelPeak);
    ASSERT_TRUE(smallest.plan) << what;
    EXPECT_TRUE(smallest.optimal) << what;
    EXPECT_EQ(smallest.plan->peak, lowestPlan->first) << what;
    EXPECT_EQ(smallest.plan->flops, lowestPlan->second) << what;

    int64_t lowest = front.back().peak, highest = front.front().peak;
    std::uniform_int_distribution<int64_t> pick(lowest - (highest - lowest) / 8,
                                                highest);
    for (int draw = 0; draw < 8; ++draw) {
      int64_t budget = pick(rng);
      SmallVector<ChainPlan> dp = findChainPlans(model, budget);
      IlpResult ilp = findChainPlanIlp(model, budget, kProgramOnly, modelPeak);
      EXPECT_TRUE(ilp.optimal) << what << " budget " << budget;
      ASSERT_EQ(dp.empty(), !ilp.plan) << what << " budget " << budget;
      if (dp.empty())
        continue;
      EXPECT_EQ(ilp.plan->flops, dp.front().flops)
          << what << " budget " << budget;
      EXPECT_LE(ilp.plan->peak, budget) << what;
      // The plan's segments cost what it says.
      std::optional<ChainPlan> rescored =
          evaluateChainPlan(model, ilp.plan->segments);
      ASSERT_TRUE(rescored) << what;
      EXPECT_EQ(rescored->peak, ilp.plan->peak) << what;
      EXPECT_EQ(rescored->flops, ilp.plan->flops) << what;
    }
  }
}

/// Every plan's measured peak and FLOPs: the brute-force oracle.
struct MeasuredPlans {
  std::vector<std::pair<int64_t, uint64_t>> plans;
  /// Each plan's measured peak, by its segments.
  std::map<std::vector<std::tuple<size_t, size_t, unsigned>>, int64_t> peaks;

  static std::vector<std::tuple<size_t, size_t, unsigned>>
  key(ArrayRef<PlannedSegment> segments) {
    std::vector<std::tuple<size_t, size_t, unsigned>> key;
    for (const PlannedSegment &segment : segments)
      key.emplace_back(segment.first, segment.last, segment.option);
    return key;
  }
  void add(ArrayRef<PlannedSegment> segments, int64_t peak, uint64_t flops) {
    plans.push_back({peak, flops});
    peaks[key(segments)] = peak;
  }
  /// The measured peak the enumeration found for `segments`.
  std::optional<int64_t> peakOf(ArrayRef<PlannedSegment> segments) const {
    auto it = peaks.find(key(segments));
    if (it == peaks.end())
      return std::nullopt;
    return it->second;
  }

  /// The fewest FLOPs of a plan whose peak fits `budget`, if one does.
  std::optional<uint64_t> cheapestWithin(int64_t budget) const {
    std::optional<uint64_t> cheapest;
    for (auto [peak, flops] : plans)
      if (peak <= budget && (!cheapest || flops < *cheapest))
        cheapest = flops;
    return cheapest;
  }
  int64_t lowestPeak() const { return llvm::min_element(plans)->first; }
  int64_t highestPeak() const { return llvm::max_element(plans)->first; }
};

TEST(ChainIlpTest, CutsOffPlansWhoseMeasuredPeakDoesNotFit) {
  // The measured peak is the model's plus a pseudo-random excess per plan,
  // as where the model only bounds the simulator from below.
  std::mt19937_64 rng(5);
  auto excess = [](ArrayRef<PlannedSegment> segments) {
    uint64_t hash = 1469598103934665603ull;
    for (const PlannedSegment &segment : segments)
      for (uint64_t part :
           {segment.first, segment.last, static_cast<size_t>(segment.option)})
        hash = (hash ^ part) * 1099511628211ull;
    return static_cast<int64_t>(hash % 600);
  };
  auto measure = [&](const ChainPlan &plan) {
    return plan.peak + excess(plan.segments);
  };
  unsigned cutSolves = 0;
  for (int trial = 0; trial < 30; ++trial) {
    size_t stages = 2 + trial % 8;
    RandomChain model(rng, stages);
    std::string what = "model " + std::to_string(trial);
    MeasuredPlans measured;
    Segments plan;
    enumeratePlans(model, 0, plan, [&](const Segments &segments) {
      std::optional<ChainPlan> scored = evaluateChainPlan(model, segments);
      ASSERT_TRUE(scored);
      measured.add(segments, measure(*scored), scored->flops);
    });
    int64_t lowest = measured.lowestPeak();
    std::uniform_int_distribution<int64_t> pick(lowest - 50,
                                                measured.highestPeak());
    for (int draw = 0; draw < 5; ++draw) {
      int64_t budget = draw == 0 ? lowest : pick(rng);
      std::optional<uint64_t> cheapest = measured.cheapestWithin(budget);
      for (const IlpLimits &limits : {kProgramOnly, kPresolved}) {
        IlpResult ilp = findChainPlanIlp(model, budget, limits, measure);
        EXPECT_TRUE(ilp.optimal) << what;
        cutSolves += ilp.solves > 1;
        ASSERT_EQ(!cheapest, !ilp.plan) << what << " budget " << budget;
        if (!cheapest)
          continue;
        EXPECT_EQ(ilp.plan->flops, *cheapest) << what << " budget " << budget;
        // The peak it reports is the one the enumeration measured for the
        // same segments.
        EXPECT_EQ(std::optional<int64_t>(ilp.measuredPeak),
                  measured.peakOf(ilp.plan->segments))
            << what;
        EXPECT_LE(ilp.measuredPeak, budget) << what;
      }
    }
  }
  // Plans were cut off: the loop this test is for ran.
  EXPECT_GT(cutSolves, 0u);
}

TEST(ChainIlpTest, FindsTheSimulatorsOptimumOfRandomSkipSteps) {
  MLIRContext context;
  context.loadDialect<CkptDialect, func::FuncDialect, arith::ArithDialect>();
  std::mt19937_64 rng(2027);
  // Linear layers of 8 inputs count as expensive, so segments may also keep
  // their results.
  const unsigned threshold = 8;
  for (int trial = 0; trial < 12; ++trial) {
    std::string text = randomDagStep(rng, 5 + trial % 5);
    OwningOpRef<ModuleOp> module = buildTrainingStep(context, text);
    ASSERT_TRUE(module) << text;
    auto step = *module->getOps<func::FuncOp>().begin();

    FailureOr<std::unique_ptr<StepChain>> chain =
        StepChain::build(step, threshold, /*maxCrossing=*/3);
    ASSERT_TRUE(succeeded(chain)) << text;
    // A plan written as dp and ilp write it, materialised and simulated.
    auto evaluate = [&](ArrayRef<PlannedSegment> segments) {
      IRMapping mapping;
      OwningOpRef<func::FuncOp> copy = cast<func::FuncOp>(step->clone(mapping));
      writeChainPlan(**chain, mapStages((*chain)->getStages(), mapping),
                     segments, /*describe=*/false);
      return evaluatePlan(*copy);
    };
    auto simulate = [&](const ChainPlan &plan) -> int64_t {
      FailureOr<PlanEvaluation> evaluated = evaluate(plan.segments);
      EXPECT_TRUE(succeeded(evaluated)) << text;
      return succeeded(evaluated) ? static_cast<int64_t>(evaluated->peak.bytes)
                                  : INT64_MAX;
    };

    // Every plan: its simulated peak and FLOPs.
    MeasuredPlans simulated;
    Segments plan;
    enumeratePlans(**chain, 0, plan, [&](const Segments &segments) {
      std::optional<ChainPlan> predicted = evaluateChainPlan(**chain, segments);
      ASSERT_TRUE(predicted);
      FailureOr<PlanEvaluation> evaluated = evaluate(segments);
      ASSERT_TRUE(succeeded(evaluated)) << text;
      int64_t peak = static_cast<int64_t>(evaluated->peak.bytes);
      EXPECT_LE(predicted->peak, peak) << text;
      EXPECT_EQ(predicted->flops, evaluated->cost.recompute.flops) << text;
      simulated.add(segments, peak, predicted->flops);
    });

    int64_t lowest = simulated.lowestPeak();
    std::uniform_int_distribution<int64_t> pick(lowest - 64,
                                                simulated.highestPeak());
    for (int draw = 0; draw < 6; ++draw) {
      int64_t budget = draw == 0 ? lowest : pick(rng);
      std::optional<uint64_t> cheapest = simulated.cheapestWithin(budget);
      for (const IlpLimits &limits : {kProgramOnly, kPresolved}) {
        IlpResult ilp = findChainPlanIlp(**chain, budget, limits, simulate);
        EXPECT_TRUE(ilp.optimal) << text;
        ASSERT_EQ(!cheapest, !ilp.plan) << text << "budget " << budget;
        if (!cheapest)
          continue;
        EXPECT_EQ(ilp.plan->flops, *cheapest) << text << "budget " << budget;
        EXPECT_EQ(std::optional<int64_t>(ilp.measuredPeak),
                  simulated.peakOf(ilp.plan->segments))
            << text;
        EXPECT_LE(ilp.measuredPeak, budget) << text;
      }
    }
  }
}

} // namespace
