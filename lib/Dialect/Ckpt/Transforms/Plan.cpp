//===- Plan.cpp - choose what training steps recompute --------------------===//
//
// Writes each training step's plan as checkpoint segments, by strategy:
// the user's segments (manual), none, or uniform groups of stages.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/Recomputability.h"
#include "ckpt/Planner/Segments.h"

#include "mlir/IR/BuiltinOps.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTPLANPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace ckpt

using namespace mlir;
using namespace ckpt;

/// Ops a strategy may put in a segment: recomputable, and exchanging only
/// tensors and random state with the rest of the step. Empty when it may,
/// else why not.
static std::string whyNotSegmentable(Operation *op) {
  std::string reason = whyNotRecomputable(op);
  if (!reason.empty())
    return reason;
  auto isSegmentValue = [](Type type) {
    return isa<RankedTensorType, RngType>(type);
  };
  if (!llvm::all_of(op->getOperandTypes(), isSegmentValue) ||
      !llvm::all_of(op->getResultTypes(), isSegmentValue))
    return "takes or makes values other than tensors and random state";
  return "";
}

/// One segment per `stagesPerSegment` consecutive stages; ops that may not
/// be recomputed split a segment and stay outside it.
static void planUniform(func::FuncOp step, unsigned stagesPerSegment) {
  inlineAllSegments(step);
  SmallVector<SmallVector<Operation *>> stages = findStages(step);
  SmallVector<std::pair<SmallVector<Operation *>, std::string>> runs;
  for (size_t first = 0; first < stages.size(); first += stagesPerSegment) {
    size_t last = std::min(first + stagesPerSegment, stages.size()) - 1;
    std::string name =
        first == last ? ("stage " + Twine(first)).str()
                      : ("stages " + Twine(first) + " to " + Twine(last)).str();
    runs.push_back({{}, name});
    for (size_t stage = first; stage <= last; ++stage)
      for (Operation *op : stages[stage]) {
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
    segment->emitRemark() << "segment " << index << " of " << runs.size()
                          << ": " << run.second << ", " << run.first.size()
                          << " ops";
  }
}

namespace {

struct CkptPlanPass : public ckpt::impl::CkptPlanPassBase<CkptPlanPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (strategy != "manual" && strategy != "none" && strategy != "uniform") {
      module.emitError() << "unknown planning strategy '" << strategy
                         << "'; expected manual, none or uniform";
      return signalPassFailure();
    }
    if (stagesPerSegment == 0) {
      module.emitError() << "stages-per-segment must be at least 1";
      return signalPassFailure();
    }
    for (auto step : module.getOps<func::FuncOp>())
      if (step->hasAttr(CkptDialect::kTrainingStepAttrName) &&
          failed(plan(step)))
        return signalPassFailure();
  }

  LogicalResult plan(func::FuncOp step) {
    if (!step.getOps<RecomputeOp>().empty())
      return step.emitOpError()
             << "already has recompute regions; plan it before "
                "--ckpt-insert-recompute";
    if (strategy == "manual") {
      bool recomputable = true;
      for (auto segment : step.getOps<CheckpointOp>())
        recomputable &= succeeded(verifyRecomputable(segment));
      if (!recomputable)
        return failure();
    } else if (strategy == "none") {
      inlineAllSegments(step);
    } else {
      planUniform(step, stagesPerSegment);
    }
    step->setAttr(CkptDialect::kPlanAttrName,
                  StringAttr::get(step.getContext(), strategy));
    return success();
  }
};

} // namespace
