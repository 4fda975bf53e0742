//===- Reductions.cpp - reductions, softmax and losses -> linalg ----------===//
//
// Reductions are linalg.generic ops with reduction iterators; softmax-like
// ops and losses are a few of them combined with pointwise maps, keeping
// the reduced dimensions (size 1) so the pointwise maps broadcast them back.
// A mean divides its sum in place; the per-row statistics besides, and the
// partials of long reductions split in two stages (SumSplit.h), are the
// scratch the op declares (getScratchBytes).
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "LoweringPattern.h"

#include "ckpt/Conversion/CkptToLinalg/CkptToLinalg.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace ckpt;

namespace {

/// `type` with `dims` set to 1.
RankedTensorType keptType(RankedTensorType type, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t d : dims)
    shape[d] = 1;
  return RankedTensorType::get(shape, type.getElementType());
}

/// keptType in the compute type: the row statistics of softmax-like ops,
/// f32 for 16-bit inputs, which the outputs read unrounded.
RankedTensorType statisticType(RankedTensorType type, ArrayRef<int64_t> dims) {
  return keptType(type, dims).clone(getComputeType(type.getElementType()));
}

/// A reduction's result (or its gradient) with the reduced dimensions kept
/// (size 1): a view.
Value reshapedTo(OpBuilder &b, Location loc, Value value,
                 RankedTensorType kept) {
  return value.getType() == kept
             ? value
             : ReshapeOp::create(b, loc, kept, value).getResult();
}

/// The reduced dimensions of a reduction op, sorted (all when absent).
SmallVector<int64_t> reducedDims(std::optional<ArrayRef<int64_t>> dims,
                                 int64_t rank) {
  if (!dims)
    return dimRange(0, rank);
  SmallVector<int64_t> sorted(*dims);
  llvm::sort(sorted);
  return sorted;
}

uint64_t countOf(RankedTensorType type, ArrayRef<int64_t> dims) {
  uint64_t count = 1;
  for (int64_t d : dims)
    count *= type.getDimSize(d);
  return count;
}

/// The maximum over `dims`, in two stages where getSumSplit splits it: the
/// partials are scratch the ops declare (CkptCosts.cpp).
Value maxOver(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> dims,
              RankedTensorType result) {
  auto type = cast<RankedTensorType>(input.getType());
  return buildSplittableReduction(
      b, loc, type, input, dims, result, Combining::Maximum,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        ScalarBuilder s{nb, nl, result.getElementType()};
        return s.max(s.convert(args[0]), args[1]);
      });
}

Value identity(ScalarBuilder &, ValueRange x) { return x[0]; }

template <typename OpTy>
FailureOr<SmallVector<Value>> lowerSumOrMean(OpTy op,
                                             PatternRewriter &rewriter) {
  RankedTensorType input = op.getInput().getType();
  RankedTensorType result = op.getType();
  SmallVector<int64_t> dims = reducedDims(op.getDims(), input.getRank());
  double count = countOf(input, dims);
  auto mean = [&](ScalarBuilder &s, ValueRange x) {
    return s.div(x[0], s.constant(count));
  };
  return SmallVector<Value>{
      buildSplitSum(rewriter, op.getLoc(), input, op.getInput(), dims, result,
                    identity, isa<ReduceMeanOp>(op) ? Formula(mean) : nullptr)};
}

FailureOr<SmallVector<Value>> lowerReduceMax(ReduceMaxOp op,
                                             PatternRewriter &rewriter) {
  RankedTensorType input = op.getInput().getType();
  SmallVector<int64_t> dims = reducedDims(op.getDims(), input.getRank());
  return SmallVector<Value>{
      maxOver(rewriter, op.getLoc(), op.getInput(), dims, op.getType())};
}

FailureOr<SmallVector<Value>> lowerReduceMaxGrad(ReduceMaxGradOp op,
                                                 PatternRewriter &rewriter) {
  // The gradient is shared evenly by the elements equal to the maximum.
  Location loc = op.getLoc();
  RankedTensorType input = op.getInput().getType();
  SmallVector<int64_t> dims = reducedDims(op.getDims(), input.getRank());
  RankedTensorType kept = keptType(input, dims);
  Value output = reshapedTo(rewriter, loc, op.getOutput(), kept);
  Value grad = reshapedTo(rewriter, loc, op.getGrad(), kept);
  Value ties = buildSum(rewriter, loc, input, {op.getInput(), output}, dims,
                       kept, [](ScalarBuilder &s, ValueRange x) {
                         return s.select(s.equal(x[0], x[1]), s.constant(1.0),
                                         s.constant(0.0));
                       });
  return SmallVector<Value>{buildMap(
      rewriter, loc, input, {op.getInput(), output, grad, ties},
      [&](ScalarBuilder &s, ValueRange x) {
        return s.select(s.equal(x[0], x[1]), s.div(x[2], x[3]),
                        s.constant(0.0));
      })};
}

FailureOr<SmallVector<Value>> lowerReduceNorm(ReduceNormOp op,
                                              PatternRewriter &rewriter) {
  // The sum of squares, its square root in place.
  Location loc = op.getLoc();
  RankedTensorType input = op.getInput().getType();
  SmallVector<int64_t> dims = reducedDims(op.getDims(), input.getRank());
  return SmallVector<Value>{buildSplitSum(
      rewriter, loc, input, op.getInput(), dims, op.getType(),
      [](ScalarBuilder &s, ValueRange x) { return s.mul(x[0], x[0]); },
      [](ScalarBuilder &s, ValueRange x) { return s.sqrt(x[0]); })};
}

FailureOr<SmallVector<Value>> lowerReduceNormGrad(ReduceNormGradOp op,
                                                  PatternRewriter &rewriter) {
  // x * (dy / norm), as PyTorch orders it, and 0 where the norm is 0.
  Location loc = op.getLoc();
  RankedTensorType input = op.getInput().getType();
  SmallVector<int64_t> dims = reducedDims(op.getDims(), input.getRank());
  RankedTensorType kept = keptType(input, dims);
  return SmallVector<Value>{buildMap(
      rewriter, loc, input,
      {op.getInput(), reshapedTo(rewriter, loc, op.getOutput(), kept),
       reshapedTo(rewriter, loc, op.getGrad(), kept)},
      [](ScalarBuilder &s, ValueRange x) {
        // Sequenced so the emitted order does not depend on the compiler's
        // order of evaluating arguments.
        Value zero = s.constant(0.0);
        Value scaled = s.mul(x[0], s.div(x[2], x[1]));
        Value atZero = s.equal(x[1], zero);
        return s.select(atZero, zero, scaled);
      })};
}

/// The max-shifted exponentials and their sum along `dim`, the shared part
/// of softmax, log_softmax and cross-entropy.
struct SoftmaxParts {
  Value max, sum;
};

SoftmaxParts softmaxParts(OpBuilder &b, Location loc, Value input,
                          int64_t dim) {
  auto type = cast<RankedTensorType>(input.getType());
  RankedTensorType kept = statisticType(type, {dim});
  Value max = maxOver(b, loc, input, {dim}, kept);
  Value sum = buildSplitSum(
      b, loc, type, {input, max}, {dim}, kept,
      [](ScalarBuilder &s, ValueRange x) { return s.exp(s.sub(x[0], x[1])); });
  return {max, sum};
}

/// softmax = exp(x - max) / sum, log_softmax = (x - max) - log(sum).
template <typename OpTy, bool logarithm>
FailureOr<SmallVector<Value>> lowerSoftmaxLike(OpTy op,
                                               PatternRewriter &rewriter) {
  SoftmaxParts parts =
      softmaxParts(rewriter, op.getLoc(), op.getInput(), op.getDim());
  return SmallVector<Value>{buildMap(
      rewriter, op.getLoc(), op.getType(),
      {op.getInput(), parts.max, parts.sum},
      [&](ScalarBuilder &s, ValueRange x) {
        Value shifted = s.sub(x[0], x[1]);
        return logarithm ? s.sub(shifted, s.log(x[2]))
                         : s.div(s.exp(shifted), x[2]);
      })};
}

FailureOr<SmallVector<Value>> lowerSoftmaxGrad(SoftmaxGradOp op,
                                               PatternRewriter &rewriter) {
  // dx = y * (dy - sum(dy * y)).
  RankedTensorType type = op.getType();
  Location loc = op.getLoc();
  int64_t dim = op.getDim();
  Value dot = buildSplitSum(
      rewriter, loc, type, {op.getGrad(), op.getForward()}, {dim},
      statisticType(type, {dim}),
      [](ScalarBuilder &s, ValueRange x) { return s.mul(x[0], x[1]); });
  return SmallVector<Value>{buildMap(
      rewriter, loc, type, {op.getGrad(), op.getForward(), dot},
      [&](ScalarBuilder &s, ValueRange x) {
        return s.mul(x[1], s.sub(x[0], x[2]));
      })};
}

FailureOr<SmallVector<Value>> lowerLogSoftmaxGrad(LogSoftmaxGradOp op,
                                                  PatternRewriter &rewriter) {
  // dx = dy - exp(y) * sum(dy).
  RankedTensorType type = op.getType();
  Location loc = op.getLoc();
  int64_t dim = op.getDim();
  Value total = buildSplitSum(rewriter, loc, type, op.getGrad(), {dim},
                              statisticType(type, {dim}), identity);
  return SmallVector<Value>{buildMap(
      rewriter, loc, type, {op.getGrad(), op.getForward(), total},
      [&](ScalarBuilder &s, ValueRange x) {
        return s.sub(x[0], s.mul(s.exp(x[1]), x[2]));
      })};
}

FailureOr<SmallVector<Value>> lowerMseLoss(MseLossOp op,
                                           PatternRewriter &rewriter) {
  RankedTensorType input = op.getInput().getType();
  double count = countOf(input, dimRange(0, input.getRank()));
  return SmallVector<Value>{buildSplitSum(
      rewriter, op.getLoc(), input, {op.getInput(), op.getTarget()},
      dimRange(0, input.getRank()), op.getType(),
      [](ScalarBuilder &s, ValueRange x) {
        Value d = s.sub(x[0], x[1]);
        return s.mul(d, d);
      },
      [&](ScalarBuilder &s, ValueRange x) {
        return s.div(x[0], s.constant(count));
      })};
}

FailureOr<SmallVector<Value>> lowerMseLossGrad(MseLossGradOp op,
                                               PatternRewriter &rewriter) {
  RankedTensorType type = op.getType();
  double count = countOf(type, dimRange(0, type.getRank()));
  return SmallVector<Value>{buildMap(
      rewriter, op.getLoc(), type,
      {op.getGrad(), op.getInput(), op.getTarget()},
      [&](ScalarBuilder &s, ValueRange x) {
        return s.div(s.mul(s.mul(x[0], s.constant(2.0)), s.sub(x[1], x[2])),
                     s.constant(count));
      })};
}

/// Whether the class index (dimension 1 of the iteration) is the row's
/// label.
Value isLabel(ScalarBuilder &s, Value label) {
  Value column = linalg::IndexOp::create(s.b, s.loc, 1);
  Value labelIndex =
      arith::IndexCastOp::create(s.b, s.loc, s.b.getIndexType(), label);
  return arith::CmpIOp::create(s.b, s.loc, arith::CmpIPredicate::eq, column,
                               labelIndex);
}

/// `value`, or `otherwise` where the row's label is the ignored index.
Value unlessIgnored(ScalarBuilder &s, Value label,
                    std::optional<int64_t> ignoreIndex, Value value,
                    double otherwise) {
  if (!ignoreIndex)
    return value;
  Value ignored = arith::ConstantIntOp::create(s.b, s.loc, *ignoreIndex, 64);
  Value isIgnored = arith::CmpIOp::create(
      s.b, s.loc, arith::CmpIPredicate::eq, label, ignored);
  return s.select(isIgnored, s.constant(otherwise), value);
}

/// The rows of cross-entropy that count towards its mean: all of them, or,
/// with an ignored index, a scalar tensor counting the others.
struct CountedRows {
  double all;
  Value counted;
};

CountedRows countRows(OpBuilder &b, Location loc, Value labels,
                      RankedTensorType loss,
                      std::optional<int64_t> ignoreIndex) {
  auto type = cast<RankedTensorType>(labels.getType());
  double all = type.getDimSize(0);
  if (!ignoreIndex)
    return {all, Value()};
  return {all, buildSum(b, loc, type, labels, {0}, loss,
                        [&](ScalarBuilder &s, ValueRange x) {
                          return unlessIgnored(s, x[0], ignoreIndex,
                                               s.constant(1.0), 0.0);
                        })};
}

/// `x / rows`, where `rows` is the count `countRows` gave (the last input,
/// when it is a tensor).
Value divideByRows(ScalarBuilder &s, Value x, ValueRange inputs,
                   const CountedRows &rows) {
  return s.div(x, rows.counted ? inputs.back() : s.constant(rows.all));
}

/// Each row's logit at its label, read as one element per row (a scan of
/// the row for it would read all C): 0 where the label is not a class (an
/// ignored row), whose column is not read.
Value gatherLabelLogits(OpBuilder &b, Location loc, Value logits, Value labels,
                        RankedTensorType row) {
  int64_t classes = cast<RankedTensorType>(logits.getType()).getDimSize(1);
  return buildMap(b, loc, row, {labels}, [&](ScalarBuilder &s, ValueRange x) {
    Value label = x[0];
    Type labelType = label.getType();
    Value zero = arith::ConstantIntOp::create(s.b, s.loc, labelType, 0);
    Value bound = arith::ConstantIntOp::create(s.b, s.loc, labelType, classes);
    Value isClass = arith::AndIOp::create(
        s.b, s.loc,
        arith::CmpIOp::create(s.b, s.loc, arith::CmpIPredicate::sge, label,
                              zero),
        arith::CmpIOp::create(s.b, s.loc, arith::CmpIPredicate::slt, label,
                              bound));
    Value column = arith::IndexCastOp::create(
        s.b, s.loc, s.b.getIndexType(),
        arith::SelectOp::create(s.b, s.loc, isClass, label, zero));
    Value rowIndex = linalg::IndexOp::create(s.b, s.loc, 0);
    Value logit = tensor::ExtractOp::create(s.b, s.loc, logits,
                                            ValueRange{rowIndex, column});
    return s.select(isClass, logit, s.constant(0.0));
  });
}

FailureOr<SmallVector<Value>> lowerCrossEntropy(CrossEntropyOp op,
                                                PatternRewriter &rewriter) {
  // mean over counted rows of logsumexp(row) - row[label].
  Location loc = op.getLoc();
  std::optional<int64_t> ignoreIndex = op.getIgnoreIndex();
  RankedTensorType logits = op.getLogits().getType();
  CountedRows rows =
      countRows(rewriter, loc, op.getLabels(), op.getType(), ignoreIndex);
  SoftmaxParts parts = softmaxParts(rewriter, loc, op.getLogits(), 1);
  auto labels2d = RankedTensorType::get({logits.getDimSize(0), 1},
                                        op.getLabels().getType().getElementType());
  Value labels = ReshapeOp::create(rewriter, loc, labels2d, op.getLabels());
  RankedTensorType row = keptType(logits, {1});
  Value picked = gatherLabelLogits(rewriter, loc, op.getLogits(), labels, row);
  SmallVector<Value> terms{parts.max, parts.sum, picked};
  if (ignoreIndex)
    terms.push_back(labels);
  Value total = buildSplitSum(
      rewriter, loc, row, terms, {0, 1}, op.getType(),
      [&](ScalarBuilder &s, ValueRange x) {
        Value term = s.sub(s.add(x[0], s.log(x[1])), x[2]);
        return ignoreIndex ? unlessIgnored(s, x[3], ignoreIndex, term, 0.0)
                           : term;
      });
  SmallVector<Value> count;
  if (rows.counted)
    count.push_back(rows.counted);
  return SmallVector<Value>{buildMapInPlace(
      rewriter, loc, total, count, [&](ScalarBuilder &s, ValueRange x) {
        return divideByRows(s, x.back(), x.drop_back(), rows);
      })};
}

FailureOr<SmallVector<Value>> lowerCrossEntropyGrad(CrossEntropyGradOp op,
                                                    PatternRewriter &rewriter) {
  // g * (softmax(row) - one_hot(label)) / counted rows; 0 on ignored rows.
  Location loc = op.getLoc();
  std::optional<int64_t> ignoreIndex = op.getIgnoreIndex();
  RankedTensorType logits = op.getType();
  CountedRows rows = countRows(rewriter, loc, op.getLabels(),
                               op.getGrad().getType(), ignoreIndex);
  SoftmaxParts parts = softmaxParts(rewriter, loc, op.getLogits(), 1);
  auto labels2d = RankedTensorType::get({logits.getDimSize(0), 1},
                                        op.getLabels().getType().getElementType());
  Value labels = ReshapeOp::create(rewriter, loc, labels2d, op.getLabels());
  SmallVector<Value> inputs{op.getLogits(), parts.max, parts.sum, labels,
                            op.getGrad()};
  if (rows.counted)
    inputs.push_back(rows.counted);
  return SmallVector<Value>{buildMap(
      rewriter, loc, logits, inputs, [&](ScalarBuilder &s, ValueRange x) {
        Value probability = s.div(s.exp(s.sub(x[0], x[1])), x[2]);
        Value target =
            s.select(isLabel(s, x[3]), s.constant(1.0), s.constant(0.0));
        Value gradient =
            divideByRows(s, s.mul(x[4], s.sub(probability, target)), x, rows);
        return unlessIgnored(s, x[3], ignoreIndex, gradient, 0.0);
      })};
}

} // namespace

void ckpt::populateReductionToLinalgPatterns(RewritePatternSet &patterns) {
  addLowering<ReduceSumOp>(patterns, lowerSumOrMean<ReduceSumOp>);
  addLowering<ReduceMeanOp>(patterns, lowerSumOrMean<ReduceMeanOp>);
  addLowering<ReduceMaxOp>(patterns, lowerReduceMax);
  addLowering<ReduceMaxGradOp>(patterns, lowerReduceMaxGrad);
  addLowering<ReduceNormOp>(patterns, lowerReduceNorm);
  addLowering<ReduceNormGradOp>(patterns, lowerReduceNormGrad);
  addLowering<SoftmaxOp>(patterns, lowerSoftmaxLike<SoftmaxOp, false>);
  addLowering<LogSoftmaxOp>(patterns, lowerSoftmaxLike<LogSoftmaxOp, true>);
  addLowering<SoftmaxGradOp>(patterns, lowerSoftmaxGrad);
  addLowering<LogSoftmaxGradOp>(patterns, lowerLogSoftmaxGrad);
  addLowering<MseLossOp>(patterns, lowerMseLoss);
  addLowering<MseLossGradOp>(patterns, lowerMseLossGrad);
  addLowering<CrossEntropyOp>(patterns, lowerCrossEntropy);
  addLowering<CrossEntropyGradOp>(patterns, lowerCrossEntropyGrad);
}
