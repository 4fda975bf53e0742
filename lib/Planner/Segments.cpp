//===- Segments.cpp - the plan representation: checkpoint segments --------===//
//
// Building, checking and removing checkpoint segments on a training step,
// and the stage chain automatic strategies cut into segments.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Planner/Segments.h"

#include "ckpt/Analysis/SavedTensors.h"
#include "ckpt/Dialect/Ckpt/IR/Recomputability.h"
#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace ckpt;

LogicalResult ckpt::verifyRecomputable(CheckpointOp segment) {
  bool recomputable = true;
  segment.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<CheckpointOp, YieldOp>(op))
      return WalkResult::advance();
    std::string reason = whyNotRecomputable(op);
    if (!reason.empty()) {
      recomputable = false;
      InFlightDiagnostic diag = op->emitOpError()
                                << "cannot be recomputed: it " << reason
                                << "; move it out of the checkpoint segment";
      diag.attachNote(op->getParentOfType<CheckpointOp>().getLoc())
          << "in this checkpoint segment, whose ops run again during "
             "backward";
    }
    // An op with regions is judged as a whole.
    return WalkResult::skip();
  });
  return success(recomputable);
}

LogicalResult ckpt::verifyNotMaterialized(func::FuncOp step) {
  if (step.getOps<RecomputeOp>().empty())
    return success();
  return step.emitOpError() << "already has recompute regions; plan it "
                               "before --ckpt-insert-recompute";
}

std::string ckpt::whyNotSegmentable(Operation *op) {
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

std::optional<uint64_t> ckpt::getFlopsPerElement(Operation *op) {
  auto cost = dyn_cast<CostOpInterface>(op);
  if (!cost)
    return std::nullopt;
  uint64_t elements = 0;
  for (Type type : op->getResultTypes())
    if (auto shaped = dyn_cast<ShapedType>(type))
      elements += getStaticElementCount(shaped).value_or(0);
  if (elements == 0)
    return std::nullopt;
  return llvm::divideCeil(cost.getFlops(), elements);
}

bool ckpt::isExpensiveToRecompute(Operation *op, unsigned flopsPerElement) {
  std::optional<uint64_t> perElement = getFlopsPerElement(op);
  return perElement && *perElement > flopsPerElement;
}

/// Whether `op` is one of `ops` or nested in one of them.
static bool isWithin(Operation *op,
                     const llvm::SmallPtrSetImpl<Operation *> &ops) {
  for (; op; op = op->getParentOp())
    if (ops.contains(op))
      return true;
  return false;
}

static Operation *getDefiningOpOrOwner(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner()->getParentOp();
  return value.getDefiningOp();
}

CheckpointOp ckpt::wrapInSegment(ArrayRef<Operation *> ops) {
  llvm::SmallPtrSet<Operation *, 16> inside(ops.begin(), ops.end());
  llvm::SetVector<Value> inputs, outputs;
  for (Operation *op : ops) {
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (!isWithin(getDefiningOpOrOwner(operand), inside))
          inputs.insert(operand);
    });
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !isWithin(user, inside);
          }))
        outputs.insert(result);
  }

  OpBuilder builder(ops.front());
  auto segment = CheckpointOp::create(
      builder, ops.front()->getLoc(),
      llvm::map_to_vector(outputs, [](Value v) { return v.getType(); }),
      inputs.getArrayRef());
  Block *body = builder.createBlock(&segment.getBody());
  for (Value input : inputs)
    body->addArgument(input.getType(), input.getLoc());
  for (Operation *op : ops)
    op->moveBefore(body, body->end());
  builder.setInsertionPointToEnd(body);
  YieldOp::create(builder, segment.getLoc(), outputs.getArrayRef());
  for (auto [input, arg] : llvm::zip_equal(inputs, body->getArguments()))
    Value(input).replaceUsesWithIf(arg, [&](OpOperand &use) {
      return segment->isProperAncestor(use.getOwner());
    });
  for (auto [output, result] : llvm::zip_equal(outputs, segment.getResults()))
    Value(output).replaceUsesWithIf(result, [&](OpOperand &use) {
      return !segment->isAncestor(use.getOwner());
    });
  return segment;
}

void ckpt::inlineAllSegments(func::FuncOp func) {
  SmallVector<CheckpointOp> segments;
  func.walk([&](CheckpointOp segment) { segments.push_back(segment); });
  IRRewriter rewriter(func.getContext());
  for (CheckpointOp segment : segments) {
    rewriter.setInsertionPoint(segment);
    inlineSegment(rewriter, segment);
  }
}

SmallVector<Stage> ckpt::mapStages(ArrayRef<Stage> stages,
                                  const IRMapping &mapping) {
  return llvm::map_to_vector(stages, [&](const Stage &stage) {
    return Stage{llvm::map_to_vector(
                     stage.ops,
                     [&](Operation *op) { return mapping.lookup(op); }),
                 llvm::map_to_vector(stage.boundary, [&](Value value) {
                   return mapping.lookupOrDefault(value);
                 })};
  });
}

SmallVector<Stage> ckpt::findStages(func::FuncOp step, unsigned maxCrossing,
                                    bool inputsCross) {
  Block &entry = step.getBody().front();
  SmallVector<Operation *> forward;
  DenseMap<Operation *, size_t> position;
  for (Operation &op : entry.without_terminator()) {
    if (isBackwardOp(&op))
      continue;
    position[&op] = forward.size();
    forward.push_back(&op);
  }
  // An activation crosses the points after forward ops first .. last - 1,
  // from where it is made (or first read, for an input) to its last
  // forward read.
  SmallVector<SmallVector<Value>> startsAt(forward.size() + 1),
      endsAt(forward.size() + 1);
  auto addCrossing = [&](Value value, size_t first, size_t last) {
    for (Operation *user : value.getUsers()) {
      auto it = position.find(entry.findAncestorOpInBlock(*user));
      if (it == position.end())
        continue;
      first = std::min(first, it->second);
      last = std::max(last, it->second);
    }
    if (first >= last)
      return;
    startsAt[first].push_back(value);
    endsAt[last].push_back(value);
  };
  if (inputsCross)
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (type && isa<FloatType>(type.getElementType()) &&
          classifyValue(step, arg) == ValueKind::Activation)
        addCrossing(arg, forward.size(), 0);
    }
  for (auto [index, op] : llvm::enumerate(forward))
    if (!op->hasTrait<OpTrait::ConstantLike>())
      for (Value result : op->getResults())
        addCrossing(result, index, index);

  SmallVector<Stage> stages(1);
  llvm::SetVector<Value> crossing;
  for (auto [index, op] : llvm::enumerate(forward)) {
    for (Value value : endsAt[index])
      crossing.remove(value);
    crossing.insert(startsAt[index].begin(), startsAt[index].end());
    stages.back().ops.push_back(op);
    // A constant joins the stage of the ops that read it.
    if (crossing.size() <= maxCrossing && index + 1 < forward.size() &&
        !op->hasTrait<OpTrait::ConstantLike>()) {
      stages.back().boundary = crossing.takeVector();
      crossing.insert(stages.back().boundary.begin(),
                      stages.back().boundary.end());
      stages.emplace_back();
    }
  }
  if (stages.back().ops.empty())
    stages.pop_back();
  return stages;
}
