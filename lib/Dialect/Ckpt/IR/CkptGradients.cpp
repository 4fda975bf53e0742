//===- CkptGradients.cpp - gradient rules and saved tensors of ckpt ops ---===//
//
// The GradientOpInterface of every differentiable forward op: which forward
// values its rule reads (its saved tensors) and the ops that compute its
// operand gradients. Rules reuse forward ops (matmul, transpose, reduce_sum,
// broadcast_to, mul, ...) where those express the gradient, and the
// dedicated *_grad ops otherwise. Saved tensors follow PyTorch 1.13's
// autograd unless noted (docs/Autodiff.md lists the differences).
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <numeric>

using namespace mlir;
using namespace ckpt;

namespace {

/// Builds gradient ops at the builder's insertion point with the forward
/// op's location, so diagnostics and reports point at the user's line.
struct GradBuilder {
  GradBuilder(OpBuilder &builder, Operation *forward)
      : b(builder), loc(forward->getLoc()) {}

  /// A scalar tensor constant of the given element type.
  Value scalar(Type elementType, double value) {
    auto type = RankedTensorType::get({}, elementType);
    return arith::ConstantOp::create(
        b, loc, type,
        DenseElementsAttr::get(type, b.getFloatAttr(elementType, value)));
  }

  /// Sums a broadcast gradient back to the shape of the value it belongs to.
  Value sumTo(Value grad, Type targetType) {
    auto source = cast<RankedTensorType>(grad.getType());
    auto target = cast<RankedTensorType>(targetType);
    if (source == target)
      return grad;
    int64_t leading = source.getRank() - target.getRank();
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < leading; ++d)
      dims.push_back(d);
    for (int64_t d = 0; d < target.getRank(); ++d)
      if (target.getDimSize(d) == 1 && source.getDimSize(leading + d) != 1)
        dims.push_back(leading + d);
    Value summed = grad;
    if (!dims.empty())
      summed = ReduceSumOp::create(b, loc, grad, b.getDenseI64ArrayAttr(dims),
                                   /*keepdim=*/true);
    if (summed.getType() != target)
      summed = ReshapeOp::create(b, loc, target, summed);
    return summed;
  }

  /// Reshapes `[d0, ..., dn-1, k]` to `[d0 * ... * dn-1, k]` (rank 1 becomes
  /// `[1, k]`); unknown leading sizes give an unknown row count.
  Value flattenToMatrix(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() == 2)
      return value;
    int64_t rows = 1;
    for (int64_t size : type.getShape().drop_back())
      rows = ShapedType::isDynamic(size) || ShapedType::isDynamic(rows)
                 ? ShapedType::kDynamic
                 : rows * size;
    return ReshapeOp::create(
        b, loc,
        RankedTensorType::get({rows, type.getShape().back()},
                              type.getElementType()),
        value);
  }

  OpBuilder &b;
  Location loc;
};

/// The saved values of a product: each operand's gradient reads the other.
SmallVector<Value> productSavedValues(ArrayRef<bool> needsGrad, Value lhs,
                                      Value rhs) {
  SmallVector<Value> saved;
  if (needsGrad[0])
    saved.push_back(rhs);
  if (needsGrad[1])
    saved.push_back(lhs);
  return saved;
}

} // namespace

//===----------------------------------------------------------------------===//
// Dense
//===----------------------------------------------------------------------===//

SmallVector<Value> LinearOp::getSavedValues(ArrayRef<bool> needsGrad) {
  return productSavedValues(needsGrad, getInput(), getWeight());
}

LogicalResult LinearOp::buildGradients(OpBuilder &builder,
                                       ArrayRef<Value> resultGrads,
                                       ArrayRef<bool> needsGrad,
                                       SmallVectorImpl<Value> &operandGrads) {
  GradBuilder g(builder, *this);
  Value dy = resultGrads[0];
  operandGrads.assign(getNumOperands(), Value());
  if (needsGrad[0]) {
    // dx = dy W, computed on matrices so a rank-1 input works too.
    Value dx = MatmulOp::create(builder, g.loc, g.flattenToMatrix(dy),
                                getWeight());
    if (dx.getType() != getInput().getType())
      dx = ReshapeOp::create(builder, g.loc, getInput().getType(), dx);
    operandGrads[0] = dx;
  }
  if (needsGrad[1]) {
    // dW = dy^T x over all leading dimensions, dy read transposed.
    Value dyRows = g.flattenToMatrix(dy);
    Value inputRows = g.flattenToMatrix(getInput());
    operandGrads[1] =
        MatmulOp::create(builder, g.loc, dyRows, inputRows,
                         /*transpose_lhs=*/true, /*transpose_rhs=*/false);
  }
  if (getBias() && needsGrad[2])
    operandGrads[2] = g.sumTo(dy, getBias().getType());
  return success();
}

SmallVector<Value> MatmulOp::getSavedValues(ArrayRef<bool> needsGrad) {
  return productSavedValues(needsGrad, getLhs(), getRhs());
}

LogicalResult MatmulOp::buildGradients(OpBuilder &builder,
                                       ArrayRef<Value> resultGrads,
                                       ArrayRef<bool> needsGrad,
                                       SmallVectorImpl<Value> &operandGrads) {
  // With C = op(A) op(B), op transposing where flagged: d op(A) = dC
  // op(B)^T and d op(B) = op(A)^T dC, each computed in its operand's
  // layout (dA = op(B) dC^T when A is read transposed) through the flags,
  // so no operand is copied transposed.
  GradBuilder g(builder, *this);
  Value dc = resultGrads[0];
  Value lhs = getLhs(), rhs = getRhs();
  bool transposedLhs = getTransposeLhs(), transposedRhs = getTransposeRhs();
  auto product = [&](Value a, Value b, bool transposeA, bool transposeB) {
    return MatmulOp::create(builder, g.loc, a, b, transposeA, transposeB);
  };
  operandGrads.assign(2, Value());
  if (needsGrad[0])
    operandGrads[0] =
        g.sumTo(transposedLhs ? product(rhs, dc, transposedRhs, true)
                              : product(dc, rhs, false, !transposedRhs),
                lhs.getType());
  if (needsGrad[1])
    operandGrads[1] =
        g.sumTo(transposedRhs ? product(dc, lhs, true, transposedLhs)
                              : product(lhs, dc, !transposedLhs, false),
                rhs.getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

SmallVector<Value> AddOp::getSavedValues(ArrayRef<bool>) { return {}; }

LogicalResult AddOp::buildGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads,
                                    ArrayRef<bool> needsGrad,
                                    SmallVectorImpl<Value> &operandGrads) {
  GradBuilder g(builder, *this);
  operandGrads.assign(2, Value());
  for (unsigned i = 0; i < 2; ++i)
    if (needsGrad[i])
      operandGrads[i] = g.sumTo(resultGrads[0], getOperand(i).getType());
  return success();
}

SmallVector<Value> SubOp::getSavedValues(ArrayRef<bool>) { return {}; }

LogicalResult SubOp::buildGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads,
                                    ArrayRef<bool> needsGrad,
                                    SmallVectorImpl<Value> &operandGrads) {
  GradBuilder g(builder, *this);
  operandGrads.assign(2, Value());
  if (needsGrad[0])
    operandGrads[0] = g.sumTo(resultGrads[0], getLhs().getType());
  if (needsGrad[1])
    operandGrads[1] = NegOp::create(
        builder, g.loc, g.sumTo(resultGrads[0], getRhs().getType()));
  return success();
}

SmallVector<Value> MulOp::getSavedValues(ArrayRef<bool> needsGrad) {
  return productSavedValues(needsGrad, getLhs(), getRhs());
}

LogicalResult MulOp::buildGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads,
                                    ArrayRef<bool> needsGrad,
                                    SmallVectorImpl<Value> &operandGrads) {
  GradBuilder g(builder, *this);
  operandGrads.assign(2, Value());
  for (unsigned i = 0; i < 2; ++i)
    if (needsGrad[i])
      operandGrads[i] = g.sumTo(
          MulOp::create(builder, g.loc, resultGrads[0], getOperand(1 - i)),
          getOperand(i).getType());
  return success();
}

SmallVector<Value> DivOp::getSavedValues(ArrayRef<bool> needsGrad) {
  if (needsGrad[1])
    return {getLhs(), getRhs()};
  if (needsGrad[0])
    return {getRhs()};
  return {};
}

LogicalResult DivOp::buildGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads,
                                    ArrayRef<bool> needsGrad,
                                    SmallVectorImpl<Value> &operandGrads) {
  GradBuilder g(builder, *this);
  Value dy = resultGrads[0];
  operandGrads.assign(2, Value());
  if (needsGrad[0])
    operandGrads[0] =
        g.sumTo(DivOp::create(builder, g.loc, dy, getRhs()),
                getLhs().getType());
  if (needsGrad[1]) {
    // d(a / b) / db = -a / b^2, as PyTorch's DivBackward0.
    Value numerator = MulOp::create(builder, g.loc, dy, getLhs());
    Value square = MulOp::create(builder, g.loc, getRhs(), getRhs());
    Value quotient = DivOp::create(builder, g.loc, numerator, square);
    operandGrads[1] = g.sumTo(NegOp::create(builder, g.loc, quotient),
                              getRhs().getType());
  }
  return success();
}

SmallVector<Value> NegOp::getSavedValues(ArrayRef<bool>) { return {}; }

LogicalResult NegOp::buildGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads,
                                    ArrayRef<bool>,
                                    SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {NegOp::create(builder, getLoc(), resultGrads[0]).getResult()});
  return success();
}

SmallVector<Value> ExpOp::getSavedValues(ArrayRef<bool>) {
  return {getResult()};
}

LogicalResult ExpOp::buildGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads,
                                    ArrayRef<bool>,
                                    SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {MulOp::create(builder, getLoc(), resultGrads[0], getResult())
           .getResult()});
  return success();
}

// y = x^(-1/2), so dy/dx = -y^3 / 2: the result is all it needs (PyTorch
// saves the result too).
SmallVector<Value> RsqrtOp::getSavedValues(ArrayRef<bool>) {
  return {getResult()};
}

LogicalResult RsqrtOp::buildGradients(OpBuilder &builder,
                                      ArrayRef<Value> resultGrads,
                                      ArrayRef<bool>,
                                      SmallVectorImpl<Value> &operandGrads) {
  GradBuilder g(builder, *this);
  Value y = getResult();
  Value cube =
      MulOp::create(builder, g.loc, MulOp::create(builder, g.loc, y, y), y);
  Value half = g.scalar(getElementTypeOrSelf(y.getType()), -0.5);
  Value scaled = MulOp::create(builder, g.loc, resultGrads[0], cube);
  operandGrads.assign(
      {MulOp::create(builder, g.loc, scaled, half).getResult()});
  return success();
}

// d sqrt(x) / dx = 1 / (2 sqrt(x)): from the result, as PyTorch saves it.
SmallVector<Value> SqrtOp::getSavedValues(ArrayRef<bool>) {
  return {getResult()};
}

LogicalResult SqrtOp::buildGradients(OpBuilder &builder,
                                     ArrayRef<Value> resultGrads,
                                     ArrayRef<bool>,
                                     SmallVectorImpl<Value> &operandGrads) {
  GradBuilder g(builder, *this);
  Value y = getResult();
  Value two = g.scalar(getElementTypeOrSelf(y.getType()), 2.0);
  Value twiceRoot = MulOp::create(builder, g.loc, y, two);
  operandGrads.assign(
      {DivOp::create(builder, g.loc, resultGrads[0], twiceRoot).getResult()});
  return success();
}

// d x^p / dx = p x^(p - 1), from the input (PyTorch's pow_backward).
SmallVector<Value> PowOp::getSavedValues(ArrayRef<bool>) {
  return {getInput()};
}

LogicalResult PowOp::buildGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads,
                                    ArrayRef<bool>,
                                    SmallVectorImpl<Value> &operandGrads) {
  GradBuilder g(builder, *this);
  double exponent = getExponent().convertToDouble();
  Value lowered = PowOp::create(builder, g.loc, getInput(),
                                builder.getF64FloatAttr(exponent - 1));
  Value scale =
      g.scalar(getElementTypeOrSelf(getInput().getType()), exponent);
  Value slope = MulOp::create(builder, g.loc, lowered, scale);
  operandGrads.assign(
      {MulOp::create(builder, g.loc, resultGrads[0], slope).getResult()});
  return success();
}

SmallVector<Value> CastOp::getSavedValues(ArrayRef<bool>) { return {}; }

LogicalResult CastOp::buildGradients(OpBuilder &builder,
                                     ArrayRef<Value> resultGrads,
                                     ArrayRef<bool>,
                                     SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({CastOp::create(builder, getLoc(),
                                      getInput().getType(), resultGrads[0])
                           .getResult()});
  return success();
}

SmallVector<Value> ClampOp::getSavedValues(ArrayRef<bool>) {
  return {getInput()};
}

LogicalResult ClampOp::buildGradients(OpBuilder &builder,
                                      ArrayRef<Value> resultGrads,
                                      ArrayRef<bool>,
                                      SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({ClampGradOp::create(builder, getLoc(), resultGrads[0],
                                           getInput(), getMinAttr(),
                                           getMaxAttr())
                           .getResult()});
  return success();
}

SmallVector<Value> LogOp::getSavedValues(ArrayRef<bool>) {
  return {getInput()};
}

LogicalResult LogOp::buildGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads,
                                    ArrayRef<bool>,
                                    SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {DivOp::create(builder, getLoc(), resultGrads[0], getInput())
           .getResult()});
  return success();
}

// The pointwise ops with a dedicated gradient op read either their result
// (tanh, sigmoid, relu: as PyTorch saves) or their input (silu, gelu, abs).
#define CKPT_POINTWISE_GRADIENT(Op, GradOp, saved)                             \
  SmallVector<Value> Op::getSavedValues(ArrayRef<bool>) { return {saved}; }    \
  LogicalResult Op::buildGradients(OpBuilder &builder,                         \
                                   ArrayRef<Value> resultGrads,                \
                                   ArrayRef<bool>,                             \
                                   SmallVectorImpl<Value> &operandGrads) {     \
    operandGrads.assign(                                                       \
        {GradOp::create(builder, getLoc(), resultGrads[0], saved)              \
             .getResult()});                                                   \
    return success();                                                          \
  }

CKPT_POINTWISE_GRADIENT(TanhOp, TanhGradOp, getResult())
CKPT_POINTWISE_GRADIENT(SigmoidOp, SigmoidGradOp, getResult())
CKPT_POINTWISE_GRADIENT(ReluOp, ReluGradOp, getResult())
CKPT_POINTWISE_GRADIENT(SiluOp, SiluGradOp, getInput())
CKPT_POINTWISE_GRADIENT(AbsOp, AbsGradOp, getInput())
#undef CKPT_POINTWISE_GRADIENT

SmallVector<Value> GeluOp::getSavedValues(ArrayRef<bool>) {
  return {getInput()};
}

LogicalResult GeluOp::buildGradients(OpBuilder &builder,
                                     ArrayRef<Value> resultGrads,
                                     ArrayRef<bool>,
                                     SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({GeluGradOp::create(builder, getLoc(), resultGrads[0],
                                          getInput(), getApproximate())
                           .getResult()});
  return success();
}

SmallVector<Value> WhereOp::getSavedValues(ArrayRef<bool>) {
  return {getCondition()};
}

LogicalResult WhereOp::buildGradients(OpBuilder &builder,
                                      ArrayRef<Value> resultGrads,
                                      ArrayRef<bool> needsGrad,
                                      SmallVectorImpl<Value> &operandGrads) {
  GradBuilder g(builder, *this);
  Value dy = resultGrads[0];
  Value zero =
      g.scalar(cast<RankedTensorType>(dy.getType()).getElementType(), 0.0);
  operandGrads.assign(3, Value());
  if (needsGrad[1])
    operandGrads[1] = g.sumTo(
        WhereOp::create(builder, g.loc, getCondition(), dy, zero),
        getTrueValue().getType());
  if (needsGrad[2])
    operandGrads[2] = g.sumTo(
        WhereOp::create(builder, g.loc, getCondition(), zero, dy),
        getFalseValue().getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

SmallVector<Value> SoftmaxOp::getSavedValues(ArrayRef<bool>) {
  return {getResult()};
}

LogicalResult SoftmaxOp::buildGradients(OpBuilder &builder,
                                        ArrayRef<Value> resultGrads,
                                        ArrayRef<bool>,
                                        SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({SoftmaxGradOp::create(builder, getLoc(),
                                             resultGrads[0], getResult(),
                                             getDim())
                           .getResult()});
  return success();
}

SmallVector<Value> LogSoftmaxOp::getSavedValues(ArrayRef<bool>) {
  return {getResult()};
}

LogicalResult
LogSoftmaxOp::buildGradients(OpBuilder &builder, ArrayRef<Value> resultGrads,
                             ArrayRef<bool>,
                             SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({LogSoftmaxGradOp::create(builder, getLoc(),
                                                resultGrads[0], getResult(),
                                                getDim())
                           .getResult()});
  return success();
}

/// Normalisation statistics are for the gradient, not for the model: a
/// gradient flowing into them has no rule.
static LogicalResult rejectStatisticsGradients(Operation *op,
                                               ArrayRef<Value> resultGrads) {
  for (Value grad : resultGrads.drop_front())
    if (grad)
      return op->emitOpError()
             << "has no gradient rule for uses of its statistics (mean, "
                "rstd) on a path to the loss";
  return success();
}

/// A normalisation's operand gradients: the input's, then those of the
/// optional operands (weight, bias) the op has, each given with its
/// gradient; null where none is needed.
static void
assignNormGradients(SmallVectorImpl<Value> &operandGrads,
                    ArrayRef<bool> needsGrad, Value inputGrad,
                    std::initializer_list<std::pair<Value, Value>> optional) {
  operandGrads.assign({inputGrad});
  for (auto [operand, grad] : optional)
    if (operand)
      operandGrads.push_back(grad);
  for (auto [grad, needed] : llvm::zip_equal(operandGrads, needsGrad))
    if (!needed)
      grad = Value();
}

SmallVector<Value> LayerNormOp::getSavedValues(ArrayRef<bool>) {
  SmallVector<Value> saved = {getInput(), getMean(), getRstd()};
  if (getWeight())
    saved.push_back(getWeight());
  return saved;
}

LogicalResult LayerNormOp::buildGradients(OpBuilder &builder,
                                          ArrayRef<Value> resultGrads,
                                          ArrayRef<bool> needsGrad,
                                          SmallVectorImpl<Value> &operandGrads) {
  if (failed(rejectStatisticsGradients(*this, resultGrads)))
    return failure();
  auto grads = LayerNormGradOp::create(
      builder, getLoc(), resultGrads[0], getInput(), getMean(), getRstd(),
      getWeight(), getNormalizedShape());
  assignNormGradients(operandGrads, needsGrad, grads.getInputGrad(),
                      {{getWeight(), grads.getWeightGrad()},
                       {getBias(), grads.getBiasGrad()}});
  return success();
}

SmallVector<Value> RmsNormOp::getSavedValues(ArrayRef<bool>) {
  SmallVector<Value> saved = {getInput(), getRstd()};
  if (getWeight())
    saved.push_back(getWeight());
  return saved;
}

LogicalResult RmsNormOp::buildGradients(OpBuilder &builder,
                                        ArrayRef<Value> resultGrads,
                                        ArrayRef<bool> needsGrad,
                                        SmallVectorImpl<Value> &operandGrads) {
  if (failed(rejectStatisticsGradients(*this, resultGrads)))
    return failure();
  auto grads =
      RmsNormGradOp::create(builder, getLoc(), resultGrads[0], getInput(),
                            getRstd(), getWeight(), getNormalizedShape());
  assignNormGradients(operandGrads, needsGrad, grads.getInputGrad(),
                      {{getWeight(), grads.getWeightGrad()}});
  return success();
}

//===----------------------------------------------------------------------===//
// Randomness
//===----------------------------------------------------------------------===//

// Dropout saves nothing but its random state: the gradient draws the same
// mask again from the same counters (PyTorch saves the mask instead).
SmallVector<Value> DropoutOp::getSavedValues(ArrayRef<bool>) {
  if (Value rng = getRng())
    return {rng};
  return {};
}

LogicalResult DropoutOp::buildGradients(OpBuilder &builder,
                                        ArrayRef<Value> resultGrads,
                                        ArrayRef<bool>,
                                        SmallVectorImpl<Value> &operandGrads) {
  if (!getRng())
    return emitOpError("draws from the implicit generator, so its mask "
                       "cannot be drawn again for the gradient; run "
                       "ckpt-thread-rng first");
  operandGrads.assign({DropoutGradOp::create(builder, getLoc(),
                                             resultGrads[0], getRng(),
                                             *getOffset(), getP())
                           .getResult(),
                       Value()});
  return success();
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

// Flash attention's saved set: the operands, the output and the row
// log-sum-exp, from which the gradient recomputes the weights (PyTorch's
// math kernel saves the L x S weights instead).
SmallVector<Value>
ScaledDotProductAttentionOp::getSavedValues(ArrayRef<bool>) {
  SmallVector<Value> saved = {getQuery(), getKey(), getValue(), getResult(),
                              getLse()};
  if (getMask())
    saved.push_back(getMask());
  if (getRng())
    saved.push_back(getRng());
  return saved;
}

LogicalResult ScaledDotProductAttentionOp::buildGradients(
    OpBuilder &builder, ArrayRef<Value> resultGrads, ArrayRef<bool> needsGrad,
    SmallVectorImpl<Value> &operandGrads) {
  if (resultGrads[1])
    return emitOpError("has no gradient rule for uses of its log-sum-exp on "
                       "a path to the loss");
  if (getMask() && needsGrad[3])
    return emitOpError("has no gradient rule for its mask; the mask must not "
                       "depend on parameters");
  if (!getP().isZero() && !getRng())
    return emitOpError("draws its dropout from the implicit generator, so "
                       "its mask cannot be drawn again for the gradient; run "
                       "ckpt-thread-rng first");
  operandGrads.assign(getNumOperands(), Value());
  if (!resultGrads[0])
    return success();
  auto grads = ScaledDotProductAttentionGradOp::create(
      builder, getLoc(), resultGrads[0], getQuery(), getKey(), getValue(),
      getResult(), getLse(), getMask(), getRng(), getOffsetAttr(),
      getCausalAttr(), getScaleAttr(), getPAttr());
  for (auto [index, grad] : llvm::enumerate(grads->getResults()))
    if (needsGrad[index])
      operandGrads[index] = grad;
  return success();
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

SmallVector<Value> ReshapeOp::getSavedValues(ArrayRef<bool>) { return {}; }

LogicalResult ReshapeOp::buildGradients(OpBuilder &builder,
                                        ArrayRef<Value> resultGrads,
                                        ArrayRef<bool>,
                                        SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({ReshapeOp::create(builder, getLoc(),
                                         getInput().getType(), resultGrads[0])
                           .getResult()});
  return success();
}

SmallVector<Value> TransposeOp::getSavedValues(ArrayRef<bool>) { return {}; }

LogicalResult TransposeOp::buildGradients(OpBuilder &builder,
                                          ArrayRef<Value> resultGrads,
                                          ArrayRef<bool>,
                                          SmallVectorImpl<Value> &operandGrads) {
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  operandGrads.assign(
      {TransposeOp::create(builder, getLoc(), resultGrads[0], inverse)
           .getResult()});
  return success();
}

SmallVector<Value> BroadcastToOp::getSavedValues(ArrayRef<bool>) {
  return {};
}

LogicalResult
BroadcastToOp::buildGradients(OpBuilder &builder, ArrayRef<Value> resultGrads,
                              ArrayRef<bool>,
                              SmallVectorImpl<Value> &operandGrads) {
  GradBuilder g(builder, *this);
  operandGrads.assign({g.sumTo(resultGrads[0], getInput().getType())});
  return success();
}

SmallVector<Value> SliceOp::getSavedValues(ArrayRef<bool>) { return {}; }

LogicalResult SliceOp::buildGradients(OpBuilder &builder,
                                      ArrayRef<Value> resultGrads,
                                      ArrayRef<bool>,
                                      SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({SliceGradOp::create(builder, getLoc(),
                                           getInput().getType(),
                                           resultGrads[0], getDim(),
                                           getStart(), getEnd(), getStep())
                           .getResult()});
  return success();
}

SmallVector<Value> ConcatOp::getSavedValues(ArrayRef<bool>) { return {}; }

LogicalResult ConcatOp::buildGradients(OpBuilder &builder,
                                       ArrayRef<Value> resultGrads,
                                       ArrayRef<bool> needsGrad,
                                       SmallVectorImpl<Value> &operandGrads) {
  int64_t dim = getDim();
  int64_t offset = 0;
  operandGrads.assign(getNumOperands(), Value());
  for (auto [index, input] : llvm::enumerate(getInputs())) {
    int64_t size = cast<RankedTensorType>(input.getType()).getDimSize(dim);
    if (ShapedType::isDynamic(size))
      return emitOpError() << "has no gradient rule when input " << index
                           << " has unknown size along dim " << dim;
    if (needsGrad[index])
      operandGrads[index] = SliceOp::create(builder, getLoc(), resultGrads[0],
                                            dim, offset, offset + size, 1);
    offset += size;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Broadcasts the gradient of a reduction back over the reduced dimensions.
static Value broadcastReductionGrad(OpBuilder &builder, Location loc,
                                    Value grad, RankedTensorType input,
                                    std::optional<ArrayRef<int64_t>> dims) {
  SmallVector<int64_t> keptShape(input.getShape());
  for (int64_t d = 0; d < input.getRank(); ++d)
    if (!dims || llvm::is_contained(*dims, d))
      keptShape[d] = 1;
  auto kept = RankedTensorType::get(keptShape, input.getElementType());
  if (grad.getType() != kept)
    grad = ReshapeOp::create(builder, loc, kept, grad);
  return BroadcastToOp::create(builder, loc, input, grad);
}

SmallVector<Value> ReduceSumOp::getSavedValues(ArrayRef<bool>) { return {}; }

LogicalResult ReduceSumOp::buildGradients(OpBuilder &builder,
                                          ArrayRef<Value> resultGrads,
                                          ArrayRef<bool>,
                                          SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({broadcastReductionGrad(
      builder, getLoc(), resultGrads[0], getInput().getType(), getDims())});
  return success();
}

SmallVector<Value> ReduceMeanOp::getSavedValues(ArrayRef<bool>) {
  return {};
}

LogicalResult
ReduceMeanOp::buildGradients(OpBuilder &builder, ArrayRef<Value> resultGrads,
                             ArrayRef<bool>,
                             SmallVectorImpl<Value> &operandGrads) {
  RankedTensorType input = getInput().getType();
  std::optional<ArrayRef<int64_t>> dims = getDims();
  uint64_t count = 1;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    if (dims && !llvm::is_contained(*dims, d))
      continue;
    if (input.isDynamicDim(d))
      return emitOpError() << "has no gradient rule when reduced dimension "
                           << d << " has unknown size; give sizes with "
                              "ckpt-bind-dims first";
    count *= input.getDimSize(d);
  }
  GradBuilder g(builder, *this);
  Value spread = broadcastReductionGrad(builder, g.loc, resultGrads[0],
                                        input, dims);
  // Divide like PyTorch's MeanBackward (grad.expand(...) / count).
  operandGrads.assign({DivOp::create(
      builder, g.loc, spread,
      g.scalar(input.getElementType(), static_cast<double>(count)))});
  return success();
}

SmallVector<Value> ReduceMaxOp::getSavedValues(ArrayRef<bool>) {
  return {getInput(), getResult()};
}

LogicalResult ReduceMaxOp::buildGradients(OpBuilder &builder,
                                          ArrayRef<Value> resultGrads,
                                          ArrayRef<bool>,
                                          SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {ReduceMaxGradOp::create(builder, getLoc(), resultGrads[0], getInput(),
                               getResult(), getDimsAttr(), getKeepdimAttr())
           .getResult()});
  return success();
}

// The norm's gradient reads its input and the norm itself, as PyTorch's
// LinalgVectorNormBackward0 saves them.
SmallVector<Value> ReduceNormOp::getSavedValues(ArrayRef<bool>) {
  return {getInput(), getResult()};
}

LogicalResult ReduceNormOp::buildGradients(OpBuilder &builder,
                                           ArrayRef<Value> resultGrads,
                                           ArrayRef<bool>,
                                           SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {ReduceNormGradOp::create(builder, getLoc(), resultGrads[0], getInput(),
                                getResult(), getDimsAttr(), getKeepdimAttr())
           .getResult()});
  return success();
}

//===----------------------------------------------------------------------===//
// Lookup and losses
//===----------------------------------------------------------------------===//

SmallVector<Value> EmbeddingOp::getSavedValues(ArrayRef<bool>) {
  return {getIndices()};
}

LogicalResult EmbeddingOp::buildGradients(OpBuilder &builder,
                                          ArrayRef<Value> resultGrads,
                                          ArrayRef<bool> needsGrad,
                                          SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(2, Value());
  if (needsGrad[1])
    operandGrads[1] = EmbeddingGradOp::create(
        builder, getLoc(), resultGrads[0], getIndices(),
        getWeight().getType().getDimSize(0), getPaddingIdxAttr());
  return success();
}

SmallVector<Value> CrossEntropyOp::getSavedValues(ArrayRef<bool>) {
  return {getLogits(), getLabels()};
}

LogicalResult
CrossEntropyOp::buildGradients(OpBuilder &builder, ArrayRef<Value> resultGrads,
                               ArrayRef<bool>,
                               SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({CrossEntropyGradOp::create(builder, getLoc(),
                                                  resultGrads[0], getLogits(),
                                                  getLabels(),
                                                  getIgnoreIndexAttr())
                           .getResult(),
                       Value()});
  return success();
}

SmallVector<Value> MseLossOp::getSavedValues(ArrayRef<bool>) {
  return {getInput(), getTarget()};
}

LogicalResult MseLossOp::buildGradients(OpBuilder &builder,
                                        ArrayRef<Value> resultGrads,
                                        ArrayRef<bool> needsGrad,
                                        SmallVectorImpl<Value> &operandGrads) {
  Value grad = MseLossGradOp::create(builder, getLoc(), resultGrads[0],
                                     getInput(), getTarget());
  operandGrads.assign({needsGrad[0] ? grad : Value(),
                       needsGrad[1] ? NegOp::create(builder, getLoc(), grad)
                                    : Value()});
  return success();
}

//===----------------------------------------------------------------------===//
// Vision
//===----------------------------------------------------------------------===//

SmallVector<Value> Conv2dOp::getSavedValues(ArrayRef<bool> needsGrad) {
  return productSavedValues(needsGrad, getInput(), getWeight());
}

LogicalResult Conv2dOp::buildGradients(OpBuilder &builder,
                                       ArrayRef<Value> resultGrads,
                                       ArrayRef<bool> needsGrad,
                                       SmallVectorImpl<Value> &operandGrads) {
  Location loc = getLoc();
  Value dy = resultGrads[0];
  operandGrads.assign(getNumOperands(), Value());
  if (needsGrad[0])
    operandGrads[0] = Conv2dInputGradOp::create(
        builder, loc, getInput().getType(), dy, getWeight(), getStrideAttr(),
        getPaddingAttr(), getDilationAttr(), getGroupsAttr());
  if (needsGrad[1])
    operandGrads[1] = Conv2dWeightGradOp::create(
        builder, loc, getWeight().getType(), dy, getInput(), getStrideAttr(),
        getPaddingAttr(), getDilationAttr(), getGroupsAttr());
  // The bias gradient sums over batch, height and width.
  if (getBias() && needsGrad[2])
    operandGrads[2] = ReduceSumOp::create(
        builder, loc, dy, builder.getDenseI64ArrayAttr({0, 2, 3}),
        /*keepdim=*/false);
  return success();
}

// max_pool2d saves the positions of the maxima (as PyTorch's
// MaxPool2DWithIndicesBackward0), not its input.
SmallVector<Value> MaxPool2dOp::getSavedValues(ArrayRef<bool>) {
  return {getIndices()};
}

LogicalResult
MaxPool2dOp::buildGradients(OpBuilder &builder, ArrayRef<Value> resultGrads,
                            ArrayRef<bool>,
                            SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {MaxPool2dGradOp::create(builder, getLoc(), getInput().getType(),
                               resultGrads[0], getIndices(), getKernelAttr(),
                               getStrideAttr(), getPaddingAttr(),
                               getCeilModeAttr())
           .getResult()});
  return success();
}

SmallVector<Value> AvgPool2dOp::getSavedValues(ArrayRef<bool>) { return {}; }

LogicalResult
AvgPool2dOp::buildGradients(OpBuilder &builder, ArrayRef<Value> resultGrads,
                            ArrayRef<bool>,
                            SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {AvgPool2dGradOp::create(builder, getLoc(), getInput().getType(),
                               resultGrads[0], getKernelAttr(), getStrideAttr(),
                               getPaddingAttr(), getCeilModeAttr(),
                               getCountIncludePadAttr())
           .getResult()});
  return success();
}

SmallVector<Value> UpsampleNearest2dOp::getSavedValues(ArrayRef<bool>) {
  return {};
}

LogicalResult
UpsampleNearest2dOp::buildGradients(OpBuilder &builder,
                                    ArrayRef<Value> resultGrads, ArrayRef<bool>,
                                    SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({UpsampleNearest2dGradOp::create(
                           builder, getLoc(), resultGrads[0], getScaleAttr())
                           .getResult()});
  return success();
}

SmallVector<Value> BatchNormOp::getSavedValues(ArrayRef<bool>) {
  SmallVector<Value> saved = {getInput(), getMean(), getRstd()};
  if (getWeight())
    saved.push_back(getWeight());
  return saved;
}

LogicalResult
BatchNormOp::buildGradients(OpBuilder &builder, ArrayRef<Value> resultGrads,
                            ArrayRef<bool> needsGrad,
                            SmallVectorImpl<Value> &operandGrads) {
  if (failed(rejectStatisticsGradients(*this, resultGrads)))
    return failure();
  auto grads = BatchNormGradOp::create(builder, getLoc(), resultGrads[0],
                                       getInput(), getMean(), getRstd(),
                                       getWeight());
  assignNormGradients(operandGrads, needsGrad, grads.getInputGrad(),
                      {{getWeight(), grads.getWeightGrad()},
                       {getBias(), grads.getBiasGrad()}});
  return success();
}
