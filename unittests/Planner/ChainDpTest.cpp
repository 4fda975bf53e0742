//===- ChainDpTest.cpp - the dp planner against brute force ---------------===//
//
// Two oracles. On random chain models, every plan is enumerated and
// scored by evaluateChainPlan; the search must find the same Pareto front
// and, for random budgets, the same cheapest fitting plan. On random
// heterogeneous training steps of up to 12 stages, every plan (segments that
// recompute everything or keep the expensive linear layers' results) is
// written as segments, materialised and run through the memory simulator:
// the model measured from the step must predict each plan's simulated peak
// and recompute FLOPs exactly, and dp must find the simulator's optimum.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Planner/ChainDp.h"
#include "RandomChains.h"
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

#include <limits>
#include <set>
#include <random>

using namespace mlir;
using namespace ckpt;

namespace {

struct Scored {
  int64_t peak;
  uint64_t flops;
};

/// The Pareto front of `plans` as (FLOPs, peak) pairs, by increasing FLOPs.
std::vector<std::pair<uint64_t, int64_t>> frontOf(std::vector<Scored> plans) {
  llvm::sort(plans, [](const Scored &a, const Scored &b) {
    return std::tie(a.flops, a.peak) < std::tie(b.flops, b.peak);
  });
  std::vector<std::pair<uint64_t, int64_t>> front;
  for (const Scored &plan : plans)
    if (front.empty() || plan.peak < front.back().second)
      front.push_back({plan.flops, plan.peak});
  return front;
}

/// The cheapest plan with peak within `budget`: its FLOPs, if any fits.
std::optional<uint64_t> cheapestWithin(const std::vector<Scored> &plans,
                                       int64_t budget) {
  std::optional<uint64_t> best;
  for (const Scored &plan : plans)
    if (plan.peak <= budget && (!best || plan.flops < *best))
      best = plan.flops;
  return best;
}

/// Checks dp against the scored enumeration: the whole front, and the
/// cheapest plan for budgets drawn between the smallest and largest peak.
void checkAgainst(const ChainModel &model, const std::vector<Scored> &plans,
                  std::mt19937_64 &rng, const std::string &what) {
  std::vector<std::pair<uint64_t, int64_t>> expected = frontOf(plans);
  SmallVector<ChainPlan> front = findChainPlans(model);
  std::vector<std::pair<uint64_t, int64_t>> found;
  for (const ChainPlan &plan : front) {
    found.push_back({plan.flops, plan.peak});
    // Each plan's segments score what the plan says.
    std::optional<ChainPlan> rescored = evaluateChainPlan(model, plan.segments);
    ASSERT_TRUE(rescored) << what;
    EXPECT_EQ(rescored->peak, plan.peak) << what;
    EXPECT_EQ(rescored->flops, plan.flops) << what;
  }
  EXPECT_EQ(found, expected) << what;
  // The smallest peak, found alone.
  EXPECT_EQ(findLowestChainPeak(model), expected.back().second) << what;

  int64_t lowest = expected.back().second, highest = expected.front().second;
  std::uniform_int_distribution<int64_t> pick(lowest - (highest - lowest) / 8,
                                              highest);
  for (int trial = 0; trial < 40; ++trial) {
    int64_t budget = trial == 0 ? lowest : pick(rng);
    std::optional<uint64_t> best = cheapestWithin(plans, budget);
    SmallVector<ChainPlan> chosen = findChainPlans(model, budget);
    ASSERT_EQ(chosen.empty(), !best) << what << " budget " << budget;
    if (!best)
      continue;
    EXPECT_EQ(chosen.front().flops, *best) << what << " budget " << budget;
    EXPECT_LE(chosen.front().peak, budget) << what;
    // The plan's segments cost what it says.
    std::optional<ChainPlan> rescored =
        evaluateChainPlan(model, chosen.front().segments);
    ASSERT_TRUE(rescored) << what;
    EXPECT_EQ(rescored->flops, chosen.front().flops) << what;
  }
}

TEST(ChainDpTest, FindsTheBruteForceOptimumOfRandomModels) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    size_t stages = 1 + trial % 12;
    RandomChain model(rng, stages);
    std::vector<Scored> plans;
    Segments plan;
    enumeratePlans(model, 0, plan, [&](const Segments &segments) {
      std::optional<ChainPlan> scored = evaluateChainPlan(model, segments);
      ASSERT_TRUE(scored);
      plans.push_back({scored->peak, scored->flops});
    });
    checkAgainst(model, plans, rng, "model " + std::to_string(trial));
  }
}

/// The plan of `front` with the fewest FLOPs whose peak is within `budget`
/// (found by scanning them all), or null.
template <typename Bytes>
const ChainPlan *cheapestFrontPlanWithin(ArrayRef<ChainPlan> front,
                                         Bytes budget) {
  const ChainPlan *best = nullptr;
  for (const ChainPlan &plan : front)
    if (plan.peak <= budget && (!best || plan.flops < best->flops))
      best = &plan;
  return best;
}

/// Calls `check(trial, model, front)` with dp's whole front of each of
/// `trials` random chains too long to enumerate (20 stages, 5 more a trial).
template <typename Check>
void forLongChainFronts(uint64_t seed, int trials, Check check) {
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < trials; ++trial) {
    RandomChain model(rng, 20 + 5 * trial);
    SmallVector<ChainPlan> front = findChainPlans(model);
    ASSERT_FALSE(front.empty());
    check(trial, model, front);
  }
}

// Chains too long to enumerate: every budget is answered as the whole front
// answers it (the front search and the budgeted one bound the slack of
// each boundary differently), including budgets exactly at a front plan's
// peak and just below.
TEST(ChainDpTest, AnswersEveryBudgetAsTheFrontDoes) {
  forLongChainFronts(11, 12, [](int trial, const RandomChain &model,
                                ArrayRef<ChainPlan> front) {
    // The largest budget there is must not overflow the slack bounds.
    std::vector<int64_t> budgets = {std::numeric_limits<int64_t>::max()};
    for (const ChainPlan &plan : front) {
      budgets.push_back(plan.peak);
      budgets.push_back(plan.peak - 1);
    }
    for (int64_t budget : budgets) {
      std::string what = "chain " + std::to_string(trial) + " budget " +
                         std::to_string(budget);
      const ChainPlan *best = cheapestFrontPlanWithin(front, budget);
      SmallVector<ChainPlan> chosen = findChainPlans(model, budget);
      ASSERT_EQ(chosen.empty(), !best) << what;
      if (!best)
        continue;
      EXPECT_EQ(chosen.front().flops, best->flops) << what;
      std::optional<ChainPlan> rescored =
          evaluateChainPlan(model, chosen.front().segments);
      ASSERT_TRUE(rescored) << what;
      EXPECT_EQ(rescored->peak, chosen.front().peak) << what;
      EXPECT_LE(rescored->peak, budget) << what;
      EXPECT_EQ(rescored->flops, chosen.front().flops) << what;
    }
  });
}

// A thinned front keeps, for each of its evenly spaced peaks, the plan the
// whole front would take within it (found here by scanning every plan), and
// nothing else.
TEST(ChainDpTest, ThinsTheFrontToTheCheapestPlanWithinEachSpacedPeak) {
  forLongChainFronts(13, 8, [](int trial, const RandomChain &,
                               ArrayRef<ChainPlan> front) {
    EXPECT_EQ(thinChainPlans(front, 0).size(), front.size());
    for (size_t most : {size_t(2), size_t(3), size_t(7), size_t(40),
                        front.size(), front.size() + 1}) {
      std::string what = "chain " + std::to_string(trial) + " thinned to " +
                         std::to_string(most);
      SmallVector<ChainPlan> thinned = thinChainPlans(front, most);
      ASSERT_FALSE(thinned.empty()) << what;
      EXPECT_LE(thinned.size(), std::min(most, front.size())) << what;
      EXPECT_EQ(thinned.front().flops, front.front().flops) << what;
      EXPECT_EQ(thinned.back().peak, front.back().peak) << what;
      std::set<std::pair<uint64_t, int64_t>> expected;
      double highest = double(front.front().peak);
      double lowest = double(front.back().peak);
      for (size_t step = 0; step < std::min(most, front.size()); ++step) {
        double peak = most >= front.size()
                          ? double(front[step].peak)
                          : highest - (highest - lowest) * double(step) /
                                          double(most - 1);
        const ChainPlan *best = cheapestFrontPlanWithin(front, peak);
        ASSERT_TRUE(best) << what;
        expected.insert({best->flops, best->peak});
      }
      std::set<std::pair<uint64_t, int64_t>> found;
      for (const ChainPlan &plan : thinned)
        found.insert({plan.flops, plan.peak});
      EXPECT_EQ(found, expected) << what;
      EXPECT_EQ(found.size(), thinned.size()) << what;
    }
  });
}

/// A random chain of `stages` stages (at least 2) on a batch of 4 rows:
/// linear layers to random widths, each followed (but for the last when
/// `stages` is even) by one of gelu, tanh, relu, a residual tanh block or a
/// layer norm; a stage ends after each linear layer and each of those; the
/// mean loss is the last stage. Prints after some linear layers are stages
/// of their own, kept by every plan.
std::string randomStep(std::mt19937_64 &rng, int stages) {
  int linears = stages / 2, activations = (stages - 1) / 2;
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  const int widths[] = {4, 8, 12, 16, 24, 32};
  std::vector<int> width = {widths[pick(6)]};
  for (int i = 0; i < linears; ++i)
    width.push_back(widths[pick(6)]);
  auto act = [&](int w) { return "tensor<4x" + std::to_string(w) + "xf32>"; };
  std::string text = "func.func @chain(%x: " + act(width[0]);
  for (int i = 0; i < linears; ++i)
    text += ", %w" + std::to_string(i) + ": tensor<" +
            std::to_string(width[i + 1]) + "x" + std::to_string(width[i]) +
            "xf32> {ckpt.param}";
  text += ") -> tensor<f32> {\n";
  std::string x = "%x";
  for (int i = 0; i < linears; ++i) {
    std::string n = std::to_string(i), out = act(width[i + 1]);
    text += "  %h" + n + " = ckpt.linear " + x + ", %w" + n + " : (" +
            act(width[i]) + ", tensor<" + std::to_string(width[i + 1]) + "x" +
            std::to_string(width[i]) + "xf32>) -> " + out + "\n";
    std::string h = "%h" + n, y = "%y" + n;
    // Sometimes an op that may not be recomputed: a stage of its own.
    if (pick(3) == 0)
      text += "  ckpt.print " + h + " : " + out + "\n";
    x = h;
    if (i == activations)
      break;
    switch (pick(5)) {
    case 0:
      text += "  " + y + " = ckpt.gelu " + h + " : " + out + "\n";
      break;
    case 1:
      text += "  " + y + " = ckpt.tanh " + h + " : " + out + "\n";
      break;
    case 2:
      text += "  " + y + " = ckpt.relu " + h + " : " + out + "\n";
      break;
    case 3:
      text += "  %t" + n + " = ckpt.tanh " + h + " : " + out + "\n";
      text += "  " + y + " = ckpt.add " + h + ", %t" + n + " : " + out + "\n";
      break;
    default:
      text += "  " + y + ", %m" + n + ", %r" + n + " = ckpt.layer_norm " + h +
              " normalized_shape = [" + std::to_string(width[i + 1]) + "] : (" +
              out + ") -> (" + out + ", tensor<4x1xf32>, " +
              "tensor<4x1xf32>)\n";
    }
    x = y;
  }
  text += "  %loss = ckpt.reduce_mean " + x + " : " + act(width[linears]) +
          " -> tensor<f32>\n  return %loss : tensor<f32>\n}\n";
  return text;
}

TEST(ChainDpTest, FindsTheSimulatorsOptimumOfRandomSteps) {
  MLIRContext context;
  context.loadDialect<CkptDialect, func::FuncDialect, arith::ArithDialect>();
  std::mt19937_64 rng(2026);
  for (int stages : {2, 3, 5, 8, 12}) {
    std::string text = randomStep(rng, stages);
    OwningOpRef<ModuleOp> module = buildTrainingStep(context, text);
    ASSERT_TRUE(module) << text;
    auto step = *module->getOps<func::FuncOp>().begin();

    // Linear layers with 12 or more inputs count as expensive (2 FLOPs per
    // input per element), so some segments may also keep their results.
    const unsigned threshold = 16;
    FailureOr<std::unique_ptr<StepChain>> chain =
        StepChain::build(step, threshold);
    ASSERT_TRUE(succeeded(chain)) << text;
    size_t count = (*chain)->getStageCount();
    ASSERT_GE(count, static_cast<size_t>(stages)) << text;

    std::vector<Scored> plans;
    Segments plan;
    bool exact = true;
    enumeratePlans(**chain, 0, plan, [&](const Segments &segments) {
      IRMapping mapping;
      OwningOpRef<func::FuncOp> copy = cast<func::FuncOp>(step->clone(mapping));
      writeChainPlan(**chain, mapStages((*chain)->getStages(), mapping),
                     segments, /*describe=*/false);
      FailureOr<PlanEvaluation> simulated = evaluatePlan(*copy);
      ASSERT_TRUE(succeeded(simulated));
      Scored scored{static_cast<int64_t>(simulated->peak.bytes),
                    simulated->cost.recompute.flops};
      std::optional<ChainPlan> predicted = evaluateChainPlan(**chain, segments);
      ASSERT_TRUE(predicted);
      if (exact && (predicted->peak != scored.peak ||
                    predicted->flops != scored.flops)) {
        exact = false;
        ADD_FAILURE() << "model predicts " << predicted->peak << " B, "
                      << predicted->flops << " FLOPs; simulator finds "
                      << scored.peak << " B, " << scored.flops
                      << " FLOPs; plan of " << segments.size()
                      << " segments, first at stage "
                      << (segments.empty() ? 0 : segments[0].first) << "\n"
                      << text;
      }
      plans.push_back(std::move(scored));
    });
    checkAgainst(**chain, plans, rng,
                 "step of " + std::to_string(count) + " stages");
  }
}

} // namespace
