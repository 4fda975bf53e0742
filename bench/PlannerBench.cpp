//===- PlannerBench.cpp - time to plan and evaluate a training step -------===//
//
// What ckpt-plan and ckpt-sweep cost on the MLP stack's training step with a
// growing number of blocks (5 ops per block): one strategy applied to a copy
// of the step and its plan evaluated with the memory simulator (what a
// budget check does), and the uniform sweep (one plan per stage count).
// And dp on the GPT-2-style stack (29 ops and 2 stages per block): its
// chain model measured (a simulation per run of stages) and the whole
// Pareto front searched, what ckpt-sweep{strategy=dp} does before it
// simulates each front plan again.
//
//===----------------------------------------------------------------------===//

#include "Gpt2Stack.h"
#include "MlpStack.h"

#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Planner/Recompute.h"
#include "ckpt/Planner/StepChain.h"
#include "ckpt/Planner/Strategies.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <benchmark/benchmark.h>

using namespace mlir;

namespace {

/// The training step of a stack (blocks = the benchmark's argument; the
/// MLP stack unless `model` says otherwise); null, with the benchmark
/// skipped, when it cannot be built.
struct TrainingStep {
  explicit TrainingStep(benchmark::State &state,
                        std::string (*model)(int) = ckpt::bench::mlpStack) {
    context.loadDialect<ckpt::CkptDialect, func::FuncDialect,
                        arith::ArithDialect>();
    module = parseSourceString<ModuleOp>(model(state.range(0)), &context);
    PassManager pm(&context);
    pm.addPass(ckpt::createCkptThreadRngPass());
    ckpt::CkptAutodiffPassOptions options;
    options.keepForward = false;
    pm.addPass(ckpt::createCkptAutodiffPass(options));
    if (!module || failed(pm.run(*module))) {
      state.SkipWithError("the generated MLP stack does not differentiate");
      return;
    }
    step = *(*module).getOps<func::FuncOp>().begin();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp step;
};

void BM_PlanAndEvaluate(benchmark::State &state, const char *strategy) {
  TrainingStep training(state);
  func::FuncOp step = training.step;
  if (!step)
    return;
  ckpt::StrategyOptions options;
  options.strategy = strategy;
  for (auto _ : state) {
    OwningOpRef<func::FuncOp> copy = step.clone();
    if (failed(ckpt::applyStrategy(*copy, options))) {
      state.SkipWithError("planning failed");
      return;
    }
    FailureOr<ckpt::PlanEvaluation> result = ckpt::evaluatePlan(*copy);
    benchmark::DoNotOptimize(result->peak.bytes);
  }
  state.counters["ops"] = 5.0 * state.range(0) + 1;
}

void BM_UniformSweep(benchmark::State &state) {
  TrainingStep training(state);
  func::FuncOp step = training.step;
  if (!step)
    return;
  // One plan per stage count, as ckpt-sweep{strategy=uniform} makes.
  int64_t stages = state.range(0) + 1;
  for (auto _ : state)
    for (int64_t size = 1; size <= stages; ++size) {
      OwningOpRef<func::FuncOp> copy = step.clone();
      ckpt::StrategyOptions options;
      options.strategy = "uniform";
      options.stagesPerSegment = size;
      (void)ckpt::applyStrategy(*copy, options);
      FailureOr<ckpt::PlanEvaluation> result = ckpt::evaluatePlan(*copy);
      benchmark::DoNotOptimize(result->peak.bytes);
    }
  state.counters["plans"] = static_cast<double>(stages);
}

void BM_DpFrontGpt2(benchmark::State &state) {
  TrainingStep training(state, ckpt::bench::gpt2Stack);
  func::FuncOp step = training.step;
  if (!step)
    return;
  size_t stages = 0, plans = 0;
  for (auto _ : state) {
    FailureOr<std::unique_ptr<ckpt::StepChain>> chain =
        ckpt::StepChain::build(step, /*expensiveFlopsPerElement=*/64);
    if (failed(chain)) {
      state.SkipWithError("the chain cannot be measured");
      return;
    }
    stages = (*chain)->getStageCount();
    plans = ckpt::findChainPlans(**chain).size();
  }
  state.counters["stages"] = static_cast<double>(stages);
  state.counters["front"] = static_cast<double>(plans);
}

} // namespace

BENCHMARK_CAPTURE(BM_PlanAndEvaluate, uniform, "uniform")
    ->Arg(12)
    ->Arg(48)
    ->Arg(192)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanAndEvaluate, sqrt, "sqrt")
    ->Arg(12)
    ->Arg(48)
    ->Arg(192)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanAndEvaluate, selective, "selective")
    ->Arg(12)
    ->Arg(48)
    ->Arg(192)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanAndEvaluate, dp, "dp")
    ->Arg(12)
    ->Arg(48)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_UniformSweep)->Arg(12)->Arg(48)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DpFrontGpt2)
    ->Arg(4)
    ->Arg(12)
    ->Arg(48)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
