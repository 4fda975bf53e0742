//===- Sweep.cpp - every plan of a strategy: peak against FLOPs -----------===//
//
// Applies a strategy's plans to copies of each training step, evaluates each
// with the memory simulator and the cost model, marks the Pareto front and
// writes the points as JSON (and the front as SVG). Read-only.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Dialect/Ckpt/Transforms/TorchCalls.h"

#include "ckpt/Analysis/SvgChart.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Planner/Recompute.h"
#include "ckpt/Planner/Segments.h"
#include "ckpt/Planner/StepChain.h"
#include "ckpt/Planner/Strategies.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTSWEEPPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace ckpt

using namespace mlir;
using namespace ckpt;

namespace {

struct SweepPoint {
  std::string setting;
  uint64_t peak;
  uint64_t peakWithoutGradients;
  uint64_t recomputeFlops;
  double recomputePercent;
  bool pareto = false;
  /// With torch-plans: the plan's dropped outputs of PyTorch's op calls and
  /// its kept values PyTorch cannot keep as planned.
  std::optional<llvm::json::Value> torchPlan;
};

struct StepSweep {
  std::string function;
  SmallVector<SweepPoint> points;
  /// With torch-plans: what every point's plan for PyTorch shares (its op
  /// calls and the outputs no plan may drop).
  std::optional<llvm::json::Value> torchPlan;
};

/// A dp plan's segments as ranges of its chain's stages, numbered from 0
/// as ckpt-plan's remarks number them, `:keep>N` where the segment keeps
/// the results of ops above N FLOPs per element: `2-4,7:keep>64`, or
/// `none`.
std::string describeSegments(const StepChain &chain, const ChainPlan &plan) {
  if (plan.segments.empty())
    return "none";
  std::string text;
  for (const PlannedSegment &segment : plan.segments) {
    if (!text.empty())
      text += ",";
    text += std::to_string(segment.first);
    if (segment.last != segment.first)
      text += "-" + std::to_string(segment.last);
    if (std::optional<unsigned> threshold = chain.getKeepThreshold(segment))
      text += ":keep>" + std::to_string(*threshold);
  }
  return text;
}

struct CkptSweepPass : public ckpt::impl::CkptSweepPassBase<CkptSweepPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    StrategyOptions options{strategy, 1, selectiveThreshold, false};
    if (std::string error = checkStrategyOptions(options); !error.empty()) {
      module.emitError() << error;
      return signalPassFailure();
    }
    if (points == 1) {
      module.emitError("points=1 leaves no spread: give at least 2");
      return signalPassFailure();
    }
    if (points != 0 && strategy != "dp") {
      module.emitError() << "points=" << points.getValue()
                         << " thins dp's front; strategy '" << strategy
                         << "' has no front to thin";
      return signalPassFailure();
    }
    // Every plan would repeat the same remarks about ops kept outside.
    ScopedDiagnosticHandler quiet(&getContext(), [](Diagnostic &diag) {
      return success(diag.getSeverity() == DiagnosticSeverity::Remark);
    });
    std::optional<TorchCalls> calls;
    if (torchPlans) {
      FailureOr<TorchCalls> read = readTorchCalls(module);
      if (failed(read))
        return signalPassFailure();
      calls = std::move(*read);
    }
    SmallVector<StepSweep> sweeps;
    for (auto step : module.getOps<func::FuncOp>()) {
      if (!step->hasAttr(CkptDialect::kTrainingStepAttrName))
        continue;
      FailureOr<StepSweep> sweep =
          sweepStep(step, options, calls ? &*calls : nullptr);
      if (failed(sweep))
        return signalPassFailure();
      sweeps.push_back(std::move(*sweep));
    }
    if (sweeps.empty()) {
      module.emitError("no training step to sweep; run ckpt-autodiff first");
      return signalPassFailure();
    }
    // Both files open before either is kept: a failure leaves neither.
    std::unique_ptr<llvm::ToolOutputFile> json =
        openFile(module, output, "sweep");
    if (!json)
      return signalPassFailure();
    std::unique_ptr<llvm::ToolOutputFile> plot;
    if (!svg.empty() && !(plot = openFile(module, svg, "sweep plot")))
      return signalPassFailure();
    writeJson(json->os(), sweeps);
    json->keep();
    if (plot) {
      writeSvg(plot->os(), sweeps);
      plot->keep();
    }
    markAllAnalysesPreserved();
  }

  FailureOr<StepSweep> sweepStep(func::FuncOp step,
                                 const StrategyOptions &options,
                                 const TorchCalls *calls) {
    StepSweep sweep{step.getSymName().str(), {}, std::nullopt};
    auto evaluate = [&](func::FuncOp planned,
                        std::string setting) -> LogicalResult {
      OwningOpRef<func::FuncOp> materialized = planned.clone();
      if (failed(materializePlan(*materialized)))
        return failure();
      FailureOr<PlanEvaluation> result =
          evaluateMaterializedPlan(*materialized);
      if (failed(result))
        return failure();
      uint64_t forward = std::max<uint64_t>(result->cost.forward.flops, 1);
      SweepPoint &point = sweep.points.emplace_back(SweepPoint{
          std::move(setting), result->peak.bytes,
          result->peak.bytesWithoutGradients, result->cost.recompute.flops,
          100.0 * result->cost.recompute.flops / forward});
      if (!calls)
        return success();
      FailureOr<SavedTensorAnalysis> saved =
          SavedTensorAnalysis::compute(*materialized);
      if (failed(saved))
        return failure();
      llvm::json::Object plan = exportOpsPlan(*materialized, *calls, *saved);
      // What every point shares goes once, with the step.
      llvm::json::Object shared;
      for (StringRef field : {"format", "version", "function", "step",
                              "executor", "ops", "ops_sha256", "fixed"})
        if (llvm::json::Value *value = plan.get(field)) {
          shared[field] = std::move(*value);
          plan.erase(field);
        }
      sweep.torchPlan = llvm::json::Value(std::move(shared));
      point.torchPlan = llvm::json::Value(std::move(plan));
      return success();
    };

    if (strategy == "uniform") {
      OwningOpRef<func::FuncOp> flat = step.clone();
      inlineAllSegments(*flat);
      size_t stages = findStages(*flat).size();
      for (size_t size = 1; size <= stages; ++size) {
        OwningOpRef<func::FuncOp> copy = step.clone();
        StrategyOptions uniform = options;
        uniform.stagesPerSegment = size;
        if (failed(applyStrategy(*copy, uniform)) ||
            failed(
                evaluate(*copy, "stages-per-segment=" + std::to_string(size))))
          return failure();
      }
    } else if (strategy == "dp") {
      OwningOpRef<func::FuncOp> flat = step.clone();
      inlineAllSegments(*flat);
      FailureOr<std::unique_ptr<StepChain>> chain =
          StepChain::build(*flat, selectiveThreshold);
      if (failed(chain))
        return failure();
      for (const ChainPlan &plan :
           thinChainPlans(findChainPlans(**chain), points)) {
        IRMapping mapping;
        OwningOpRef<func::FuncOp> copy =
            cast<func::FuncOp>((*flat)->clone(mapping));
        writeChainPlan(**chain, mapStages((*chain)->getStages(), mapping),
                       plan.segments, /*describe=*/false);
        if (failed(
                evaluate(*copy, "segments=" + describeSegments(**chain, plan))))
          return failure();
      }
    } else {
      OwningOpRef<func::FuncOp> copy = step.clone();
      if (failed(applyStrategy(*copy, options)))
        return failure();
      SmallVector<Operation *> kept = getKeptOpsByGain(*copy);
      for (size_t dropped = 0; dropped <= kept.size(); ++dropped) {
        std::string setting =
            strategy == "selective"
                ? "kept=" + std::to_string(kept.size() - dropped)
                : strategy;
        if (failed(evaluate(*copy, setting)))
          return failure();
        if (dropped < kept.size())
          kept[dropped]->removeAttr(CkptDialect::kKeepAttrName);
      }
    }

    // The front: by FLOPs, then peak; a point is on it when its peak is
    // below every cheaper point's.
    SmallVector<SweepPoint *> order = llvm::map_to_vector(
        sweep.points, [](SweepPoint &point) { return &point; });
    llvm::stable_sort(order, [](SweepPoint *a, SweepPoint *b) {
      return std::tie(a->recomputeFlops, a->peak) <
             std::tie(b->recomputeFlops, b->peak);
    });
    uint64_t lowest = UINT64_MAX;
    for (SweepPoint *point : order)
      if (point->peak < lowest) {
        point->pareto = true;
        lowest = point->peak;
      }
    return sweep;
  }

  void writeJson(raw_ostream &os, ArrayRef<StepSweep> sweeps) {
    llvm::json::Array steps;
    for (const StepSweep &sweep : sweeps) {
      llvm::json::Array points;
      for (const SweepPoint &point : sweep.points)
        points.push_back(llvm::json::Object{
            {"setting", point.setting},
            {"peak_bytes", static_cast<int64_t>(point.peak)},
            {"peak_bytes_without_gradients",
             static_cast<int64_t>(point.peakWithoutGradients)},
            {"recompute_flops", static_cast<int64_t>(point.recomputeFlops)},
            {"recompute_percent_of_forward", point.recomputePercent},
            {"pareto", point.pareto}});
      for (auto [point, json] : llvm::zip(sweep.points, points))
        if (point.torchPlan)
          (*json.getAsObject())["torch_plan"] = *point.torchPlan;
      llvm::json::Object step{{"function", sweep.function},
                              {"strategy", strategy.getValue()},
                              {"points", std::move(points)}};
      if (sweep.torchPlan)
        step["torch_plan"] = *sweep.torchPlan;
      steps.push_back(std::move(step));
    }
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(steps))) << "\n";
  }

  void writeSvg(raw_ostream &os, ArrayRef<StepSweep> sweeps) {
    SmallVector<ChartSeries> series;
    for (const StepSweep &sweep : sweeps) {
      SmallVector<const SweepPoint *> front;
      for (const SweepPoint &point : sweep.points)
        if (point.pareto)
          front.push_back(&point);
      llvm::sort(front, [](const SweepPoint *a, const SweepPoint *b) {
        return a->recomputePercent < b->recomputePercent;
      });
      ChartSeries line{"@" + sweep.function + " " + strategy.getValue() +
                           " Pareto front",
                       {},
                       {}};
      for (const SweepPoint *point : front) {
        line.bytes.push_back(point->peak);
        line.x.push_back(point->recomputePercent);
      }
      series.push_back(std::move(line));
    }
    writeByteChartSvg(os, "simulated peak per plan",
                      "extra forward FLOPs (% of one forward)", series);
  }

  /// Opens `path` for writing, or reports at `module` why it cannot.
  std::unique_ptr<llvm::ToolOutputFile>
  openFile(ModuleOp module, StringRef path, StringRef what) {
    std::string message;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &message);
    if (!file)
      module.emitError() << "cannot write the " << what << " to '" << path
                         << "': " << message;
    return file;
  }
};

} // namespace
