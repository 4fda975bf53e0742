//===- Plan.cpp - choose what training steps recompute --------------------===//
//
// Writes each training step's plan with a strategy (Planner/Strategies.h);
// with a budget, checks the plan's simulated peak against it, and lets
// selective give up kept results until the plan fits.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"
#include "ckpt/Planner/Budget.h"
#include "ckpt/Planner/Recompute.h"
#include "ckpt/Planner/Strategies.h"

#include "mlir/IR/BuiltinOps.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTPLANPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace ckpt

using namespace mlir;
using namespace ckpt;

namespace {

struct CkptPlanPass : public ckpt::impl::CkptPlanPassBase<CkptPlanPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    options = {strategy, stagesPerSegment, selectiveThreshold, remarks};
    options.stageCrossings = stageCrossings;
    options.ilpSeconds = ilpSeconds;
    options.ilpNodes = ilpNodes;
    options.ilpMaxStages = ilpMaxStages;
    options.ilpPresolve = ilpPresolve;
    options.microbatchesInFlight = microbatchesInFlight;
    if (std::string error = checkStrategyOptions(options); !error.empty()) {
      module.emitError() << error;
      return signalPassFailure();
    }
    if (!budget.empty()) {
      std::string error;
      options.budget = parseByteSize(budget, error);
      if (!options.budget) {
        module.emitError() << error;
        return signalPassFailure();
      }
    }
    for (auto step : module.getOps<func::FuncOp>()) {
      if (!step->hasAttr(CkptDialect::kTrainingStepAttrName))
        continue;
      if (failed(applyStrategy(step, options)) ||
          (options.budget && failed(fitBudget(step))))
        return signalPassFailure();
      // The report names the budget the plan was made for (beyond 2^63 - 1
      // bytes, no budget binds).
      if (options.budget)
        step->setAttr(CkptDialect::kBudgetAttrName,
                      IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                       static_cast<int64_t>(std::min<uint64_t>(
                                           *options.budget, INT64_MAX))));
      else
        step->removeAttr(CkptDialect::kBudgetAttrName);
      if (microbatchesInFlight > 1)
        step->setAttr(CkptDialect::kMicrobatchesInFlightAttrName,
                      IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                       microbatchesInFlight));
      else
        step->removeAttr(CkptDialect::kMicrobatchesInFlightAttrName);
    }
  }

  /// The plan's simulated peak (with the microbatches in flight) must fit
  /// the budget. Selective gives up
  /// kept results, cheapest to recompute per byte first (a greedy
  /// knapsack), simulating after each; every other strategy makes one
  /// plan (dp its smallest peak when none fits), so its peak is the
  /// smallest budget it meets.
  LogicalResult fitBudget(func::FuncOp step) {
    SmallVector<Operation *> kept;
    if (strategy == "selective")
      kept = getKeptOpsByGain(step);
    // What the step records: auto's choice, or manual for auto on the
    // user's own plan.
    std::string planned =
        step->getAttrOfType<StringAttr>(CkptDialect::kPlanAttrName).str();
    uint64_t smallest = UINT64_MAX;
    for (size_t dropped = 0;; ++dropped) {
      FailureOr<PlanEvaluation> plan = evaluatePlan(step);
      if (failed(plan))
        return failure();
      uint64_t peak = plan->peak.getPeakWithMicrobatches(microbatchesInFlight);
      if (peak <= *options.budget) {
        if (remarks) {
          InFlightDiagnostic remark = step.emitRemark();
          remark << "strategy '" << planned << "': simulated peak "
                 << formatBytes(peak) << inFlight() << " within the budget of "
                 << formatBytes(*options.budget);
          if (!kept.empty())
            remark << ", keeping " << kept.size() - dropped << " of "
                   << kept.size() << " expensive results";
        }
        return success();
      }
      smallest = std::min(smallest, peak);
      if (dropped == kept.size())
        return step.emitOpError()
               << "strategy '" << planned << "' plans a simulated peak of "
               << formatBytes(peak) << inFlight() << ", above the budget of "
               << formatBytes(*options.budget)
               << "; the smallest budget this strategy meets is " << smallest
               << " B";
      kept[dropped]->removeAttr(CkptDialect::kKeepAttrName);
    }
  }

  /// How a peak with microbatches in flight is named in diagnostics.
  std::string inFlight() const {
    if (microbatchesInFlight <= 1)
      return "";
    return " with " + std::to_string(microbatchesInFlight) +
           " microbatches in flight";
  }

  StrategyOptions options;
};

} // namespace
