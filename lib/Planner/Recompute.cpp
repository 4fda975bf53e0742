//===- Recompute.cpp - materialise a plan's recompute regions -------------===//
//
// Flattens the checkpoint segments of a training step, remembering which
// ops each contained, then, innermost segment first, moves the backward
// reads of the values a segment recomputes onto a ckpt.recompute region
// that clones the ops those values depend on within the segment.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Planner/Recompute.h"

#include "ckpt/Analysis/SavedTensors.h"
#include "ckpt/Planner/Segments.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace ckpt;

namespace {

/// A segment after flattening: where it was and every op it contained,
/// nested segments' ops included.
struct FlatSegment {
  Location loc;
  llvm::SmallPtrSet<Operation *, 16> ops;
  /// The ops that flattening puts in the step's block, in program order.
  SmallVector<Operation *> topLevel;
  /// The ops among `ops` marked `ckpt.keep`: their results are kept, and
  /// recomputation starts from them.
  llvm::SmallPtrSet<Operation *, 4> kept;
};

/// Whether `op` is a top-level backward op of the step (recompute regions
/// included).
bool isTopLevelBackward(Block &entry, Operation *op) {
  return op->getBlock() == &entry && isBackwardOp(op);
}

/// Records the segments of `step` innermost first, then removes them.
SmallVector<FlatSegment, 4> flattenSegments(func::FuncOp step) {
  SmallVector<FlatSegment, 4> segments;
  step.walk([&](CheckpointOp segment) {
    FlatSegment &flat =
        segments.emplace_back(FlatSegment{segment.getLoc(), {}, {}, {}});
    segment.getBody().walk([&](Operation *op) {
      if (isa<CheckpointOp, YieldOp>(op))
        return;
      flat.ops.insert(op);
      if (isa<CheckpointOp>(op->getParentOp()))
        flat.topLevel.push_back(op);
      if (op->hasAttr(CkptDialect::kKeepAttrName))
        flat.kept.insert(op);
    });
  });
  // The marks belong to the plan, which the regions replace.
  for (const FlatSegment &segment : segments)
    for (Operation *op : segment.kept)
      op->removeAttr(CkptDialect::kKeepAttrName);
  inlineAllSegments(step);
  return segments;
}

/// Recomputes the values `segment` makes that backward reads and no forward
/// op outside it uses.
void insertRecompute(func::FuncOp step, const FlatSegment &segment) {
  Block &entry = step.getBody().front();
  auto isOutsideForwardUse = [&](OpOperand &use) {
    Operation *user = entry.findAncestorOpInBlock(*use.getOwner());
    return !isBackwardOp(user) && !segment.ops.contains(user);
  };

  // The recomputed values in forward order, and the first backward op
  // reading one of them.
  llvm::SetVector<Value> recomputed;
  Operation *firstReader = nullptr;
  for (Operation *op : segment.topLevel) {
    if (segment.kept.contains(op))
      continue;
    for (Value result : op->getResults()) {
      if (llvm::any_of(result.getUses(), isOutsideForwardUse))
        continue;
      for (Operation *user : result.getUsers()) {
        if (!isTopLevelBackward(entry, user))
          continue;
        recomputed.insert(result);
        if (!firstReader || user->isBeforeInBlock(firstReader))
          firstReader = user;
      }
    }
  }
  if (recomputed.empty())
    return;

  // The backward slice of those values within the segment; its operands
  // from outside the segment are the region's inputs.
  llvm::SmallPtrSet<Operation *, 32> needed;
  SmallVector<Value> worklist(recomputed.begin(), recomputed.end());
  while (!worklist.empty()) {
    Operation *producer = worklist.pop_back_val().getDefiningOp();
    if (!producer || !segment.ops.contains(producer) ||
        segment.kept.contains(producer) || !needed.insert(producer).second)
      continue;
    producer->walk([&](Operation *nested) {
      llvm::append_range(worklist, nested->getOperands());
    });
  }
  SmallVector<Operation *> slice;
  llvm::SetVector<Value> inputs;
  for (Operation *op : segment.topLevel) {
    if (!needed.contains(op))
      continue;
    slice.push_back(op);
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (!producer || !segment.ops.contains(producer) ||
            segment.kept.contains(producer))
          inputs.insert(operand);
      }
    });
  }
  // Values of regions nested in slice ops are theirs, not inputs.
  inputs.remove_if([&](Value value) {
    auto arg = dyn_cast<BlockArgument>(value);
    Operation *owner = arg ? arg.getOwner()->getParentOp() : nullptr;
    return owner && owner != step && llvm::any_of(slice, [&](Operation *op) {
             return op->isAncestor(owner);
           });
  });

  OpBuilder builder(firstReader);
  auto region = RecomputeOp::create(
      builder, segment.loc,
      llvm::map_to_vector(recomputed, [](Value v) { return v.getType(); }),
      inputs.getArrayRef());
  region->setAttr(CkptDialect::kBackwardAttrName, builder.getUnitAttr());
  Block *body = builder.createBlock(&region.getBody());
  IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
  for (Operation *op : slice)
    builder.clone(*op, mapping);
  YieldOp::create(builder, segment.loc,
                  llvm::map_to_vector(
                      recomputed, [&](Value v) { return mapping.lookup(v); }));
  for (auto [value, result] : llvm::zip_equal(recomputed, region.getResults()))
    Value(value).replaceUsesWithIf(result, [&](OpOperand &use) {
      return isTopLevelBackward(entry, use.getOwner());
    });
}

} // namespace

LogicalResult ckpt::materializePlan(func::FuncOp step) {
  bool recomputable = true;
  for (auto segment : step.getOps<CheckpointOp>())
    recomputable &= succeeded(verifyRecomputable(segment));
  if (!recomputable)
    return failure();
  for (const FlatSegment &segment : flattenSegments(step))
    insertRecompute(step, segment);
  return success();
}

FailureOr<PlanEvaluation> ckpt::evaluatePlan(func::FuncOp step) {
  OwningOpRef<func::FuncOp> copy = step.clone();
  if (failed(materializePlan(*copy)))
    return failure();
  // Callers read the peak, its timeline and the cost, not the live set.
  FailureOr<MemoryPeak> peak = simulateMemory(*copy, /*liveAtPeak=*/false);
  if (failed(peak))
    return failure();
  FailureOr<StepCost> cost = computeStepCost(*copy);
  if (failed(cost))
    return failure();
  return PlanEvaluation{std::move(*peak), *cost};
}
