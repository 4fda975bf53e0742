//===- Checkpoint.cpp - forward graph -> planned training step ------------===//
//
// The checkpointing passes in data-flow order, as one pipeline with the
// planner's options, optionally followed by the CPU lowering.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/Pipelines/Pipelines.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void ckpt::buildCheckpointPipeline(OpPassManager &pm,
                                   const CheckpointPipelineOptions &options) {
  pm.addPass(createCkptFoldTransposesPass());
  pm.addPass(createCkptThreadRngPass());
  CkptAutodiffPassOptions autodiff;
  autodiff.keepForward = false;
  autodiff.lossScale = options.lossScale;
  pm.addPass(createCkptAutodiffPass(autodiff));
  CkptPlanPassOptions plan;
  plan.strategy = options.strategy;
  plan.budget = options.budget;
  plan.stagesPerSegment = options.stagesPerSegment;
  plan.selectiveThreshold = options.selectiveThreshold;
  plan.remarks = options.remarks;
  plan.stageCrossings = options.stageCrossings;
  plan.ilpSeconds = options.ilpSeconds;
  plan.ilpNodes = options.ilpNodes;
  plan.ilpMaxStages = options.ilpMaxStages;
  plan.ilpPresolve = options.ilpPresolve;
  plan.microbatchesInFlight = options.microbatchesInFlight;
  pm.addPass(createCkptPlanPass(plan));
  pm.addPass(createCkptInsertRecomputePass());
  if (options.fusePointwise)
    pm.addPass(createCkptFusePointwisePass());
  if (options.lower)
    buildLowerToLLVMPipeline(pm, LowerToLLVMOptions());
}

void ckpt::registerCheckpointPipeline() {
  PassPipelineRegistration<CheckpointPipelineOptions>(
      "ckpt-pipeline",
      "Builds planned training steps with recompute regions from forward "
      "graphs: fold-transposes, thread-rng, autodiff, plan, insert-recompute "
      "and fuse-pointwise (fuse-pointwise=false leaves it out; lower=true "
      "adds the CPU lowering)",
      buildCheckpointPipeline);
}
