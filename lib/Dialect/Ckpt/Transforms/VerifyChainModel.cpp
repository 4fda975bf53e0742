//===- VerifyChainModel.cpp - dp's chain model against the simulator ------===//
//
// For every training step, builds the chain model dp plans with and
// compares each run's modelled peak, freed bytes and FLOPs with those of
// the run materialised and simulated on a copy of the step.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Planner/StepChain.h"

#include "mlir/IR/BuiltinOps.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTVERIFYCHAINMODELPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace ckpt

using namespace mlir;
using namespace ckpt;

namespace {

struct CkptVerifyChainModelPass
    : public ckpt::impl::CkptVerifyChainModelPassBase<
          CkptVerifyChainModelPass> {
  using Base::Base;

  void runOnOperation() override {
    if (stageCrossings == 0) {
      getOperation().emitError() << "stage-crossings must be at least 1";
      return signalPassFailure();
    }
    for (auto step : getOperation().getOps<func::FuncOp>())
      if (step->hasAttr(CkptDialect::kTrainingStepAttrName) &&
          failed(verify(step)))
        return signalPassFailure();
  }

  LogicalResult verify(func::FuncOp original) {
    // Planned as dp plans it: with the user's segments removed.
    OwningOpRef<func::FuncOp> step = original.clone();
    inlineAllSegments(*step);
    FailureOr<std::unique_ptr<StepChain>> built =
        StepChain::build(*step, selectiveThreshold, stageCrossings);
    if (failed(built))
      return failure();
    const StepChain &chain = **built;
    size_t runs = 0, options = 0;
    for (size_t first = 0; first < chain.getStageCount(); ++first)
      for (size_t last = first; last < chain.getStageCount(); ++last) {
        SmallVector<ChainSegment, 2> modelled =
            chain.getSegmentOptions(first, last);
        if (modelled.empty())
          break;
        ++runs;
        for (auto [option, model] : llvm::enumerate(modelled)) {
          ++options;
          FailureOr<ChainSegment> simulated =
              simulateChainRun(*step, chain, first, last, option);
          if (failed(simulated))
            return failure();
          if (model.peak == simulated->peak &&
              model.freed == simulated->freed &&
              model.flops == simulated->flops)
            continue;
          return original.emitOpError()
                 << "chain model differs from the simulator for stages "
                 << first << " to " << last << ", option " << option
                 << ": peak " << model.peak << " B modelled, "
                 << simulated->peak << " B simulated; freed " << model.freed
                 << " B modelled, " << simulated->freed
                 << " B simulated; recompute " << model.flops
                 << " FLOPs modelled, " << simulated->flops << " simulated";
        }
      }
    original.emitRemark() << "chain model matches the simulator: "
                          << chain.getStageCount() << " stages, " << runs
                          << " runs, " << options << " run options";
    return success();
  }
};

} // namespace
