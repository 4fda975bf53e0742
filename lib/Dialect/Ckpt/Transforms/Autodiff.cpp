//===- Autodiff.cpp - forward graph -> training step ----------------------===//
//
// Reverse-mode autodiff: clones each forward graph into a training step,
// finds the values on a path from a parameter to the loss, and walks the
// forward ops backwards asking each op's GradientOpInterface for the ops
// that compute its operand gradients. Forward values that backward reads
// inside checkpoint segments are returned from the segments afterwards.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/SavedTensors.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

namespace ckpt {
#define GEN_PASS_DEF_CKPTAUTODIFFPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace ckpt

using namespace mlir;
using namespace ckpt;

static bool isFloatTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType());
}

static bool isParameter(func::FuncOp func, unsigned argIndex) {
  return func.getArgAttr(argIndex, CkptDialect::kParamAttrName) != nullptr;
}

/// A forward graph has at least one parameter argument and a body.
static bool isForwardGraph(func::FuncOp func) {
  if (func.isExternal() || func->hasAttr(CkptDialect::kTrainingStepAttrName))
    return false;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (isParameter(func, i))
      return true;
  return false;
}

/// The counters one call of `func` draws: recorded by ckpt-thread-rng, or
/// the end of the last explicit range.
static int64_t countersDrawn(func::FuncOp func) {
  if (auto recorded =
          func->getAttrOfType<IntegerAttr>(CkptDialect::kRngCountersAttrName))
    return recorded.getInt();
  int64_t end = 0;
  func.walk([&](RandomOpInterface op) {
    if (op.getRandomState())
      end =
          std::max<int64_t>(end, *op.getCounterOffset() + op.getNumCounters());
  });
  return end;
}

namespace {

/// Records every op autodiff creates: those are the backward ops.
struct CreatedOps : OpBuilder::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.push_back(op);
    set.insert(op);
  }
  bool contains(Value value) const {
    Operation *producer = value.getDefiningOp();
    return producer && set.contains(producer);
  }
  SmallVector<Operation *> ops;
  llvm::DenseSet<Operation *> set;
};

/// Builds the backward part of one training step.
class Differentiator {
public:
  Differentiator(func::FuncOp step, double lossScale)
      : step(step), lossScale(lossScale), builder(step.getContext()) {
    builder.setListener(&created);
  }

  LogicalResult run();

private:
  void markVaried(Block &block);
  void markUseful(Block &block);
  bool isActive(Value value) const {
    return varied.contains(value) && useful.contains(value) &&
           isFloatTensor(value);
  }
  void accumulate(Value value, Value grad);
  LogicalResult differentiate(Block &block);
  LogicalResult differentiateOp(Operation *op);
  LogicalResult checkSavedValues(Operation *op, GradientOpInterface rule,
                                 ArrayRef<bool> needsGrad,
                                 ArrayRef<Operation *> newOps);
  void exportSegmentValues();
  Value unscale(Value grad);

  func::FuncOp step;
  double lossScale;
  OpBuilder builder;
  CreatedOps created;
  llvm::DenseSet<Value> varied, useful;
  llvm::DenseMap<Value, Value> grads;
};

} // namespace

// Values that depend on a parameter through ops that pass gradients, in
// program order. A segment's block arguments alias its inputs and its
// results alias the yielded values.
void Differentiator::markVaried(Block &block) {
  for (Operation &op : block) {
    if (auto segment = dyn_cast<CheckpointOp>(op)) {
      for (auto [input, arg] : llvm::zip_equal(
               segment.getInputs(), segment.getBodyBlock().getArguments()))
        if (varied.contains(input))
          varied.insert(arg);
      markVaried(segment.getBodyBlock());
      auto yield = cast<YieldOp>(segment.getBodyBlock().getTerminator());
      for (auto [value, result] :
           llvm::zip_equal(yield.getValues(), segment.getResults()))
        if (varied.contains(value))
          varied.insert(result);
      continue;
    }
    if (!op.hasTrait<StopsGradient>() &&
        llvm::any_of(op.getOperands(),
                     [&](Value v) { return varied.contains(v); }))
      varied.insert(op.result_begin(), op.result_end());
  }
}

// Values the loss depends on, in reverse program order.
void Differentiator::markUseful(Block &block) {
  for (Operation &op : llvm::reverse(block)) {
    if (auto segment = dyn_cast<CheckpointOp>(op)) {
      auto yield = cast<YieldOp>(segment.getBodyBlock().getTerminator());
      for (auto [value, result] :
           llvm::zip_equal(yield.getValues(), segment.getResults()))
        if (useful.contains(result))
          useful.insert(value);
      markUseful(segment.getBodyBlock());
      for (auto [input, arg] : llvm::zip_equal(
               segment.getInputs(), segment.getBodyBlock().getArguments()))
        if (useful.contains(arg))
          useful.insert(input);
      continue;
    }
    if (llvm::any_of(op.getResults(),
                     [&](Value v) { return useful.contains(v); }))
      useful.insert(op.operand_begin(), op.operand_end());
  }
}

void Differentiator::accumulate(Value value, Value grad) {
  if (!grad)
    return;
  Value &slot = grads[value];
  slot = slot ? AddOp::create(builder, value.getLoc(), slot, grad).getResult()
              : grad;
}

LogicalResult Differentiator::differentiate(Block &block) {
  // The forward ops of this block, before any backward op is added.
  SmallVector<Operation *> forward =
      llvm::map_to_vector(block, [](Operation &op) { return &op; });
  for (Operation *op : llvm::reverse(forward)) {
    if (isa<func::ReturnOp>(op))
      continue;
    if (auto yield = dyn_cast<YieldOp>(op)) {
      auto segment = cast<CheckpointOp>(yield->getParentOp());
      for (auto [value, result] :
           llvm::zip_equal(yield.getValues(), segment.getResults()))
        if (isActive(value))
          accumulate(value, grads.lookup(result));
      continue;
    }
    if (auto segment = dyn_cast<CheckpointOp>(op)) {
      if (failed(differentiate(segment.getBodyBlock())))
        return failure();
      for (auto [input, arg] : llvm::zip_equal(
               segment.getInputs(), segment.getBodyBlock().getArguments()))
        if (isActive(input))
          accumulate(input, grads.lookup(arg));
      continue;
    }
    if (failed(differentiateOp(op)))
      return failure();
  }
  return success();
}

LogicalResult Differentiator::differentiateOp(Operation *op) {
  SmallVector<Value> resultGrads =
      llvm::map_to_vector(op->getResults(), [&](Value result) {
        return isActive(result) ? grads.lookup(result) : Value();
      });
  SmallVector<bool> needsGrad = llvm::map_to_vector(
      op->getOperands(), [&](Value operand) { return isActive(operand); });
  if (llvm::none_of(resultGrads, [](Value g) { return bool(g); }) ||
      llvm::none_of(needsGrad, [](bool b) { return b; }))
    return success();

  auto rule = dyn_cast<GradientOpInterface>(op);
  if (!rule) {
    InFlightDiagnostic diag =
        op->emitOpError("has no gradient rule, but it lies on a path from a "
                        "parameter to the loss");
    diag.attachNote(step.getLoc())
        << "while building the training step '" << step.getSymName() << "'";
    return diag;
  }
  size_t firstNew = created.ops.size();
  SmallVector<Value> operandGrads;
  if (failed(
          rule.buildGradients(builder, resultGrads, needsGrad, operandGrads)))
    return failure();
  ArrayRef<Operation *> newOps = ArrayRef(created.ops).drop_front(firstNew);
  if (failed(checkSavedValues(op, rule, needsGrad, newOps)))
    return failure();
  for (auto [operand, needed, grad] :
       llvm::zip_equal(op->getOperands(), needsGrad, operandGrads)) {
    if (needed && !grad)
      return op->emitOpError("gradient rule produced no gradient for an "
                             "operand that needs one");
    if (needed)
      accumulate(operand, grad);
  }
  return success();
}

// The saved tensors the rule declares must be exactly the forward values its
// ops read: the planner trusts the declaration before any rule runs.
LogicalResult Differentiator::checkSavedValues(Operation *op,
                                               GradientOpInterface rule,
                                               ArrayRef<bool> needsGrad,
                                               ArrayRef<Operation *> newOps) {
  SmallVector<Value> declared = rule.getSavedValues(needsGrad);
  // Gradients are produced by created ops; everything else is forward.
  llvm::SmallSetVector<Value, 4> read;
  for (Operation *newOp : newOps)
    for (Value operand : newOp->getOperands())
      if (!created.contains(operand))
        read.insert(operand);
  for (Value value : read)
    if (!llvm::is_contained(declared, value))
      return op->emitOpError("gradient rule reads a forward value it does "
                             "not declare as saved");
  for (Value value : declared)
    if (!read.contains(value))
      return op->emitOpError("gradient rule declares a saved value it does "
                             "not read");
  return success();
}

// Backward ops may read forward values defined inside a segment; the
// segment returns them as extra results. Inner segments come first, so a
// value nested in several segments is passed out one level at a time.
void Differentiator::exportSegmentValues() {
  SmallVector<CheckpointOp> segments;
  step.walk([&](CheckpointOp segment) { segments.push_back(segment); });
  for (CheckpointOp segment : segments) {
    Block &body = segment.getBodyBlock();
    auto escapes = [&](OpOperand &use) {
      return !segment->isAncestor(use.getOwner());
    };
    for (auto [arg, input] :
         llvm::zip_equal(body.getArguments(), segment.getInputs()))
      arg.replaceUsesWithIf(input, escapes);
    llvm::SetVector<Value> exported;
    for (Operation &op : body)
      for (Value result : op.getResults())
        if (llvm::any_of(result.getUses(), escapes))
          exported.insert(result);
    if (exported.empty())
      continue;

    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<Value> yielded(yield.getValues());
    yielded.append(exported.begin(), exported.end());
    SmallVector<Type> types(segment.getResultTypes());
    for (Value value : exported)
      types.push_back(value.getType());
    OpBuilder rebuild(segment);
    auto widened = CheckpointOp::create(rebuild, segment.getLoc(), types,
                                        segment.getInputs());
    widened->setAttrs(segment->getAttrs());
    widened.getBody().takeBody(segment.getBody());
    rebuild.setInsertionPoint(yield);
    YieldOp::create(rebuild, yield.getLoc(), yielded);
    yield.erase();
    segment.replaceAllUsesWith(
        widened.getResults().take_front(segment.getNumResults()));
    for (auto [value, result] : llvm::zip_equal(
             exported,
             widened.getResults().drop_front(segment.getNumResults())))
      Value(value).replaceUsesWithIf(result, [&](OpOperand &use) {
        return !widened->isAncestor(use.getOwner());
      });
    segment.erase();
  }
}

/// The gradient of a loss scaled by a power of two, unscaled exactly in the
/// gradient's own type, as GradScaler unscales before the optimizer.
Value Differentiator::unscale(Value grad) {
  auto type = cast<RankedTensorType>(grad.getType());
  auto scalar = RankedTensorType::get({}, type.getElementType());
  Value inverse = arith::ConstantOp::create(
      builder, grad.getLoc(), scalar,
      DenseElementsAttr::get(
          scalar, builder.getFloatAttr(type.getElementType(), 1 / lossScale)));
  return MulOp::create(builder, grad.getLoc(), grad, inverse);
}

LogicalResult Differentiator::run() {
  Block &entry = step.getBody().front();
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  Value loss = ret.getOperand(0);

  for (unsigned i = 0, e = step.getNumArguments(); i < e; ++i)
    if (isParameter(step, i))
      varied.insert(step.getArgument(i));
  markVaried(entry);
  useful.insert(loss);
  markUseful(entry);

  builder.setInsertionPoint(ret);
  if (isActive(loss)) {
    auto type = cast<RankedTensorType>(loss.getType());
    grads[loss] = arith::ConstantOp::create(
        builder, loss.getLoc(), type,
        DenseElementsAttr::get(
            type, builder.getFloatAttr(type.getElementType(), lossScale)));
    if (failed(differentiate(entry)))
      return failure();
  }

  // The loss, then the other forward results: they get no gradient.
  SmallVector<Value> results(ret.getOperands());
  for (unsigned i = 0, e = step.getNumArguments(); i < e; ++i) {
    if (!isParameter(step, i))
      continue;
    BlockArgument param = step.getArgument(i);
    Value grad = grads.lookup(param);
    if (!grad) {
      emitWarning(step.getLoc())
          << "parameter " << i << " of '" << step.getSymName()
          << "' does not influence the loss; its gradient is zero";
      auto type = cast<RankedTensorType>(param.getType());
      grad = arith::ConstantOp::create(
          builder, step.getLoc(), type,
          DenseElementsAttr::get(
              type, builder.getFloatAttr(type.getElementType(), 0.0)));
    } else if (lossScale != 1.0)
      grad = unscale(grad);
    results.push_back(grad);
  }
  // The step consumes its random numbers: it returns each random state
  // moved past the counters one call draws.
  for (BlockArgument arg : step.getArguments())
    if (isa<RngType>(arg.getType()))
      results.push_back(RngAdvanceOp::create(builder, step.getLoc(), arg,
                                             countersDrawn(step)));
  // Only the ops created after the forward are backward ops; the return is
  // rebuilt last, and is neither.
  for (Operation *op : created.ops)
    op->setAttr(CkptDialect::kBackwardAttrName, builder.getUnitAttr());
  builder.setListener(nullptr);
  func::ReturnOp::create(builder, ret.getLoc(), results);
  ret.erase();
  step.setFunctionType(builder.getFunctionType(step.getArgumentTypes(),
                                               ValueRange(results).getTypes()));
  exportSegmentValues();
  return success();
}

namespace {

struct CkptAutodiffPass
    : public ckpt::impl::CkptAutodiffPassBase<CkptAutodiffPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> forwards;
    for (auto func : module.getOps<func::FuncOp>())
      if (function.empty() ? isForwardGraph(func)
                           : func.getSymName() == function)
        forwards.push_back(func);
    if (forwards.empty()) {
      if (function.empty())
        module.emitError("no function has {ckpt.param} arguments: nothing "
                         "to differentiate");
      else
        module.emitError() << "no function named '" << function << "'";
      return signalPassFailure();
    }
    for (func::FuncOp forward : forwards)
      if (failed(buildTrainingStep(module, forward)))
        return signalPassFailure();
  }

  /// The scale seeds the loss's gradient and unscales the parameters'
  /// gradients: both must be exact in their types.
  LogicalResult checkLossScale(func::FuncOp forward, Type lossType) {
    int exponent;
    if (!(lossScale > 0) || std::frexp(lossScale, &exponent) != 0.5)
      return forward.emitOpError()
             << "cannot scale its loss by " << lossScale
             << ": loss-scale must be a positive power of two, so that "
                "unscaling the gradients is exact";
    if (lossScale == 1.0)
      return success();
    auto fits = [&](Type type, double value) {
      bool losesInfo;
      APFloat converted(value);
      return converted.convert(cast<FloatType>(type).getFloatSemantics(),
                               APFloat::rmNearestTiesToEven,
                               &losesInfo) == APFloat::opOK &&
             !losesInfo;
    };
    if (!fits(lossType, lossScale))
      return forward.emitOpError()
             << "cannot scale its loss by " << lossScale << ": the scale is "
             << "not representable in the loss's " << lossType;
    for (BlockArgument arg : forward.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (type && isParameter(forward, arg.getArgNumber()) &&
          isa<FloatType>(type.getElementType()) &&
          !fits(type.getElementType(), 1 / lossScale))
        return forward.emitOpError()
               << "cannot scale its loss by " << lossScale << ": parameter "
               << arg.getArgNumber() << "'s " << type.getElementType()
               << " cannot represent 1/" << lossScale
               << " to unscale its gradient";
    }
    return success();
  }

  LogicalResult buildTrainingStep(ModuleOp module, func::FuncOp forward) {
    if (forward.isExternal())
      return forward.emitOpError("has no body to differentiate");
    if (failed(verifySingleBlock(forward, "ckpt-autodiff")))
      return failure();
    FunctionType type = forward.getFunctionType();
    auto loss = type.getNumResults() > 0
                    ? dyn_cast<RankedTensorType>(type.getResult(0))
                    : RankedTensorType();
    if (!loss || loss.getRank() != 0 ||
        !isa<FloatType>(loss.getElementType())) {
      InFlightDiagnostic diag = forward.emitOpError()
                                << "must return a scalar floating-point loss "
                                   "(e.g. tensor<f32>) as its first result to "
                                   "be differentiated, but returns ";
      if (type.getNumResults() == 0)
        return diag << "nothing";
      return diag << type.getResults();
    }
    // Further results pass through the step unchanged; its runners and
    // memory accounting take tensors.
    for (auto [index, result] : llvm::enumerate(type.getResults()))
      if (!isa<RankedTensorType>(result))
        return forward.emitOpError()
               << "result " << index
               << " must be a ranked tensor to be returned from the training "
                  "step, but is "
               << result;
    if (failed(checkLossScale(forward, loss.getElementType())))
      return failure();
    std::string name = (forward.getSymName() + "_train").str();
    if (module.lookupSymbol(name))
      return forward.emitOpError()
             << "cannot build its training step: the symbol '" << name
             << "' already exists";

    OpBuilder builder(module.getContext());
    builder.setInsertionPointAfter(forward);
    auto step = cast<func::FuncOp>(builder.clone(*forward));
    step.setSymName(name);
    step->setAttr(CkptDialect::kTrainingStepAttrName, builder.getUnitAttr());
    if (failed(Differentiator(step, lossScale).run())) {
      step.erase();
      return failure();
    }
    if (!keepForward)
      forward.erase();
    return success();
  }
};

} // namespace
