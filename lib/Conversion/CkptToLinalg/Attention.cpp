//===- Attention.cpp - scaled dot-product attention -> linalg -------------===//
//
// Query-side tensors are viewed as [N, Hkv, G, L, ·] so that the G query
// heads sharing a key head are a loop of their own, and every contraction
// reads key and value without copying them. The scores of all heads live in
// one buffer that turns into the weights in place; the backward pass
// recomputes them from the log-sum-exp, as flash attention does. The
// buffers besides the results are the ops' declared scratch, allocated
// after the results and before any operand is read for the last time.
//
//===----------------------------------------------------------------------===//

#include "DropoutMask.h"
#include "LinalgBuilders.h"

#include "ckpt/Conversion/CkptToLinalg/CkptToLinalg.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace ckpt;

namespace {

/// The geometry of one attention op and the views it works in.
struct Attention {
  Attention(Value query, Value key, Value value, Value mask, bool causal,
            double scale, double p, std::optional<int64_t> offset)
      : mask(mask), causal(causal), scale(scale), p(p),
        offset(offset.value_or(0)) {
    auto q = cast<RankedTensorType>(query.getType());
    auto k = cast<RankedTensorType>(key.getType());
    element = q.getElementType();
    n = q.getDimSize(0);
    heads = q.getDimSize(1);
    keyHeads = k.getDimSize(1);
    groups = heads / keyHeads;
    l = q.getDimSize(2);
    s = k.getDimSize(2);
    e = q.getDimSize(3);
    ev = cast<RankedTensorType>(value.getType()).getDimSize(3);
  }

  RankedTensorType type(ArrayRef<int64_t> shape) const {
    return RankedTensorType::get(shape, element);
  }
  /// [N, Hkv, G, L, last]: a query-side tensor by key head.
  RankedTensorType grouped(int64_t last) const {
    return type({n, keyHeads, groups, l, last});
  }
  RankedTensorType weights() const { return grouped(s); }
  RankedTensorType rows() const { return grouped(1); }

  Value view(OpBuilder &b, Location loc, Value tensor,
             RankedTensorType as) const {
    return ReshapeOp::create(b, loc, as, tensor).getResult();
  }

  /// An affine map over `rank` loops selecting `dims`.
  AffineMap map(MLIRContext *context, unsigned rank,
                ArrayRef<unsigned> dims) const {
    SmallVector<AffineExpr> exprs;
    for (unsigned d : dims)
      exprs.push_back(getAffineDimExpr(d, context));
    return AffineMap::get(rank, 0, exprs, context);
  }

  /// The maps of a contraction over six loops, from the loops each of
  /// lhs, rhs and the result reads.
  SmallVector<AffineMap> maps6(MLIRContext *context, ArrayRef<unsigned> lhs,
                               ArrayRef<unsigned> rhs,
                               ArrayRef<unsigned> result) const {
    return {map(context, 6, lhs), map(context, 6, rhs),
            map(context, 6, result)};
  }

  /// The dropout of the weight at the current element of a body whose
  /// loops 0..4 walk the weights.
  Value dropWeight(ScalarBuilder &s, RandomState random, Value x) const {
    Value position =
        rowMajorPosition(s.b, s.loc, weights().getShape(), {0, 1, 2, 3, 4});
    return applyDropout(s, random, offset, p, position, x);
  }

  /// scores = scale * query key^T + mask (or -inf above the diagonal when
  /// causal), into a new weights-shaped buffer.
  Value scores(OpBuilder &b, Location loc, Value query5, Value key) const {
    MLIRContext *context = b.getContext();
    // Loops n, hk, g, i, j, e.
    SmallVector<AffineMap> maps =
        maps6(context, {0, 1, 2, 3, 5}, {0, 1, 4, 5}, {0, 1, 2, 3, 4});
    Value product = buildContraction(
        b, loc, query5, key, filledTensor(b, loc, weights(), 0.0), maps, {5});
    SmallVector<Value> inputs;
    if (mask)
      inputs.push_back(view(b, loc, mask, maskView()));
    double minusInfinity = -std::numeric_limits<double>::infinity();
    return buildMapInPlace(
        b, loc, product, inputs, [&](ScalarBuilder &sb, ValueRange x) {
          Value scaled = sb.mul(x.back(), sb.constant(scale));
          if (mask)
            return sb.add(scaled, x[0]);
          if (!causal)
            return scaled;
          Value i = linalg::IndexOp::create(sb.b, sb.loc, 3);
          Value j = linalg::IndexOp::create(sb.b, sb.loc, 4);
          Value above = arith::CmpIOp::create(
              sb.b, sb.loc, arith::CmpIPredicate::ugt, j, i);
          return sb.select(above, sb.constant(minusInfinity), scaled);
        });
  }

  /// The mask as a tensor that broadcasts to the weights: its head
  /// dimension, when it has one, split by key head.
  RankedTensorType maskView() const {
    auto type = cast<RankedTensorType>(mask.getType());
    SmallVector<int64_t> shape(4 - type.getRank(), 1);
    llvm::append_range(shape, type.getShape());
    bool perHead = shape[1] != 1;
    return this->type({shape[0], perHead ? keyHeads : 1,
                       perHead ? groups : 1, shape[2], shape[3]});
  }

  /// Applies the dropout of the weights in `weights` (in place), or
  /// returns them when nothing is dropped.
  Value dropout(OpBuilder &b, Location loc, Value weights,
                std::optional<RandomState> random) const {
    if (p == 0.0)
      return weights;
    return buildMapInPlace(
        b, loc, weights, {}, [&](ScalarBuilder &sb, ValueRange x) {
          return dropWeight(sb, *random, x[0]);
        });
  }

  Value mask;
  bool causal;
  double scale, p;
  int64_t offset;
  Type element;
  int64_t n, heads, keyHeads, groups, l, s, e, ev;
};

std::optional<RandomState> randomStateOf(OpBuilder &b, Location loc,
                                         Value state) {
  if (!state)
    return std::nullopt;
  return RandomState::extract(b, loc, state);
}

struct LowerAttention : OpConversionPattern<ScaledDotProductAttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScaledDotProductAttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double p = op.getP().convertToDouble();
    if (p != 0.0 && !adaptor.getRng())
      return rewriter.notifyMatchFailure(
          op, "draws from the implicit generator; run ckpt-thread-rng");
    Location loc = op.getLoc();
    MLIRContext *context = op.getContext();
    Attention a(adaptor.getQuery(), adaptor.getKey(), adaptor.getValue(),
                adaptor.getMask(), op.getCausal(),
                op.getScale().convertToDouble(), p, op.getOffset());
    std::optional<RandomState> random =
        randomStateOf(rewriter, loc, adaptor.getRng());
    // The results first, so that the scratch is live with them.
    Value output = filledTensor(rewriter, loc, a.grouped(a.ev), 0.0);
    Value query5 = a.view(rewriter, loc, adaptor.getQuery(), a.grouped(a.e));
    Value weights = a.scores(rewriter, loc, query5, adaptor.getKey());
    Value max = buildReduction(
        rewriter, loc, a.weights(), weights, {4}, a.rows(),
        -std::numeric_limits<double>::infinity(),
        [&](OpBuilder &b, Location l, ValueRange x) {
          return ScalarBuilder{b, l, a.element}.max(x[0], x[1]);
        });
    weights = buildMapInPlace(rewriter, loc, weights, max,
                              [](ScalarBuilder &s, ValueRange x) {
                                return s.exp(s.sub(x[1], x[0]));
                              });
    Value sum = buildSum(rewriter, loc, a.weights(), weights, {4}, a.rows(),
                         [](ScalarBuilder &, ValueRange x) { return x[0]; });
    Value lse = buildMapInPlace(rewriter, loc, max, sum,
                                [](ScalarBuilder &s, ValueRange x) {
                                  return s.add(x[1], s.log(x[0]));
                                });
    weights = buildMapInPlace(
        rewriter, loc, weights, sum,
        [](ScalarBuilder &s, ValueRange x) { return s.div(x[1], x[0]); });
    weights = a.dropout(rewriter, loc, weights, random);
    // Loops n, hk, g, i, j, d.
    SmallVector<AffineMap> maps =
        a.maps6(context, {0, 1, 2, 3, 4}, {0, 1, 4, 5}, {0, 1, 2, 3, 5});
    output = buildContraction(rewriter, loc, weights, adaptor.getValue(),
                              output, maps, {4});
    rewriter.replaceOp(op,
                       {a.view(rewriter, loc, output, op.getResult().getType()),
                        a.view(rewriter, loc, lse, op.getLse().getType())});
    return success();
  }
};

struct LowerAttentionGrad
    : OpConversionPattern<ScaledDotProductAttentionGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScaledDotProductAttentionGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = op.getContext();
    Attention a(adaptor.getQuery(), adaptor.getKey(), adaptor.getValue(),
                adaptor.getMask(), op.getCausal(),
                op.getScale().convertToDouble(), op.getP().convertToDouble(),
                op.getOffset());
    std::optional<RandomState> random =
        randomStateOf(rewriter, loc, adaptor.getRng());
    // The results first, so that the scratch is live with them.
    Value queryGrad = filledTensor(rewriter, loc, a.grouped(a.e), 0.0);
    Value keyGrad = filledTensor(rewriter, loc, op.getKeyGrad().getType(), 0.0);
    Value valueGrad =
        filledTensor(rewriter, loc, op.getValueGrad().getType(), 0.0);
    Value query5 = a.view(rewriter, loc, adaptor.getQuery(), a.grouped(a.e));
    Value grad5 = a.view(rewriter, loc, adaptor.getGrad(), a.grouped(a.ev));
    Value output5 = a.view(rewriter, loc, adaptor.getResult(), a.grouped(a.ev));
    Value lse5 = a.view(rewriter, loc, adaptor.getLse(), a.rows());

    // Every buffer is allocated before the operands that die here are
    // read for the last time (value, output, log-sum-exp), so the scratch
    // is live with all of them, as the simulator counts it.
    Value weights = a.scores(rewriter, loc, query5, adaptor.getKey());
    Value scoresGrad = filledTensor(rewriter, loc, a.weights(), 0.0);
    // The softmax correction: row dot products of the output and its grad.
    Value correction = buildSum(
        rewriter, loc, a.grouped(a.ev), {grad5, output5}, {4}, a.rows(),
        [](ScalarBuilder &s, ValueRange x) { return s.mul(x[0], x[1]); });
    // Loops n, hk, g, i, j, d: the gradient of the dropped weights.
    scoresGrad = buildContraction(
        rewriter, loc, grad5, adaptor.getValue(), scoresGrad,
        a.maps6(context, {0, 1, 2, 3, 5}, {0, 1, 4, 5}, {0, 1, 2, 3, 4}), {5});
    // The weights before dropout, from the scores and the log-sum-exp.
    weights = buildMapInPlace(rewriter, loc, weights, lse5,
                              [](ScalarBuilder &s, ValueRange x) {
                                return s.exp(s.sub(x[1], x[0]));
                              });
    // dS = scale * P * (dropout(dP) - correction), over dP's buffer.
    scoresGrad = buildMapInPlace(
        rewriter, loc, scoresGrad, {weights, correction},
        [&](ScalarBuilder &s, ValueRange x) {
          Value dropped = x[2];
          if (a.p != 0.0)
            dropped = a.dropWeight(s, *random, dropped);
          return s.mul(s.constant(a.scale), s.mul(x[0], s.sub(dropped, x[1])));
        });
    weights = a.dropout(rewriter, loc, weights, random);
    // Loops n, hk, g, i, j, d with g and i summed: dV = P^T dO.
    valueGrad = buildContraction(
        rewriter, loc, weights, grad5, valueGrad,
        a.maps6(context, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 5}, {0, 1, 4, 5}),
        {2, 3});
    // Loops n, hk, g, i, j, e: dQ = dS K (j summed), dK = dS^T Q (g, i).
    queryGrad = buildContraction(
        rewriter, loc, scoresGrad, adaptor.getKey(), queryGrad,
        a.maps6(context, {0, 1, 2, 3, 4}, {0, 1, 4, 5}, {0, 1, 2, 3, 5}), {4});
    keyGrad = buildContraction(
        rewriter, loc, scoresGrad, query5, keyGrad,
        a.maps6(context, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 5}, {0, 1, 4, 5}),
        {2, 3});
    rewriter.replaceOp(
        op, {a.view(rewriter, loc, queryGrad, op.getQueryGrad().getType()),
             keyGrad, valueGrad});
    return success();
  }
};

} // namespace

void ckpt::populateAttentionToLinalgPatterns(const TypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns.add<LowerAttention, LowerAttentionGrad>(converter,
                                                   patterns.getContext());
}
