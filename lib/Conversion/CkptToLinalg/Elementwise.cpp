//===- Elementwise.cpp - pointwise ckpt ops -> linalg.generic -------------===//
//
// Every pointwise op, forward or gradient, is one broadcasting
// linalg.generic whose body is the op's scalar formula; a fused pointwise
// chain is one generic whose body applies its ops' formulas in turn.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"

#include "ckpt/Conversion/CkptToLinalg/CkptToLinalg.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ckpt;

namespace {

// gelu(x) = x * Phi(x); the tanh form approximates Phi(x) by
// (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2, as PyTorch does.
constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kSqrtTwoOverPi = 0.79788456080286535588;
constexpr double kInvSqrtTwoPi = 0.39894228040143267794;
constexpr double kGeluCubic = 0.044715;

Value geluPhi(ScalarBuilder &s, Value x, bool tanhForm) {
  if (!tanhForm)
    return s.mul(s.constant(0.5),
                 s.add(s.constant(1.0), s.erf(s.mul(x, s.constant(kSqrtHalf)))));
  Value inner = s.mul(s.constant(kSqrtTwoOverPi),
                      s.add(x, s.mul(s.constant(kGeluCubic),
                                     s.mul(x, s.mul(x, x)))));
  return s.mul(s.constant(0.5), s.add(s.constant(1.0), s.tanh(inner)));
}

Value geluGrad(ScalarBuilder &s, Value dy, Value x, bool tanhForm) {
  if (!tanhForm) {
    // Phi(x) + x * phi(x), phi the standard normal density.
    Value density = s.mul(s.constant(kInvSqrtTwoPi),
                          s.exp(s.mul(s.constant(-0.5), s.mul(x, x))));
    return s.mul(dy, s.add(geluPhi(s, x, false), s.mul(x, density)));
  }
  // d/dx [x (1 + t) / 2], t = tanh(u), u = k (x + c x^3).
  Value u =
      s.mul(s.constant(kSqrtTwoOverPi),
            s.add(x, s.mul(s.constant(kGeluCubic), s.mul(x, s.mul(x, x)))));
  Value t = s.tanh(u);
  Value du = s.mul(
      s.constant(kSqrtTwoOverPi),
      s.add(s.constant(1.0), s.mul(s.constant(3 * kGeluCubic), s.mul(x, x))));
  Value half = s.constant(0.5);
  Value left = s.mul(half, s.add(s.constant(1.0), t));
  Value right =
      s.mul(s.mul(half, x), s.mul(s.sub(s.constant(1.0), s.mul(t, t)), du));
  return s.mul(dy, s.add(left, right));
}

/// A clamp's bounds (of ckpt.clamp or its gradient), as doubles.
struct ClampBounds {
  template <typename OpTy>
  explicit ClampBounds(OpTy op) {
    if (auto bound = op.getMin())
      min = bound->convertToDouble();
    if (auto bound = op.getMax())
      max = bound->convertToDouble();
  }
  std::optional<double> min, max;
};

bool isTanhForm(GeluApproximation approximate) {
  return approximate == GeluApproximation::Tanh;
}

/// The scalar formula of the pointwise op `op` over its operands' elements
/// `x` (in the compute type of `s`).
Value pointwiseFormula(Operation *op, ScalarBuilder &s, ValueRange x) {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) { return s.add(x[0], x[1]); })
      .Case([&](SubOp) { return s.sub(x[0], x[1]); })
      .Case([&](MulOp) { return s.mul(x[0], x[1]); })
      .Case([&](DivOp) { return s.div(x[0], x[1]); })
      .Case([&](NegOp) { return s.neg(x[0]); })
      .Case([&](ExpOp) { return s.exp(x[0]); })
      .Case([&](LogOp) { return s.log(x[0]); })
      .Case([&](RsqrtOp) { return s.rsqrt(x[0]); })
      .Case([&](SqrtOp) { return s.sqrt(x[0]); })
      .Case([&](CastOp) { return s.convert(x[0]); })
      .Case([&](AbsOp) { return s.abs(x[0]); })
      .Case([&](TanhOp) { return s.tanh(x[0]); })
      .Case([&](SigmoidOp) { return s.sigmoid(x[0]); })
      .Case([&](ReluOp) { return s.max(x[0], s.constant(0.0)); })
      .Case([&](SiluOp) { return s.mul(x[0], s.sigmoid(x[0])); })
      .Case([&](WhereOp) { return s.select(x[0], x[1], x[2]); })
      .Case([&](BroadcastToOp) { return x[0]; })
      .Case([&](GeluOp gelu) {
        return s.mul(x[0], geluPhi(s, x[0], isTanhForm(gelu.getApproximate())));
      })
      .Case([&](PowOp pow) {
        return s.pow(x[0], s.constant(pow.getExponent().convertToDouble()));
      })
      .Case([&](ClampOp clamp) {
        ClampBounds bounds(clamp);
        Value y = x[0];
        if (bounds.min)
          y = s.max(y, s.constant(*bounds.min));
        if (bounds.max)
          y = s.min(y, s.constant(*bounds.max));
        return y;
      })
      .Case([&](SigmoidGradOp) {
        return s.mul(x[0], s.mul(x[1], s.sub(s.constant(1.0), x[1])));
      })
      .Case([&](TanhGradOp) {
        return s.mul(x[0], s.sub(s.constant(1.0), s.mul(x[1], x[1])));
      })
      .Case([&](ReluGradOp) {
        return s.select(s.greater(x[1], s.constant(0.0)), x[0],
                        s.constant(0.0));
      })
      .Case([&](SiluGradOp) {
        Value sig = s.sigmoid(x[1]);
        Value slope = s.mul(
            sig, s.add(s.constant(1.0),
                       s.mul(x[1], s.sub(s.constant(1.0), sig))));
        return s.mul(x[0], slope);
      })
      .Case([&](AbsGradOp) {
        Value zero = s.constant(0.0);
        Value negative = s.select(s.less(x[1], zero), s.neg(x[0]), zero);
        return s.select(s.greater(x[1], zero), x[0], negative);
      })
      .Case([&](ClampGradOp clamp) {
        ClampBounds bounds(clamp);
        Value dx = x[0], zero = s.constant(0.0);
        if (bounds.min)
          dx = s.select(s.less(x[1], s.constant(*bounds.min)), zero, dx);
        if (bounds.max)
          dx = s.select(s.greater(x[1], s.constant(*bounds.max)), zero, dx);
        return dx;
      })
      .Case([&](GeluGradOp gelu) {
        return geluGrad(s, x[0], x[1], isTanhForm(gelu.getApproximate()));
      })
      .Default([](Operation *) -> Value {
        llvm_unreachable("a Pointwise op without a formula");
      });
}

/// One element of `op`'s result, from its operands' elements `x`.
Value pointwiseElement(OpBuilder &b, Location loc, Operation *op,
                       ValueRange x) {
  Type element =
      cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  return computeScalar(b, loc, element, x,
                       [&](ScalarBuilder &s, ValueRange widened) {
                         return pointwiseFormula(op, s, widened);
                       });
}

/// Lowers a pointwise op (the Pointwise trait) to one broadcasting map.
struct PointwisePattern : RewritePattern {
  explicit PointwisePattern(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!op->hasTrait<Pointwise>())
      return failure();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Location loc = op->getLoc();
    rewriter.replaceOp(
        op, buildPointwiseInto(rewriter, loc, emptyTensor(rewriter, loc, type),
                               op->getOperands(),
                               [&](OpBuilder &b, Location l, ValueRange x) {
                                 return pointwiseElement(b, l, op, x);
                               }));
    return success();
  }
};

/// Lowers a fused chain to one map over its result: the body's ops run in
/// order on elements, each value rounded to its element type as its own
/// map would store it, so the bits are those of the unfused ops.
struct FusedPointwisePattern : OpRewritePattern<FusedPointwiseOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FusedPointwiseOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBodyBlock();
    Location loc = op.getLoc();
    Value result = buildPointwiseInto(
        rewriter, loc, emptyTensor(rewriter, loc, op.getType()), op.getInputs(),
        [&](OpBuilder &b, Location l, ValueRange inputs) {
          IRMapping elements;
          elements.map(body.getArguments(), inputs);
          for (Operation &inner : body.without_terminator()) {
            SmallVector<Value> x =
                llvm::map_to_vector(inner.getOperands(), [&](Value operand) {
                  return elements.lookup(operand);
                });
            elements.map(inner.getResult(0),
                         pointwiseElement(b, inner.getLoc(), &inner, x));
          }
          return elements.lookup(body.getTerminator()->getOperand(0));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void ckpt::populateElementwiseToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<PointwisePattern, FusedPointwisePattern>(patterns.getContext());
}
