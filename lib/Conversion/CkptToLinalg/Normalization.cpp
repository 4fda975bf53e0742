//===- Normalization.cpp - layer_norm, rms_norm and gradients -> linalg ---===//
//
// Statistics are reductions over the trailing (normalised) dimensions kept
// with size 1, so pointwise maps broadcast them back over the rows; weight
// and bias gradients are reductions over the leading dimensions. The
// gradient formulas are PyTorch's. The buffers a lowering allocates beyond
// the op's results are what the op declares as scratch (getScratchBytes):
// a sum becomes the statistic it yields in place, and the results come
// first, so the scratch is live together with all of them.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "LoweringPattern.h"

#include "ckpt/Conversion/CkptToLinalg/CkptToLinalg.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

using namespace mlir;
using namespace ckpt;

namespace {

/// The geometry of a normalisation over the trailing dimensions.
struct Normalized {
  Normalized(RankedTensorType input, size_t normalizedRank)
      : input(input), element(input.getElementType()),
        rows(dimRange(0, input.getRank() - normalizedRank)),
        columns(dimRange(input.getRank() - normalizedRank, input.getRank())) {
    SmallVector<int64_t> shape(input.getShape());
    count = 1;
    for (int64_t d : columns) {
      count *= shape[d];
      shape[d] = 1;
    }
    statistics = RankedTensorType::get(shape, element);
    affine = RankedTensorType::get(input.getShape().take_back(normalizedRank),
                                   element);
  }

  /// Sum over the normalised dimensions of term(elements), per row: in two
  /// stages when the rows are long and not too many (buildSplitSum), so
  /// that neighbouring GPU threads read neighbouring elements of one row.
  /// The forward ops' partials are freed before their output is allocated
  /// and are at most a 32nd of its bytes, so they never raise its peak; the
  /// gradient ops declare them as scratch.
  Value rowSum(OpBuilder &b, Location loc, ValueRange inputs,
               Formula term) const {
    return buildSplitSum(b, loc, input, inputs, columns, statistics, term);
  }

  /// Sum over the rows of term(elements), per normalised position: in two
  /// stages when there are many rows (buildSplitSum), whose partials the
  /// gradient ops declare as scratch.
  Value columnSum(OpBuilder &b, Location loc, ValueRange inputs,
                  Formula term) const {
    return buildSplitSum(b, loc, input, inputs, rows, affine, term);
  }

  /// 1 / sqrt(mean of square(elements) over the normalised dimensions + eps),
  /// per row, in the buffer of the sum of squares.
  Value reciprocalStd(OpBuilder &b, Location loc, ValueRange inputs, double eps,
                      Formula square) const {
    Value squares = rowSum(b, loc, inputs, square);
    return buildMapInPlace(
        b, loc, squares, {}, [&](ScalarBuilder &s, ValueRange v) {
          return s.rsqrt(
              s.add(s.div(v[0], s.constant(count)), s.constant(eps)));
        });
  }

  RankedTensorType input, statistics, affine;
  Type element;
  SmallVector<int64_t> rows, columns;
  double count;
};

FailureOr<SmallVector<Value>> lowerLayerNorm(LayerNormOp op,
                                             PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Normalized n(op.getInput().getType(), op.getNormalizedShape().size());
  double count = n.count, eps = op.getEps().convertToDouble();
  Value x = op.getInput();
  Value sum = n.rowSum(rewriter, loc, x,
                       [](ScalarBuilder &, ValueRange v) { return v[0]; });
  Value mean = buildMapInPlace(rewriter, loc, sum, {},
                               [&](ScalarBuilder &s, ValueRange v) {
                                 return s.div(v[0], s.constant(count));
                               });
  Value rstd = n.reciprocalStd(rewriter, loc, {x, mean}, eps,
                               [](ScalarBuilder &s, ValueRange v) {
                                 Value centered = s.sub(v[0], v[1]);
                                 return s.mul(centered, centered);
                               });
  SmallVector<Value> inputs = {x, mean, rstd};
  bool weight = bool(op.getWeight()), bias = bool(op.getBias());
  if (weight)
    inputs.push_back(op.getWeight());
  if (bias)
    inputs.push_back(op.getBias());
  Value y = buildMap(rewriter, loc, n.input, inputs,
                     [&](ScalarBuilder &s, ValueRange v) {
                       return normalizedAffine(s, v, weight, bias);
                     });
  return SmallVector<Value>{y, mean, rstd};
}

FailureOr<SmallVector<Value>> lowerRmsNorm(RmsNormOp op,
                                           PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Normalized n(op.getInput().getType(), op.getNormalizedShape().size());
  double eps = op.getEps().convertToDouble();
  Value x = op.getInput();
  Value rstd = n.reciprocalStd(
      rewriter, loc, x, eps,
      [](ScalarBuilder &s, ValueRange v) { return s.mul(v[0], v[0]); });
  SmallVector<Value> inputs = {x, rstd};
  bool weight = bool(op.getWeight());
  if (weight)
    inputs.push_back(op.getWeight());
  Value y = buildMap(rewriter, loc, n.input, inputs,
                     [&](ScalarBuilder &s, ValueRange v) {
                       Value scaled = s.mul(v[0], v[1]);
                       return weight ? s.mul(scaled, v[2]) : scaled;
                     });
  return SmallVector<Value>{y, rstd};
}

FailureOr<SmallVector<Value>> lowerLayerNormGrad(LayerNormGradOp op,
                                                 PatternRewriter &rewriter) {
  // With xhat = (x - mean) rstd and g = dy w:
  //   dx = rstd (g - mean(g) - xhat mean(g xhat)), dw = sum_rows(dy xhat),
  //   db = sum_rows(dy).
  Location loc = op.getLoc();
  Normalized n(op.getInput().getType(), op.getNormalizedShape().size());
  double count = n.count;
  bool weight = bool(op.getWeight());
  SmallVector<Value> base = {op.getGrad(), op.getInput(), op.getMean(),
                             op.getRstd()};
  if (weight)
    base.push_back(op.getWeight());
  auto g = [weight](ScalarBuilder &s, ValueRange v) {
    return weight ? s.mul(v[0], v[4]) : v[0];
  };
  auto xhat = [](ScalarBuilder &s, ValueRange v) {
    return s.mul(s.sub(v[1], v[2]), v[3]);
  };
  // dx's buffer, then the weight and bias gradients, each with its
  // partials (if split), then the row sums dx reads: the scratch at each
  // point is live together with every result allocated so far, and the
  // largest of them with all of them.
  Value dx = emptyTensor(rewriter, loc, n.input);
  Value dw =
      n.columnSum(rewriter, loc, base, [&](ScalarBuilder &s, ValueRange v) {
        return s.mul(v[0], xhat(s, v));
      });
  Value db = n.columnSum(rewriter, loc, op.getGrad(),
                         [](ScalarBuilder &, ValueRange v) { return v[0]; });
  Value sumG = n.rowSum(rewriter, loc, base, g);
  Value sumGX =
      n.rowSum(rewriter, loc, base, [&](ScalarBuilder &s, ValueRange v) {
        return s.mul(g(s, v), xhat(s, v));
      });
  SmallVector<Value> withSums(base);
  withSums.append({sumG, sumGX});
  dx = buildMapInto(
      rewriter, loc, dx, withSums, [&](ScalarBuilder &s, ValueRange v) {
        Value a = s.div(v[v.size() - 2], s.constant(count));
        Value c = s.div(v.back(), s.constant(count));
        return s.mul(v[3], s.sub(s.sub(g(s, v), a), s.mul(xhat(s, v), c)));
      });
  return SmallVector<Value>{dx, dw, db};
}

FailureOr<SmallVector<Value>> lowerRmsNormGrad(RmsNormGradOp op,
                                               PatternRewriter &rewriter) {
  // With g = dy w: dx = rstd (g - x rstd^2 mean(g x)),
  // dw = sum_rows(dy x rstd).
  Location loc = op.getLoc();
  Normalized n(op.getInput().getType(), op.getNormalizedShape().size());
  double count = n.count;
  bool weight = bool(op.getWeight());
  SmallVector<Value> base = {op.getGrad(), op.getInput(), op.getRstd()};
  if (weight)
    base.push_back(op.getWeight());
  auto g = [weight](ScalarBuilder &s, ValueRange v) {
    return weight ? s.mul(v[0], v[3]) : v[0];
  };
  // dx's buffer, then the weight gradient with its partials (if split),
  // then the row sum dx reads: either scratch is live with both results.
  Value dx = emptyTensor(rewriter, loc, n.input);
  Value dw =
      n.columnSum(rewriter, loc, base, [](ScalarBuilder &s, ValueRange v) {
        return s.mul(v[0], s.mul(v[1], v[2]));
      });
  Value sumGX =
      n.rowSum(rewriter, loc, base, [&](ScalarBuilder &s, ValueRange v) {
        return s.mul(g(s, v), v[1]);
      });
  SmallVector<Value> withSum(base);
  withSum.push_back(sumGX);
  dx = buildMapInto(
      rewriter, loc, dx, withSum, [&](ScalarBuilder &s, ValueRange v) {
        Value rstd = v[2];
        Value c = s.div(v.back(), s.constant(count));
        Value correction = s.mul(v[1], s.mul(s.mul(rstd, rstd), c));
        return s.mul(rstd, s.sub(g(s, v), correction));
      });
  return SmallVector<Value>{dx, dw};
}

} // namespace

void ckpt::populateNormalizationToLinalgPatterns(RewritePatternSet &patterns) {
  addLowering<LayerNormOp>(patterns, lowerLayerNorm);
  addLowering<RmsNormOp>(patterns, lowerRmsNorm);
  addLowering<LayerNormGradOp>(patterns, lowerLayerNormGrad);
  addLowering<RmsNormGradOp>(patterns, lowerRmsNormGrad);
}
