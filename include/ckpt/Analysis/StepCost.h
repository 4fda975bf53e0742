//===- StepCost.h - FLOPs and bytes of a training step --------------------===//
//
// Sums the CostOpInterface of every op of a training step (segment bodies
// included), split into the forward, the backward and the recomputation
// (ops in ckpt.recompute regions, which run during backward).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_ANALYSIS_STEPCOST_H
#define CKPT_ANALYSIS_STEPCOST_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace ckpt {

struct Cost {
  uint64_t flops = 0;
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;

  Cost &operator+=(const Cost &other);
};

struct StepCost {
  Cost forward;
  Cost backward;
  Cost recompute;
};

/// Fails with an error at the first op whose operand or result sizes are
/// unknown or overflow.
mlir::FailureOr<StepCost> computeStepCost(mlir::func::FuncOp step);

} // namespace ckpt

#endif // CKPT_ANALYSIS_STEPCOST_H
