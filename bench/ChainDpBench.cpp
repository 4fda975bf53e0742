//===- ChainDpBench.cpp - the dp search on long chains --------------------===//
//
// How the dp search scales with the chain: chains of 10 to 10000 stages in
// the spirit of Rotor's model (each stage keeps its output and some internal
// tensors and needs a workspace; a segment frees its internal tensors and
// inner outputs for the stages above and holds them again while its
// backward runs), planned for 100 budgets from the every-stage-a-segment
// peak to the keep-everything peak, and the whole Pareto front in one
// search. Two families: a transformer-like chain (attention and MLP stages
// alternating, every block alike, as in the bundled stacks) and random
// heterogeneous stages, the search's worst case (more distinct partial
// plans survive).
//
//===----------------------------------------------------------------------===//

#include "ckpt/Planner/ChainDp.h"

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

namespace {

class SyntheticChain : public ckpt::ChainModel {
public:
  SyntheticChain(size_t stages, bool heterogeneous) {
    std::mt19937_64 rng(stages);
    std::uniform_int_distribution<int64_t> random(1, 64);
    // Alike blocks: attention stages (17, 3, 40, 8) and MLP stages (48, 1,
    // 16, 24) for (internal, output, workspace, flops).
    size_t draw = 0;
    auto bytes = [&](std::mt19937_64 &) -> int64_t {
      static const int64_t alike[] = {17, 3, 40, 8, 48, 1, 16, 24};
      return heterogeneous ? random(rng) : alike[draw++ % 8];
    };
    keptThrough.push_back(0);
    internalThrough.push_back(0);
    outputThrough.push_back(0);
    flopsThrough.push_back(0);
    for (size_t stage = 0; stage < stages; ++stage) {
      int64_t internal = bytes(rng) << 20, output = bytes(rng) << 18;
      workspace.push_back(bytes(rng) << 19);
      internalThrough.push_back(internalThrough.back() + internal);
      outputThrough.push_back(outputThrough.back() + output);
      keptThrough.push_back(keptThrough.back() + internal + output);
      flopsThrough.push_back(flopsThrough.back() + (bytes(rng) << 30));
    }
    // Range maxima of the workspace in O(1): a sparse table.
    maxWorkspace.push_back(workspace);
    for (size_t width = 1; 2 * width <= stages; width *= 2) {
      const std::vector<int64_t> &half = maxWorkspace.back();
      std::vector<int64_t> next;
      for (size_t first = 0; first + 2 * width <= stages; ++first)
        next.push_back(std::max(half[first], half[first + width]));
      maxWorkspace.push_back(std::move(next));
    }
  }
  size_t getStageCount() const override { return workspace.size(); }
  int64_t getKeptPeak(size_t stage) const override {
    return kBase + keptThrough[stage + 1] + workspace[stage];
  }
  llvm::SmallVector<ckpt::ChainSegment, 2>
  getSegmentOptions(size_t first, size_t last) const override {
    size_t level = 63 - __builtin_clzll(last - first + 1);
    int64_t workspaceMax =
        std::max(maxWorkspace[level][first],
                 maxWorkspace[level][last + 1 - (size_t(1) << level)]);
    return {ckpt::ChainSegment{
        kBase + keptThrough[last + 1] + workspaceMax,
        internalThrough[last + 1] - internalThrough[first] +
            outputThrough[last] - outputThrough[first],
        flopsThrough[last + 1] - flopsThrough[first]}};
  }

  // Peaks grow with the run.
  int64_t getLowestPeakFrom(size_t first, size_t last) const override {
    return getSegmentOptions(first, last).front().peak;
  }

private:
  static constexpr int64_t kBase = int64_t(1) << 30;
  std::vector<int64_t> keptThrough, internalThrough, outputThrough,
      workspace;
  std::vector<uint64_t> flopsThrough;
  std::vector<std::vector<int64_t>> maxWorkspace;
};

/// 100 budgets from the every-stage-a-segment peak to keeping everything.
std::vector<int64_t> budgetsFor(const SyntheticChain &chain) {
  llvm::SmallVector<ckpt::PlannedSegment> singles;
  for (size_t stage = 0; stage < chain.getStageCount(); ++stage)
    singles.push_back({stage, stage});
  int64_t low = ckpt::evaluateChainPlan(chain, singles)->peak;
  int64_t high = ckpt::evaluateChainPlan(chain, {})->peak;
  std::vector<int64_t> budgets;
  for (int point = 0; point < 100; ++point)
    budgets.push_back(low + (high - low) * point / 99);
  return budgets;
}

void BM_DpBudgets(benchmark::State &state) {
  SyntheticChain chain(state.range(0), state.range(1));
  std::vector<int64_t> budgets = budgetsFor(chain);
  for (auto _ : state)
    for (int64_t budget : budgets)
      benchmark::DoNotOptimize(ckpt::findChainPlans(chain, budget));
  state.counters["budgets"] = static_cast<double>(budgets.size());
}

void BM_DpFront(benchmark::State &state) {
  SyntheticChain chain(state.range(0), state.range(1));
  size_t plans = 0;
  for (auto _ : state)
    plans = ckpt::findChainPlans(chain).size();
  state.counters["front"] = static_cast<double>(plans);
}

} // namespace

// Arguments: stages, heterogeneous.
BENCHMARK(BM_DpBudgets)
    ->ArgNames({"stages", "random"})
    ->Args({10, 0})
    ->Args({100, 0})
    ->Args({1000, 0})
    ->Args({10000, 0})
    ->Args({10, 1})
    ->Args({100, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DpFront)
    ->ArgNames({"stages", "random"})
    ->Args({10, 0})
    ->Args({100, 0})
    ->Args({1000, 0})
    ->Args({10, 1})
    ->Args({100, 1})
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
