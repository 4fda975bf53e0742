//===- CkptOps.cpp - shape rules, verifiers and syntax of ckpt ops --------===//
//
// Result types are inferred from operands and attributes (InferTypeOpInterface)
// so builders never spell them out; the inference doubles as the verifier and
// names the exact dimension that disagrees. Dimensions of unknown size (`?`)
// agree with anything.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <sstream>

using namespace mlir;
using namespace ckpt;

#include "ckpt/Dialect/Ckpt/IR/CkptEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared shape rules
//===----------------------------------------------------------------------===//

namespace {

/// Prints a shape as `[8, 512, ?]`.
struct ShapeText {
  ArrayRef<int64_t> shape;
};

Diagnostic &operator<<(Diagnostic &diag, ShapeText text) {
  diag << "[";
  llvm::interleave(
      text.shape,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          diag << "?";
        else
          diag << d;
      },
      [&] { diag << ", "; });
  return diag << "]";
}

} // namespace

/// Emits `'<op>' op <message>` at `loc` when a location is given; builders
/// that infer types without one just fail.
template <typename... Args>
static LogicalResult opError(std::optional<Location> loc, StringRef opName,
                             Args &&...args) {
  return emitOptionalError(loc, "'", opName, "' op ",
                           std::forward<Args>(args)...);
}

/// The shortest readable spelling of a real in a message (1.5, not
/// 1.500000e+00).
static std::string realText(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

/// Two sizes conflict only when both are known and differ.
static bool sizesConflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

static LogicalResult checkSameElementType(std::optional<Location> loc,
                                          StringRef opName, StringRef what,
                                          TypeRange types) {
  Type first = cast<ShapedType>(types.front()).getElementType();
  for (Type type : types.drop_front()) {
    Type element = cast<ShapedType>(type).getElementType();
    if (element != first)
      return opError(loc, opName, what, " must share one element type, got ",
                     first, " and ", element);
  }
  return success();
}

static LogicalResult checkDim(std::optional<Location> loc, StringRef opName,
                              int64_t dim, int64_t rank) {
  if (dim < 0 || dim >= rank)
    return opError(loc, opName, "dim ", dim,
                   " is out of range for an input of rank ", rank);
  return success();
}

// The helpers below are called from definitions that CkptOps.td generates
// for whole op classes (binary, reduction, softmax-like, inferring).

static LogicalResult inferBroadcastType(std::optional<Location> loc,
                                        StringRef opName, Type lhs, Type rhs,
                                        SmallVectorImpl<Type> &inferred) {
  if (failed(checkSameElementType(loc, opName, "operands", {lhs, rhs})))
    return failure();
  auto lhsType = cast<RankedTensorType>(lhs);
  auto rhsType = cast<RankedTensorType>(rhs);
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(lhsType.getShape(),
                                          rhsType.getShape(), shape))
    return opError(loc, opName, "operand shapes ",
                   ShapeText{lhsType.getShape()}, " and ",
                   ShapeText{rhsType.getShape()}, " do not broadcast");
  inferred.push_back(RankedTensorType::get(shape, lhsType.getElementType()));
  return success();
}

static LogicalResult inferReductionType(std::optional<Location> loc,
                                        StringRef opName, Type input,
                                        std::optional<ArrayRef<int64_t>> dims,
                                        bool keepdim,
                                        SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<RankedTensorType>(input);
  int64_t rank = inputType.getRank();
  llvm::SmallBitVector reduced(rank, !dims.has_value());
  for (int64_t dim : dims.value_or(ArrayRef<int64_t>{})) {
    if (failed(checkDim(loc, opName, dim, rank)))
      return failure();
    if (reduced.test(dim))
      return opError(loc, opName, "dim ", dim, " is reduced twice");
    reduced.set(dim);
  }
  SmallVector<int64_t> shape;
  for (auto [i, size] : llvm::enumerate(inputType.getShape())) {
    if (!reduced.test(i))
      shape.push_back(size);
    else if (keepdim)
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

static LogicalResult verifyDimInRange(Operation *op, int64_t dim, Type input) {
  return checkDim(op->getLoc(), op->getName().getStringRef(), dim,
                  cast<RankedTensorType>(input).getRank());
}

static LogicalResult verifyResultTypes(Operation *op, ArrayRef<Type> inferred) {
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip_equal(op->getResultTypes(), inferred))) {
    auto [written, expected] = pair;
    if (written != expected)
      return op->emitOpError()
             << "result " << index << " has type " << written
             << " but the operands and attributes give " << expected;
  }
  return success();
}

/// The shape of the statistics of a normalisation: the leading dimensions,
/// then a 1 for each normalised one (as PyTorch returns them).
static RankedTensorType statisticsType(RankedTensorType input,
                                       size_t normalizedRank) {
  SmallVector<int64_t> shape(input.getShape().drop_back(normalizedRank));
  shape.append(normalizedRank, 1);
  return RankedTensorType::get(shape, input.getElementType());
}

/// Checks `normalized_shape` against the input's trailing dimensions and the
/// affine operands, which must have exactly that shape.
static LogicalResult checkNormalization(std::optional<Location> loc,
                                        StringRef opName,
                                        RankedTensorType input,
                                        ArrayRef<int64_t> normalizedShape,
                                        double eps, ValueRange affine) {
  if (normalizedShape.empty())
    return opError(loc, opName, "normalized_shape must not be empty");
  if (normalizedShape.size() > static_cast<size_t>(input.getRank()))
    return opError(loc, opName, "normalized_shape ", ShapeText{normalizedShape},
                   " has more dimensions than the input (rank ",
                   input.getRank(), ")");
  ArrayRef<int64_t> trailing =
      input.getShape().take_back(normalizedShape.size());
  for (auto [expected, actual] : llvm::zip_equal(normalizedShape, trailing)) {
    if (expected <= 0)
      return opError(loc, opName, "normalized_shape ",
                     ShapeText{normalizedShape}, " must have positive entries");
    if (sizesConflict(expected, actual))
      return opError(loc, opName, "normalized_shape ",
                     ShapeText{normalizedShape},
                     " does not match the trailing dimensions ",
                     ShapeText{trailing}, " of the input");
  }
  if (!(eps >= 0.0))
    return opError(loc, opName, "eps must be non-negative, got ",
                   realText(eps));
  for (Value operand : affine) {
    auto type = cast<RankedTensorType>(operand.getType());
    if (type.getElementType() != input.getElementType())
      return opError(loc, opName,
                     "weight and bias must have the input's "
                     "element type ",
                     input.getElementType(), ", got ", type.getElementType());
    if (type.getShape() != normalizedShape)
      return opError(loc, opName, "weight and bias must have shape ",
                     ShapeText{normalizedShape}, ", got ",
                     ShapeText{type.getShape()});
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Dense
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  SmallVector<Type> types = {input, weight};
  if (Value bias = adaptor.getBias())
    types.push_back(bias.getType());
  if (failed(checkSameElementType(loc, name, "input, weight and bias", types)))
    return failure();
  if (input.getRank() < 1)
    return opError(loc, name, "input must have rank >= 1");
  if (weight.getRank() != 2)
    return opError(loc, name,
                   "weight must be 2-D [out_features, "
                   "in_features], got rank ",
                   weight.getRank());
  int64_t inFeatures = input.getShape().back();
  if (sizesConflict(inFeatures, weight.getDimSize(1)))
    return opError(loc, name, "input features (", inFeatures,
                   ") do not match weight columns (", weight.getDimSize(1),
                   ")");
  if (Value bias = adaptor.getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 ||
        sizesConflict(biasType.getDimSize(0), weight.getDimSize(0)))
      return opError(loc, name, "bias must be 1-D with ", weight.getDimSize(0),
                     " elements (weight rows), got ",
                     ShapeText{biasType.getShape()});
  }
  SmallVector<int64_t> shape(input.getShape().drop_back());
  shape.push_back(weight.getDimSize(0));
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto lhs = cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = cast<RankedTensorType>(adaptor.getRhs().getType());
  if (failed(checkSameElementType(loc, name, "operands", {lhs, rhs})))
    return failure();
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return opError(loc, name, "operands must have rank >= 2, got ranks ",
                   lhs.getRank(), " and ", rhs.getRank());
  // The matrices' (rows, columns) as the product reads them.
  auto matrix = [](RankedTensorType type, bool transposed) {
    int64_t rows = type.getShape().drop_back().back(),
            columns = type.getShape().back();
    return transposed ? std::pair(columns, rows) : std::pair(rows, columns);
  };
  auto [m, lhsK] = matrix(lhs, bool(adaptor.getTransposeLhs()));
  auto [rhsK, n] = matrix(rhs, bool(adaptor.getTransposeRhs()));
  if (sizesConflict(lhsK, rhsK))
    return opError(loc, name, "contraction sizes differ: lhs has K = ", lhsK,
                   ", rhs has K = ", rhsK);
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(lhs.getShape().drop_back(2),
                                          rhs.getShape().drop_back(2), shape))
    return opError(loc, name, "batch dimensions ",
                   ShapeText{lhs.getShape().drop_back(2)}, " and ",
                   ShapeText{rhs.getShape().drop_back(2)}, " do not broadcast");
  shape.append({m, n});
  inferred.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// Binary elementwise types print as one type when operands and result agree,
/// and as `(lhs, rhs) -> result` otherwise.
static ParseResult parseElementwiseTypes(OpAsmParser &parser, Type &lhs,
                                         Type &rhs, Type &result) {
  if (succeeded(parser.parseOptionalLParen())) {
    if (parser.parseType(lhs) || parser.parseComma() || parser.parseType(rhs) ||
        parser.parseRParen() || parser.parseArrow() || parser.parseType(result))
      return failure();
    return success();
  }
  if (parser.parseType(lhs))
    return failure();
  rhs = result = lhs;
  return success();
}

static void printElementwiseTypes(OpAsmPrinter &printer, Operation *, Type lhs,
                                  Type rhs, Type result) {
  if (lhs == rhs && rhs == result) {
    printer << lhs;
    return;
  }
  printer << "(" << lhs << ", " << rhs << ") -> " << result;
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto cond = cast<RankedTensorType>(adaptor.getCondition().getType());
  auto onTrue = cast<RankedTensorType>(adaptor.getTrueValue().getType());
  auto onFalse = cast<RankedTensorType>(adaptor.getFalseValue().getType());
  if (failed(checkSameElementType(loc, name, "true and false values",
                                  {onTrue, onFalse})))
    return failure();
  SmallVector<int64_t> values, shape;
  if (!OpTrait::util::getBroadcastedShape(onTrue.getShape(), onFalse.getShape(),
                                          values) ||
      !OpTrait::util::getBroadcastedShape(cond.getShape(), values, shape))
    return opError(loc, name, "condition ", ShapeText{cond.getShape()},
                   ", true value ", ShapeText{onTrue.getShape()},
                   " and false value ", ShapeText{onFalse.getShape()},
                   " do not broadcast");
  inferred.push_back(RankedTensorType::get(shape, onTrue.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Normalisation and randomness
//===----------------------------------------------------------------------===//

// Both normalisations: operands are the input and then whichever affine
// operands are present; results are the output and `numStatistics`
// statistics tensors.
static LogicalResult
inferNormalizationTypes(std::optional<Location> loc, StringRef opName,
                        ValueRange operands, ArrayRef<int64_t> normalizedShape,
                        const llvm::APFloat &eps, unsigned numStatistics,
                        SmallVectorImpl<Type> &inferred) {
  auto input = cast<RankedTensorType>(operands.front().getType());
  if (failed(checkNormalization(loc, opName, input, normalizedShape,
                                eps.convertToDouble(), operands.drop_front())))
    return failure();
  inferred.push_back(input);
  inferred.append(numStatistics, statisticsType(input, normalizedShape.size()));
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  return inferNormalizationTypes(loc, getOperationName(), adaptor.getOperands(),
                                 adaptor.getNormalizedShape(), adaptor.getEps(),
                                 /*numStatistics=*/2, inferred);
}

LogicalResult RmsNormOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferNormalizationTypes(loc, getOperationName(), adaptor.getOperands(),
                                 adaptor.getNormalizedShape(), adaptor.getEps(),
                                 /*numStatistics=*/1, inferred);
}

/// Shared by dropout and its gradient: p in [0, 1], a non-negative offset.
static LogicalResult verifyDropout(Operation *op, double p,
                                   std::optional<int64_t> offset) {
  if (!(p >= 0.0 && p <= 1.0))
    return op->emitOpError()
           << "probability p = " << realText(p) << " is outside [0, 1]";
  if (offset && *offset < 0)
    return op->emitOpError()
           << "counter offset must be non-negative, got " << *offset;
  return success();
}

/// Shared by clamp and its gradient: at least one bound, in order.
static LogicalResult verifyClampBounds(Operation *op,
                                       std::optional<APFloat> min,
                                       std::optional<APFloat> max) {
  if (!min && !max)
    return op->emitOpError() << "needs a 'min' or a 'max' bound";
  if (min && max && min->convertToDouble() > max->convertToDouble())
    return op->emitOpError()
           << "bound min = " << realText(min->convertToDouble())
           << " is above max = " << realText(max->convertToDouble());
  return success();
}

LogicalResult CastOp::verify() {
  Type element = getInput().getType().getElementType();
  if (element == getType().getElementType())
    return emitOpError("converts ")
           << element << " to itself; a cast changes the element type";
  return success();
}

LogicalResult ClampOp::verify() {
  return verifyClampBounds(*this, getMin(), getMax());
}

LogicalResult ClampGradOp::verify() {
  return verifyClampBounds(*this, getMin(), getMax());
}

LogicalResult DropoutOp::verify() {
  if (bool(getRng()) != getOffset().has_value())
    return emitOpError() << "takes an 'rng' state and an 'offset' together";
  return verifyDropout(*this, getP().convertToDouble(), getOffset());
}

void DropoutOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // Only the implicit form has effects: it consumes the hidden generator.
  if (getRng())
    return;
  effects.emplace_back(MemoryEffects::Read::get(), RandomResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), RandomResource::get());
}

uint64_t DropoutOp::getNumCounters() {
  return llvm::divideCeil(
      getStaticElementCount(getInput().getType()).value_or(0), 4);
}

LogicalResult RngAdvanceOp::verify() {
  if (static_cast<int64_t>(getCounters()) < 0)
    return emitOpError() << "counters must be non-negative, got "
                         << static_cast<int64_t>(getCounters());
  return success();
}

LogicalResult DropoutGradOp::verify() {
  return verifyDropout(*this, getP().convertToDouble(), getOffset());
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// Checks the operands of attention and its gradient and gives the types of
/// the output `[N, H, L, Ev]` and of the row log-sum-exp `[N, H, L]`.
static LogicalResult
inferAttentionTypes(std::optional<Location> loc, StringRef opName, Value query,
                    Value key, Value value, Value mask, bool causal,
                    SmallVectorImpl<Type> &inferred) {
  auto q = cast<RankedTensorType>(query.getType());
  auto k = cast<RankedTensorType>(key.getType());
  auto v = cast<RankedTensorType>(value.getType());
  SmallVector<Type> types = {q, k, v};
  if (mask)
    types.push_back(mask.getType());
  if (failed(checkSameElementType(loc, opName, "query, key, value and mask",
                                  types)))
    return failure();
  StringRef names[] = {"query", "key", "value"};
  RankedTensorType operands[] = {q, k, v};
  for (auto [name, type] : llvm::zip_equal(names, operands))
    if (type.getRank() != 4)
      return opError(loc, opName, name,
                     " must have rank 4 [batch, heads, sequence, features], "
                     "got shape ",
                     ShapeText{type.getShape()});
  auto conflict = [&](StringRef what, int64_t a, int64_t b) {
    return opError(loc, opName, what, " (", a, " and ", b, ")");
  };
  if (sizesConflict(q.getDimSize(0), k.getDimSize(0)) ||
      sizesConflict(k.getDimSize(0), v.getDimSize(0)))
    return conflict("query, key and value have different batch sizes",
                    q.getDimSize(0), k.getDimSize(0) != q.getDimSize(0)
                                         ? k.getDimSize(0)
                                         : v.getDimSize(0));
  if (sizesConflict(k.getDimSize(1), v.getDimSize(1)))
    return conflict("key and value have different head counts",
                    k.getDimSize(1), v.getDimSize(1));
  if (sizesConflict(k.getDimSize(2), v.getDimSize(2)))
    return conflict("key and value have different sequence lengths",
                    k.getDimSize(2), v.getDimSize(2));
  if (sizesConflict(q.getDimSize(3), k.getDimSize(3)))
    return conflict("query and key have different feature sizes",
                    q.getDimSize(3), k.getDimSize(3));
  int64_t heads = q.getDimSize(1), keyHeads = k.getDimSize(1);
  if (!ShapedType::isDynamic(heads) && !ShapedType::isDynamic(keyHeads) &&
      (keyHeads == 0 || heads % keyHeads != 0))
    return opError(loc, opName, "query heads (", heads,
                   ") must be a multiple of key heads (", keyHeads, ")");
  if (mask) {
    if (causal)
      return opError(loc, opName, "takes a mask or 'causal', not both");
    auto m = cast<RankedTensorType>(mask.getType());
    SmallVector<int64_t> scores = {q.getDimSize(0), heads, q.getDimSize(2),
                                   k.getDimSize(2)};
    SmallVector<int64_t> shape;
    if (m.getRank() > 4 ||
        !OpTrait::util::getBroadcastedShape(scores, m.getShape(), shape) ||
        ArrayRef<int64_t>(shape) != ArrayRef<int64_t>(scores))
      return opError(loc, opName, "mask of shape ", ShapeText{m.getShape()},
                     " does not broadcast to the scores' shape ",
                     ShapeText{scores});
  }
  Type element = q.getElementType();
  inferred.push_back(RankedTensorType::get(
      {q.getDimSize(0), heads, q.getDimSize(2), v.getDimSize(3)}, element));
  inferred.push_back(RankedTensorType::get(
      {q.getDimSize(0), heads, q.getDimSize(2)}, element));
  return success();
}

/// The dropout of attention: `p` and its counters as dropout's, and a
/// random state whenever something is dropped.
static LogicalResult verifyAttentionDropout(Operation *op, double p, Value rng,
                                            std::optional<int64_t> offset,
                                            bool implicitAllowed) {
  if (bool(rng) != offset.has_value())
    return op->emitOpError() << "takes an 'rng' state and an 'offset' together";
  if (!(p >= 0.0 && p < 1.0))
    return op->emitOpError()
           << "dropout probability p = " << realText(p)
           << " is outside [0, 1)";
  if (!implicitAllowed && p != 0.0 && !rng)
    return op->emitOpError()
           << "drops attention weights (p = " << realText(p)
           << ") and needs the forward op's 'rng' state to draw them again";
  return verifyDropout(op, p, offset);
}

/// The verifier of attention and its gradient: the inferred types, then
/// the dropout operands.
template <typename OpTy>
static LogicalResult verifyAttention(OpTy op, bool implicitAllowed) {
  SmallVector<Type> inferred;
  if (failed(OpTy::inferReturnTypes(op.getContext(), op.getLoc(),
                                    typename OpTy::Adaptor(op), inferred)) ||
      failed(verifyResultTypes(op, inferred)))
    return failure();
  return verifyAttentionDropout(op, op.getP().convertToDouble(), op.getRng(),
                                op.getOffset(), implicitAllowed);
}

LogicalResult ScaledDotProductAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  return inferAttentionTypes(loc, getOperationName(), adaptor.getQuery(),
                             adaptor.getKey(), adaptor.getValue(),
                             adaptor.getMask(), adaptor.getCausal(), inferred);
}

LogicalResult ScaledDotProductAttentionOp::verify() {
  return verifyAttention(*this, /*implicitAllowed=*/true);
}

void ScaledDotProductAttentionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // Only implicit dropout has effects: it consumes the hidden generator.
  if (getRng() || getP().isZero())
    return;
  effects.emplace_back(MemoryEffects::Read::get(), RandomResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), RandomResource::get());
}

uint64_t ScaledDotProductAttentionOp::getNumCounters() {
  if (getP().isZero())
    return 0;
  RankedTensorType query = getQuery().getType();
  std::optional<uint64_t> weights =
      getStaticElementCount(RankedTensorType::get(
          {query.getDimSize(0), query.getDimSize(1), query.getDimSize(2),
           getKey().getType().getDimSize(2)},
          query.getElementType()));
  return llvm::divideCeil(weights.value_or(0), 4);
}

LogicalResult ScaledDotProductAttentionGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  SmallVector<Type> forward;
  if (failed(inferAttentionTypes(loc, name, adaptor.getQuery(),
                                 adaptor.getKey(), adaptor.getValue(),
                                 adaptor.getMask(), adaptor.getCausal(),
                                 forward)))
    return failure();
  StringRef names[] = {"grad", "result", "lse"};
  Value values[] = {adaptor.getGrad(), adaptor.getResult(), adaptor.getLse()};
  Type expectedTypes[] = {forward[0], forward[0], forward[1]};
  for (auto [what, value, expected] :
       llvm::zip_equal(names, values, expectedTypes))
    if (value.getType() != expected)
      return opError(loc, name, what, " has type ", value.getType(),
                     " but the forward op gives ", expected);
  inferred.append({adaptor.getQuery().getType(), adaptor.getKey().getType(),
                   adaptor.getValue().getType()});
  return success();
}

LogicalResult ScaledDotProductAttentionGradOp::verify() {
  return verifyAttention(*this, /*implicitAllowed=*/false);
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto input = getInput().getType();
  auto result = getResult().getType();
  if (input.hasStaticShape() && result.hasStaticShape() &&
      input.getNumElements() != result.getNumElements())
    return emitOpError() << "element count changes from "
                         << input.getNumElements() << " to "
                         << result.getNumElements();
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  if (static_cast<int64_t>(perm.size()) != input.getRank())
    return opError(loc, name, "permutation has ", perm.size(),
                   " entries but the input has rank ", input.getRank());
  llvm::SmallBitVector seen(perm.size());
  SmallVector<int64_t> shape;
  for (int64_t source : perm) {
    if (source < 0 || source >= input.getRank() || seen.test(source))
      return opError(loc, name, "permutation ", ShapeText{perm},
                     " is not a permutation of 0..", input.getRank() - 1);
    seen.set(source);
    shape.push_back(input.getDimSize(source));
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult BroadcastToOp::verify() {
  auto input = getInput().getType();
  auto result = getResult().getType();
  if (input.getRank() > result.getRank())
    return emitOpError() << "cannot broadcast rank " << input.getRank()
                         << " to the smaller rank " << result.getRank();
  int64_t offset = result.getRank() - input.getRank();
  for (auto [i, size] : llvm::enumerate(input.getShape())) {
    int64_t target = result.getDimSize(offset + i);
    if (size != 1 && sizesConflict(size, target))
      return emitOpError() << "input dimension " << i << " of size " << size
                           << " cannot broadcast to size " << target;
  }
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t dim = adaptor.getDim();
  if (failed(checkDim(loc, name, dim, input.getRank())))
    return failure();
  int64_t start = adaptor.getStart(), end = adaptor.getEnd();
  int64_t step = adaptor.getStep();
  if (step < 1)
    return opError(loc, name, "step must be >= 1, got ", step);
  int64_t size = input.getDimSize(dim);
  if (start < 0 || end < start || (!ShapedType::isDynamic(size) && end > size))
    return opError(loc, name, "slice [", start, ", ", end,
                   ") does not fit dimension ", dim, " of size ",
                   ShapedType::isDynamic(size) ? std::string("?")
                                               : std::to_string(size));
  SmallVector<int64_t> shape(input.getShape());
  int64_t extent = end - start; // cannot overflow: 0 <= start <= end
  shape[dim] = extent / step + (extent % step != 0);
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return opError(loc, name, "needs at least one input");
  if (failed(checkSameElementType(loc, name, "inputs", inputs.getTypes())))
    return failure();
  auto first = cast<RankedTensorType>(inputs.front().getType());
  int64_t dim = adaptor.getDim();
  if (failed(checkDim(loc, name, dim, first.getRank())))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (auto [index, value] : llvm::enumerate(inputs.drop_front())) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() != first.getRank())
      return opError(loc, name, "input ", index + 1, " has rank ",
                     type.getRank(), " but input 0 has rank ", first.getRank());
    for (int64_t d = 0; d < first.getRank(); ++d) {
      if (d == dim)
        continue;
      if (sizesConflict(type.getDimSize(d), shape[d]))
        return opError(loc, name, "input ", index + 1, " has shape ",
                       ShapeText{type.getShape()},
                       ", which differs from input 0 ",
                       ShapeText{first.getShape()}, " outside dim ", dim);
    }
    if (ShapedType::isDynamic(shape[dim]) || type.isDynamicDim(dim)) {
      shape[dim] = ShapedType::kDynamic;
      continue;
    }
    if (llvm::AddOverflow(shape[dim], type.getDimSize(dim), shape[dim]))
      return opError(loc, name, "concatenated size along dim ", dim,
                     " overflows 64 bits");
  }
  inferred.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Lookup and losses
//===----------------------------------------------------------------------===//

/// A padding row must be a row of the table.
static LogicalResult checkPaddingIndex(std::optional<Location> loc,
                                       StringRef name,
                                       std::optional<int64_t> paddingIndex,
                                       int64_t rows) {
  if (paddingIndex && !ShapedType::isDynamic(rows) &&
      (*paddingIndex < 0 || *paddingIndex >= rows))
    return opError(loc, name, "padding_idx ", *paddingIndex,
                   " is not a row of the ", rows, "-row table");
  return success();
}

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  if (weight.getRank() != 2)
    return opError(loc, getOperationName(),
                   "weight must be 2-D [num_embeddings, embedding_dim], got "
                   "rank ",
                   weight.getRank());
  if (failed(checkPaddingIndex(loc, getOperationName(),
                               adaptor.getPaddingIdx(), weight.getDimSize(0))))
    return failure();
  SmallVector<int64_t> shape(indices.getShape());
  shape.push_back(weight.getDimSize(1));
  inferred.push_back(RankedTensorType::get(shape, weight.getElementType()));
  return success();
}

/// The scalar loss type of cross-entropy over `logits` and `labels`; shared
/// by the loss and its gradient, which report under their own names.
static LogicalResult inferCrossEntropyType(std::optional<Location> loc,
                                           StringRef name, Value logitsValue,
                                           Value labelsValue,
                                           SmallVectorImpl<Type> &inferred) {
  auto logits = cast<RankedTensorType>(logitsValue.getType());
  auto labels = cast<RankedTensorType>(labelsValue.getType());
  if (logits.getRank() != 2)
    return opError(loc, name, "logits must be 2-D [batch, classes], got rank ",
                   logits.getRank());
  if (labels.getRank() != 1)
    return opError(loc, name, "labels must be 1-D [batch], got rank ",
                   labels.getRank());
  if (sizesConflict(logits.getDimSize(0), labels.getDimSize(0)))
    return opError(loc, name, "batch sizes differ: logits have ",
                   logits.getDimSize(0), " rows, labels have ",
                   labels.getDimSize(0));
  inferred.push_back(RankedTensorType::get({}, logits.getElementType()));
  return success();
}

LogicalResult
CrossEntropyOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                 Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  return inferCrossEntropyType(loc, getOperationName(), adaptor.getLogits(),
                               adaptor.getLabels(), inferred);
}

/// The scalar loss type of mean squared error; shared like cross-entropy's.
static LogicalResult inferMseLossType(std::optional<Location> loc,
                                      StringRef name, Value inputValue,
                                      Value targetValue,
                                      SmallVectorImpl<Type> &inferred) {
  Type input = inputValue.getType();
  Type target = targetValue.getType();
  if (input != target)
    return opError(loc, name, "input ", input, " and target ", target,
                   " must have the same type");
  inferred.push_back(RankedTensorType::get(
      {}, cast<RankedTensorType>(input).getElementType()));
  return success();
}

LogicalResult MseLossOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferMseLossType(loc, getOperationName(), adaptor.getInput(),
                          adaptor.getTarget(), inferred);
}

//===----------------------------------------------------------------------===//
// Vision
//===----------------------------------------------------------------------===//

namespace {

/// A 2-D window sliding over the spatial dimensions of an NCHW image.
struct Window {
  ArrayRef<int64_t> kernel, stride, padding, dilation;
};

} // namespace

/// Checks that a [height, width] attribute has two entries of at least
/// `minimum` (0 or 1).
static LogicalResult checkPair(std::optional<Location> loc, StringRef opName,
                               StringRef what, ArrayRef<int64_t> pair,
                               int64_t minimum) {
  if (pair.size() != 2)
    return opError(loc, opName, what,
                   " must have 2 entries [height, width], got ",
                   ShapeText{pair});
  if (pair[0] < minimum || pair[1] < minimum)
    return opError(loc, opName, what, " ", ShapeText{pair}, " must be ",
                   minimum > 0 ? "positive" : "non-negative");
  return success();
}

static LogicalResult checkImage(std::optional<Location> loc, StringRef opName,
                                StringRef what, RankedTensorType type) {
  if (type.getRank() != 4)
    return opError(loc, opName, what,
                   " must be 4-D [batch, channels, height, width], got rank ",
                   type.getRank());
  return success();
}

/// The output height and width of `window` over the spatial dimensions of
/// `image` (unknown where the input size or the kernel size is unknown).
/// Kernel sizes come from a weight shape for convolutions, so they are
/// checked here too.
static FailureOr<std::array<int64_t, 2>>
inferWindowOutput(std::optional<Location> loc, StringRef opName,
                  RankedTensorType image, Window window) {
  if (failed(checkPair(loc, opName, "stride", window.stride, 1)) ||
      failed(checkPair(loc, opName, "padding", window.padding, 0)) ||
      failed(checkPair(loc, opName, "dilation", window.dilation, 1)))
    return failure();
  std::array<int64_t, 2> output;
  static constexpr StringLiteral axes[] = {"height", "width"};
  for (int i = 0; i < 2; ++i) {
    int64_t size = image.getDimSize(2 + i), kernel = window.kernel[i];
    if (!ShapedType::isDynamic(kernel) && kernel < 1)
      return opError(loc, opName, "kernel ", ShapeText{window.kernel},
                     " must be positive");
    if (ShapedType::isDynamic(size) || ShapedType::isDynamic(kernel)) {
      output[i] = ShapedType::kDynamic;
      continue;
    }
    // extent = dilation * (kernel - 1) + 1, padded = size + 2 * padding.
    std::optional<int64_t> extent =
        llvm::checkedMulAdd<int64_t>(window.dilation[i], kernel - 1, 1);
    std::optional<int64_t> padded =
        llvm::checkedMulAdd<int64_t>(2, window.padding[i], size);
    if (!extent || !padded)
      return opError(loc, opName, "window ", axes[i], " overflows 64 bits");
    if (*extent > *padded)
      return opError(loc, opName, "kernel ", axes[i], " ", *extent,
                     window.dilation[i] > 1 ? " (dilated)" : "",
                     " exceeds the padded input ", axes[i], " ", *padded);
    output[i] = (*padded - *extent) / window.stride[i] + 1;
  }
  return output;
}

/// The result type of conv2d: shared by the op and its gradients, which
/// check their operands by convolving the types they are given.
static LogicalResult inferConvType(std::optional<Location> loc,
                                   StringRef opName, RankedTensorType input,
                                   RankedTensorType weight, Value bias,
                                   ArrayRef<int64_t> stride,
                                   ArrayRef<int64_t> padding,
                                   ArrayRef<int64_t> dilation, int64_t groups,
                                   SmallVectorImpl<Type> &inferred) {
  SmallVector<Type> types = {input, weight};
  if (bias)
    types.push_back(bias.getType());
  if (failed(
          checkSameElementType(loc, opName, "input, weight and bias", types)) ||
      failed(checkImage(loc, opName, "input", input)))
    return failure();
  if (weight.getRank() != 4)
    return opError(loc, opName,
                   "weight must be 4-D [out_channels, in_channels / groups, "
                   "kernel_height, kernel_width], got rank ",
                   weight.getRank());
  if (groups < 1)
    return opError(loc, opName, "groups must be positive, got ", groups);
  int64_t channels = input.getDimSize(1);
  int64_t outChannels = weight.getDimSize(0);
  if (!ShapedType::isDynamic(channels) && channels % groups != 0)
    return opError(loc, opName, "input channels (", channels,
                   ") are not divisible by groups (", groups, ")");
  if (!ShapedType::isDynamic(outChannels) && outChannels % groups != 0)
    return opError(loc, opName, "output channels (", outChannels,
                   ") are not divisible by groups (", groups, ")");
  if (!ShapedType::isDynamic(channels) &&
      sizesConflict(weight.getDimSize(1), channels / groups))
    return opError(loc, opName, "weight has ", weight.getDimSize(1),
                   " input channels per group, but the input's ", channels,
                   " channels in ", groups, " groups give ", channels / groups);
  if (bias) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 ||
        sizesConflict(biasType.getDimSize(0), outChannels))
      return opError(loc, opName, "bias must be 1-D with ", outChannels,
                     " elements (output channels), got ",
                     ShapeText{biasType.getShape()});
  }
  FailureOr<std::array<int64_t, 2>> spatial = inferWindowOutput(
      loc, opName, input,
      {weight.getShape().take_back(2), stride, padding, dilation});
  if (failed(spatial))
    return failure();
  inferred.push_back(RankedTensorType::get(
      {input.getDimSize(0), outChannels, (*spatial)[0], (*spatial)[1]},
      input.getElementType()));
  return success();
}

LogicalResult Conv2dOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferConvType(loc, getOperationName(),
                       cast<RankedTensorType>(adaptor.getInput().getType()),
                       cast<RankedTensorType>(adaptor.getWeight().getType()),
                       adaptor.getBias(), adaptor.getStride(),
                       adaptor.getPadding(), adaptor.getDilation(),
                       adaptor.getGroups(), inferred);
}

/// The output type of a pooling window over `input`; PyTorch's limit on
/// the padding keeps every window overlapping the unpadded input.
static FailureOr<RankedTensorType>
inferPoolType(std::optional<Location> loc, StringRef opName, Type inputType,
              ArrayRef<int64_t> kernel, std::optional<ArrayRef<int64_t>> stride,
              ArrayRef<int64_t> padding, bool ceilMode) {
  auto input = cast<RankedTensorType>(inputType);
  if (failed(checkImage(loc, opName, "input", input)) ||
      failed(checkPair(loc, opName, "kernel", kernel, 1)))
    return failure();
  if (stride && failed(checkPair(loc, opName, "stride", *stride, 1)))
    return failure();
  if (failed(checkPair(loc, opName, "padding", padding, 0)))
    return failure();
  if (padding[0] > kernel[0] / 2 || padding[1] > kernel[1] / 2)
    return opError(loc, opName, "padding ", ShapeText{padding},
                   " must be at most half the kernel ", ShapeText{kernel});
  int64_t unit[] = {1, 1};
  ArrayRef<int64_t> step = stride.value_or(kernel);
  FailureOr<std::array<int64_t, 2>> spatial =
      inferWindowOutput(loc, opName, input, {kernel, step, padding, unit});
  if (failed(spatial))
    return failure();
  for (unsigned axis = 0; ceilMode && axis < 2; ++axis) {
    int64_t size = input.getDimSize(2 + axis);
    if (ShapedType::isDynamic(size))
      continue;
    // Rounded up, less a last window that would start in the trailing
    // padding (PyTorch's pooling_output_shape).
    int64_t span = size + 2 * padding[axis] - kernel[axis];
    int64_t out = llvm::divideCeil(span, step[axis]) + 1;
    if ((out - 1) * step[axis] >= size + padding[axis])
      --out;
    (*spatial)[axis] = out;
  }
  return RankedTensorType::get(
      {input.getDimSize(0), input.getDimSize(1), (*spatial)[0], (*spatial)[1]},
      input.getElementType());
}

/// A pool's ceil_mode; a builder given no attribute means the default.
template <typename AdaptorTy> static bool ceilMode(AdaptorTy adaptor) {
  BoolAttr ceil = adaptor.getCeilModeAttr();
  return ceil && ceil.getValue();
}

LogicalResult MaxPool2dOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  FailureOr<RankedTensorType> output = inferPoolType(
      loc, getOperationName(), adaptor.getInput().getType(),
      adaptor.getKernel(), adaptor.getStride(), adaptor.getPadding(),
      ceilMode(adaptor));
  if (failed(output))
    return failure();
  inferred.push_back(*output);
  inferred.push_back(output->clone(IntegerType::get(context, 64)));
  return success();
}

LogicalResult AvgPool2dOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  FailureOr<RankedTensorType> output = inferPoolType(
      loc, getOperationName(), adaptor.getInput().getType(),
      adaptor.getKernel(), adaptor.getStride(), adaptor.getPadding(),
      ceilMode(adaptor));
  if (failed(output))
    return failure();
  inferred.push_back(*output);
  return success();
}

LogicalResult UpsampleNearest2dOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> scale = adaptor.getScale();
  if (failed(checkImage(loc, name, "input", input)) ||
      failed(checkPair(loc, name, "scale", scale, 1)))
    return failure();
  SmallVector<int64_t> shape(input.getShape());
  for (int i = 0; i < 2; ++i) {
    if (ShapedType::isDynamic(shape[2 + i]))
      continue;
    std::optional<int64_t> scaled =
        llvm::checkedMul<int64_t>(shape[2 + i], scale[i]);
    if (!scaled)
      return opError(loc, name, "upsampled size overflows 64 bits");
    shape[2 + i] = *scaled;
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

/// The per-channel statistics type of batch normalisation: `[C]`.
static RankedTensorType channelType(RankedTensorType input) {
  return RankedTensorType::get({input.getDimSize(1)}, input.getElementType());
}

/// Checks the input of batch normalisation and its per-channel operands
/// (`names[i]` says what `perChannel[i]` is; null values are absent).
static LogicalResult checkBatchNorm(std::optional<Location> loc,
                                    StringRef opName, RankedTensorType input,
                                    ArrayRef<Value> perChannel,
                                    ArrayRef<StringRef> names) {
  if (input.getRank() < 2 || input.getRank() > 4)
    return opError(loc, opName,
                   "input must be [N, C], [N, C, L] or [N, C, H, W], got "
                   "rank ",
                   input.getRank());
  RankedTensorType channels = channelType(input);
  for (auto [value, what] : llvm::zip_equal(perChannel, names)) {
    if (!value)
      continue;
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getElementType() != input.getElementType())
      return opError(loc, opName, what, " must have the input's element type ",
                     input.getElementType(), ", got ", type.getElementType());
    if (type.getRank() != 1 ||
        sizesConflict(type.getDimSize(0), channels.getDimSize(0)))
      return opError(loc, opName, what, " must be 1-D with ",
                     channels.getDimSize(0), " elements (channels), got ",
                     ShapeText{type.getShape()});
  }
  return success();
}

/// Checks that batch normalisation has more than one value per channel:
/// training mode divides by the count, and the unbiased variance by M - 1.
static LogicalResult checkValuesPerChannel(std::optional<Location> loc,
                                           StringRef opName,
                                           RankedTensorType input) {
  SmallVector<int64_t> reduced(input.getShape());
  reduced.erase(reduced.begin() + 1);
  std::optional<uint64_t> perChannel = getStaticElementCount(
      RankedTensorType::get(reduced, input.getElementType()));
  if (perChannel && *perChannel < 2)
    return opError(loc, opName,
                   "needs more than one value per channel in training mode, "
                   "got input shape ",
                   ShapeText{input.getShape()});
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  if (failed(checkBatchNorm(loc, name, input,
                            {adaptor.getWeight(), adaptor.getBias()},
                            {"weight", "bias"})))
    return failure();
  double eps = adaptor.getEps().convertToDouble();
  if (!(eps >= 0.0))
    return opError(loc, name, "eps must be non-negative, got ", realText(eps));
  if (failed(checkValuesPerChannel(loc, name, input)))
    return failure();
  inferred.push_back(input);
  inferred.append(2, channelType(input));
  return success();
}

LogicalResult BatchNormUpdateStatsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  if (failed(checkBatchNorm(
          loc, name, input,
          {adaptor.getMean(), adaptor.getRunningMean(),
           adaptor.getRunningVar()},
          {"mean", "running_mean", "running_var"})))
    return failure();
  double momentum = adaptor.getMomentum().convertToDouble();
  if (!(momentum >= 0.0 && momentum <= 1.0))
    return opError(loc, name, "momentum ", realText(momentum),
                   " is outside [0, 1]");
  if (failed(checkValuesPerChannel(loc, name, input)))
    return failure();
  inferred.append(2, channelType(input));
  return success();
}

//===----------------------------------------------------------------------===//
// Backward
//===----------------------------------------------------------------------===//

/// A gradient operand must have the type of the forward value it belongs to.
static LogicalResult checkGradType(std::optional<Location> loc,
                                   StringRef opName, StringRef what,
                                   Type actual, Type expected) {
  if (actual != expected)
    return opError(loc, opName, what, " has type ", actual, " but must be ",
                   expected);
  return success();
}

/// The shared checks of layer_norm_grad and rms_norm_grad: the gradient has
/// the input's type, the statistics have their forward shape, the weight is
/// valid for the normalisation. Results: the input gradient and
/// `numAffine` gradients of shape `normalized_shape`.
static LogicalResult inferNormalizationGradTypes(
    std::optional<Location> loc, StringRef opName, Value grad, Value input,
    ValueRange statistics, Value weight, ArrayRef<int64_t> normalizedShape,
    unsigned numAffine, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<Value> affine;
  if (weight)
    affine.push_back(weight);
  if (failed(checkNormalization(loc, opName, inputType, normalizedShape,
                                /*eps=*/0.0, affine)) ||
      failed(checkGradType(loc, opName, "grad", grad.getType(), inputType)))
    return failure();
  RankedTensorType stats = statisticsType(inputType, normalizedShape.size());
  for (Value statistic : statistics)
    if (failed(checkGradType(loc, opName, "statistic", statistic.getType(),
                             stats)))
      return failure();
  inferred.push_back(inputType);
  inferred.append(numAffine, RankedTensorType::get(normalizedShape,
                                                   inputType.getElementType()));
  return success();
}

LogicalResult
LayerNormGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  return inferNormalizationGradTypes(
      loc, getOperationName(), adaptor.getGrad(), adaptor.getInput(),
      {adaptor.getMean(), adaptor.getRstd()}, adaptor.getWeight(),
      adaptor.getNormalizedShape(), /*numAffine=*/2, inferred);
}

LogicalResult RmsNormGradOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  return inferNormalizationGradTypes(
      loc, getOperationName(), adaptor.getGrad(), adaptor.getInput(),
      {adaptor.getRstd()}, adaptor.getWeight(), adaptor.getNormalizedShape(),
      /*numAffine=*/1, inferred);
}

LogicalResult
EmbeddingGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto grad = cast<RankedTensorType>(adaptor.getGrad().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  if (grad.getRank() != indices.getRank() + 1 ||
      grad.getShape().drop_back() != indices.getShape())
    return opError(loc, name, "grad shape ", ShapeText{grad.getShape()},
                   " must be the indices shape ", ShapeText{indices.getShape()},
                   " plus one dimension");
  int64_t numEmbeddings = adaptor.getNumEmbeddings();
  if (numEmbeddings < 1)
    return opError(loc, name, "num_embeddings must be positive, got ",
                   numEmbeddings);
  if (failed(checkPaddingIndex(loc, name, adaptor.getPaddingIdx(),
                               numEmbeddings)))
    return failure();
  inferred.push_back(RankedTensorType::get(
      {numEmbeddings, grad.getShape().back()}, grad.getElementType()));
  return success();
}

LogicalResult
CrossEntropyGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                     Adaptor adaptor,
                                     SmallVectorImpl<Type> &inferred) {
  SmallVector<Type> loss;
  if (failed(inferCrossEntropyType(loc, getOperationName(), adaptor.getLogits(),
                                   adaptor.getLabels(), loss)) ||
      failed(checkGradType(loc, getOperationName(), "grad",
                           adaptor.getGrad().getType(), loss.front())))
    return failure();
  inferred.push_back(adaptor.getLogits().getType());
  return success();
}

LogicalResult MseLossGradOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  SmallVector<Type> loss;
  if (failed(inferMseLossType(loc, getOperationName(), adaptor.getInput(),
                              adaptor.getTarget(), loss)) ||
      failed(checkGradType(loc, getOperationName(), "grad",
                           adaptor.getGrad().getType(), loss.front())))
    return failure();
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

/// A reduction's input gradient: the input's type, read from the gradient
/// and the output of the forward reduction, both of its reduced type.
template <typename Adaptor>
static LogicalResult inferReductionGrad(std::optional<Location> loc,
                                        StringRef name, Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  SmallVector<Type> reduced;
  if (failed(inferReductionType(loc, name, adaptor.getInput().getType(),
                                adaptor.getDims(), adaptor.getKeepdim(),
                                reduced)) ||
      failed(checkGradType(loc, name, "grad", adaptor.getGrad().getType(),
                           reduced.front())) ||
      failed(checkGradType(loc, name, "output", adaptor.getOutput().getType(),
                           reduced.front())))
    return failure();
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult
ReduceMaxGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  return inferReductionGrad(loc, getOperationName(), adaptor, inferred);
}

LogicalResult
ReduceNormGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &inferred) {
  return inferReductionGrad(loc, getOperationName(), adaptor, inferred);
}

LogicalResult SliceGradOp::verify() {
  // The forward slice of the result's shape must give the gradient's shape.
  SmallVector<Type> sliced;
  SliceOp::Properties properties;
  properties.dim = getDimAttr();
  properties.start = getStartAttr();
  properties.end = getEndAttr();
  properties.step = getStepAttr();
  Value result = getResult();
  SliceOp::Adaptor forward(ValueRange(result), DictionaryAttr(), properties);
  if (failed(
          SliceOp::inferReturnTypes(getContext(), getLoc(), forward, sliced)))
    return failure();
  if (sliced.front() != getGrad().getType())
    return emitOpError() << "grad has type " << getGrad().getType()
                         << " but slicing the result gives " << sliced.front();
  return success();
}

LogicalResult Conv2dInputGradOp::verify() {
  // Convolving a tensor of the result's type must give the gradient's type.
  SmallVector<Type> convolved;
  if (failed(inferConvType(getLoc(), getOperationName(), getType(),
                           getWeight().getType(), Value(), getStride(),
                           getPadding(), getDilation(), getGroups(),
                           convolved)))
    return failure();
  return checkGradType(getLoc(), getOperationName(), "grad",
                       getGrad().getType(), convolved.front());
}

LogicalResult Conv2dWeightGradOp::verify() {
  SmallVector<Type> convolved;
  if (failed(inferConvType(getLoc(), getOperationName(), getInput().getType(),
                           getType(), Value(), getStride(), getPadding(),
                           getDilation(), getGroups(), convolved)))
    return failure();
  return checkGradType(getLoc(), getOperationName(), "grad",
                       getGrad().getType(), convolved.front());
}

LogicalResult MaxPool2dGradOp::verify() {
  FailureOr<RankedTensorType> pooled =
      inferPoolType(getLoc(), getOperationName(), getType(), getKernel(),
                    getStride(), getPadding(), getCeilMode());
  if (failed(pooled) ||
      failed(checkGradType(getLoc(), getOperationName(), "grad",
                           getGrad().getType(), *pooled)))
    return failure();
  return checkGradType(getLoc(), getOperationName(), "indices",
                       getIndices().getType(),
                       pooled->clone(IntegerType::get(getContext(), 64)));
}

LogicalResult AvgPool2dGradOp::verify() {
  FailureOr<RankedTensorType> pooled =
      inferPoolType(getLoc(), getOperationName(), getType(), getKernel(),
                    getStride(), getPadding(), getCeilMode());
  if (failed(pooled))
    return failure();
  return checkGradType(getLoc(), getOperationName(), "grad",
                       getGrad().getType(), *pooled);
}

LogicalResult UpsampleNearest2dGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto grad = cast<RankedTensorType>(adaptor.getGrad().getType());
  ArrayRef<int64_t> scale = adaptor.getScale();
  if (failed(checkImage(loc, name, "grad", grad)) ||
      failed(checkPair(loc, name, "scale", scale, 1)))
    return failure();
  SmallVector<int64_t> shape(grad.getShape());
  static constexpr StringLiteral axes[] = {"height", "width"};
  for (int i = 0; i < 2; ++i) {
    if (ShapedType::isDynamic(shape[2 + i]))
      continue;
    if (shape[2 + i] % scale[i] != 0)
      return opError(loc, name, "grad ", axes[i], " ", shape[2 + i],
                     " is not a multiple of the scale ", scale[i]);
    shape[2 + i] /= scale[i];
  }
  inferred.push_back(RankedTensorType::get(shape, grad.getElementType()));
  return success();
}

LogicalResult
BatchNormGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  if (failed(checkBatchNorm(
          loc, name, input,
          {adaptor.getMean(), adaptor.getRstd(), adaptor.getWeight()},
          {"mean", "rstd", "weight"})) ||
      failed(
          checkGradType(loc, name, "grad", adaptor.getGrad().getType(), input)))
    return failure();
  inferred.push_back(input);
  inferred.append(2, channelType(input));
  return success();
}

//===----------------------------------------------------------------------===//
// Segments
//===----------------------------------------------------------------------===//

// Both segment ops share one syntax:
//   %r = ckpt.checkpoint(%in = %x, ...) : (types) -> types attributes {...} {
//     ...
//     ckpt.yield %v : type
//   }
static ParseResult parseSegment(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> regionArgs;
  SmallVector<OpAsmParser::UnresolvedOperand> inputs;
  FunctionType signature;
  SMLoc inputsLoc = parser.getCurrentLocation();
  if (parser.parseAssignmentList(regionArgs, inputs) || parser.parseColon() ||
      parser.parseType(signature))
    return failure();
  if (signature.getNumInputs() != inputs.size())
    return parser.emitError(inputsLoc)
           << "expected " << inputs.size() << " input types, got "
           << signature.getNumInputs();
  for (auto [arg, type] : llvm::zip_equal(regionArgs, signature.getInputs()))
    arg.type = type;
  if (parser.resolveOperands(inputs, signature.getInputs(), inputsLoc,
                             result.operands))
    return failure();
  result.addTypes(signature.getResults());
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  return parser.parseRegion(*body, regionArgs);
}

template <typename SegmentOp>
static void printSegment(SegmentOp segment, OpAsmPrinter &printer) {
  printer << "(";
  llvm::interleaveComma(llvm::zip_equal(segment.getBodyBlock().getArguments(),
                                        segment.getInputs()),
                        printer, [&](auto pair) {
                          printer << std::get<0>(pair) << " = "
                                  << std::get<1>(pair);
                        });
  printer << ") : ";
  printer.printFunctionalType(segment.getInputs().getTypes(),
                              segment->getResultTypes());
  printer.printOptionalAttrDictWithKeyword(segment->getAttrs());
  printer << " ";
  printer.printRegion(segment.getBody(), /*printEntryBlockArgs=*/false);
}

template <typename SegmentOp>
static LogicalResult verifySegment(SegmentOp segment) {
  Block &body = segment.getBodyBlock();
  if (body.getNumArguments() != segment.getInputs().size())
    return segment.emitOpError() << "body has " << body.getNumArguments()
                                 << " arguments but the op has "
                                 << segment.getInputs().size() << " inputs";
  for (auto [index, pair] : llvm::enumerate(llvm::zip_equal(
           body.getArgumentTypes(), segment.getInputs().getTypes()))) {
    auto [argType, inputType] = pair;
    if (argType != inputType)
      return segment.emitOpError()
             << "body argument " << index << " has type " << argType
             << " but input " << index << " has type " << inputType;
  }
  StringRef kind = segment->getName().stripDialect();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return segment.emitOpError() << "body must end with 'ckpt.yield'";
  if (yield.getValues().size() != segment->getNumResults())
    return yield.emitOpError()
           << "yields " << yield.getValues().size() << " values but the "
           << "enclosing " << kind << " has " << segment->getNumResults()
           << " results";
  for (auto [index, pair] : llvm::enumerate(llvm::zip_equal(
           yield.getValues().getTypes(), segment->getResultTypes()))) {
    auto [yielded, declared] = pair;
    if (yielded != declared)
      return yield.emitOpError()
             << "value " << index << " has type " << yielded << " but " << kind
             << " result " << index << " has type " << declared;
  }
  return success();
}

void ckpt::inlineSegment(RewriterBase &rewriter, Operation *segment) {
  Block &body = segment->getRegion(0).front();
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<Value> results(yield.getValues());
  rewriter.eraseOp(yield);
  rewriter.inlineBlockBefore(&body, segment, segment->getOperands());
  rewriter.replaceOp(segment, results);
}

ParseResult CheckpointOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseSegment(parser, result);
}
void CheckpointOp::print(OpAsmPrinter &printer) {
  printSegment(*this, printer);
}
LogicalResult CheckpointOp::verifyRegions() { return verifySegment(*this); }

ParseResult RecomputeOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseSegment(parser, result);
}
void RecomputeOp::print(OpAsmPrinter &printer) { printSegment(*this, printer); }
LogicalResult RecomputeOp::verifyRegions() { return verifySegment(*this); }

ParseResult FusedPointwiseOp::parse(OpAsmParser &parser,
                                    OperationState &result) {
  return parseSegment(parser, result);
}
void FusedPointwiseOp::print(OpAsmPrinter &printer) {
  printSegment(*this, printer);
}
LogicalResult FusedPointwiseOp::verifyRegions() {
  if (failed(verifySegment(*this)))
    return failure();
  ArrayRef<int64_t> shape = getType().getShape();
  for (Operation &op : getBodyBlock().without_terminator()) {
    if (!op.hasTrait<Pointwise>())
      return op.emitOpError()
             << "is not pointwise; a fused_pointwise body holds pointwise "
                "ops only";
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    if (type.getShape() != shape)
      return op.emitOpError() << "has result shape [" << type.getShape()
                              << "] but the fused_pointwise result has shape ["
                              << shape << "]: body values are never broadcast";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Not recomputable on purpose
//===----------------------------------------------------------------------===//

bool IndexAddOp::isDeterministic() { return getDeterministic(); }

LogicalResult IndexAddOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto index = cast<RankedTensorType>(adaptor.getIndex().getType());
  auto source = cast<RankedTensorType>(adaptor.getSource().getType());
  if (failed(
          checkSameElementType(loc, name, "input and source", {input, source})))
    return failure();
  int64_t dim = adaptor.getDim();
  if (failed(checkDim(loc, name, dim, input.getRank())))
    return failure();
  if (index.getRank() != 1)
    return opError(loc, name, "index must be 1-D, got rank ", index.getRank());
  if (source.getRank() != input.getRank())
    return opError(loc, name, "source has rank ", source.getRank(),
                   " but input has rank ", input.getRank());
  if (sizesConflict(source.getDimSize(dim), index.getDimSize(0)))
    return opError(loc, name, "source has ", source.getDimSize(dim),
                   " slices along dim ", dim, " but index has ",
                   index.getDimSize(0), " entries");
  for (int64_t d = 0; d < input.getRank(); ++d)
    if (d != dim && sizesConflict(source.getDimSize(d), input.getDimSize(d)))
      return opError(loc, name, "source shape ", ShapeText{source.getShape()},
                     " differs from input shape ", ShapeText{input.getShape()},
                     " outside dim ", dim);
  inferred.push_back(input);
  return success();
}

#define GET_OP_CLASSES
#include "ckpt/Dialect/Ckpt/IR/CkptOps.cpp.inc"
