//===- StepCost.cpp - FLOPs and bytes of a training step ------------------===//
//
// One walk over the step; ops without a cost (constants, terminators,
// segments themselves) count nothing.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/StepCost.h"

#include "ckpt/Analysis/SavedTensors.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace ckpt;

Cost &Cost::operator+=(const Cost &other) {
  flops = llvm::SaturatingAdd(flops, other.flops);
  bytesRead = llvm::SaturatingAdd(bytesRead, other.bytesRead);
  bytesWritten = llvm::SaturatingAdd(bytesWritten, other.bytesWritten);
  return *this;
}

FailureOr<StepCost> ckpt::computeStepCost(func::FuncOp step) {
  StepCost total;
  WalkResult walk = step.walk([&](CostOpInterface op) {
    if (failed(verifyStaticSizes(op)))
      return WalkResult::interrupt();
    Cost cost{op.getFlops(), op.getBytesRead(), op.getBytesWritten()};
    if (op->getParentOfType<RecomputeOp>())
      total.recompute += cost;
    else
      (isBackwardOp(op) ? total.backward : total.forward) += cost;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return total;
}
