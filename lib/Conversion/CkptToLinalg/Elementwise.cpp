//===- Elementwise.cpp - pointwise ckpt ops -> linalg.generic -------------===//
//
// Every pointwise op, forward or gradient, is one broadcasting
// linalg.generic whose body is the op's scalar formula.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "LoweringPattern.h"

#include "ckpt/Conversion/CkptToLinalg/CkptToLinalg.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include <cmath>

using namespace mlir;
using namespace ckpt;

namespace {

/// The scalar formula of a pointwise op, given its operands' elements.
using FormulaFn = Value (*)(ScalarBuilder &, ValueRange);

/// Lowers a pointwise op whose result is its formula applied elementwise.
template <typename OpTy>
struct PointwisePattern : OpRewritePattern<OpTy> {
  PointwisePattern(MLIRContext *context, FormulaFn formula)
      : OpRewritePattern<OpTy>(context), formula(formula) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    rewriter.replaceOp(op, buildMap(rewriter, op.getLoc(), type,
                                    op->getOperands(), formula));
    return success();
  }

  FormulaFn formula;
};

template <typename OpTy>
void addPointwise(RewritePatternSet &patterns, FormulaFn formula) {
  patterns.add<PointwisePattern<OpTy>>(patterns.getContext(), formula);
}

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

FailureOr<SmallVector<Value>> lowerGelu(GeluOp op, PatternRewriter &rewriter) {
  bool tanhForm = op.getApproximate() == GeluApproximation::Tanh;
  auto type = op.getType();
  return SmallVector<Value>{
      buildMap(rewriter, op.getLoc(), type, op.getInput(),
               [&](ScalarBuilder &s, ValueRange x) {
                 return s.mul(x[0], geluPhi(s, x[0], tanhForm));
               })};
}

FailureOr<SmallVector<Value>> lowerGeluGrad(GeluGradOp op,
                                            PatternRewriter &rewriter) {
  bool tanhForm = op.getApproximate() == GeluApproximation::Tanh;
  auto type = op.getType();
  return SmallVector<Value>{buildMap(
      rewriter, op.getLoc(), type, {op.getGrad(), op.getForward()},
      [&](ScalarBuilder &s, ValueRange v) {
        Value dy = v[0], x = v[1];
        if (!tanhForm) {
          // Phi(x) + x * phi(x), phi the standard normal density.
          Value density = s.mul(s.constant(kInvSqrtTwoPi),
                                s.exp(s.mul(s.constant(-0.5), s.mul(x, x))));
          return s.mul(dy, s.add(geluPhi(s, x, false), s.mul(x, density)));
        }
        // d/dx [x (1 + t) / 2], t = tanh(u), u = k (x + c x^3).
        Value u = s.mul(s.constant(kSqrtTwoOverPi),
                        s.add(x, s.mul(s.constant(kGeluCubic),
                                       s.mul(x, s.mul(x, x)))));
        Value t = s.tanh(u);
        Value du = s.mul(s.constant(kSqrtTwoOverPi),
                         s.add(s.constant(1.0),
                               s.mul(s.constant(3 * kGeluCubic), s.mul(x, x))));
        Value half = s.constant(0.5);
        Value left = s.mul(half, s.add(s.constant(1.0), t));
        Value right = s.mul(s.mul(half, x),
                            s.mul(s.sub(s.constant(1.0), s.mul(t, t)), du));
        return s.mul(dy, s.add(left, right));
      })};
}

FailureOr<SmallVector<Value>> lowerPow(PowOp op, PatternRewriter &rewriter) {
  double exponent = op.getExponent().convertToDouble();
  return SmallVector<Value>{
      buildMap(rewriter, op.getLoc(), op.getType(), op.getInput(),
               [&](ScalarBuilder &s, ValueRange x) {
                 return s.pow(x[0], s.constant(exponent));
               })};
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

FailureOr<SmallVector<Value>> lowerClamp(ClampOp op,
                                         PatternRewriter &rewriter) {
  ClampBounds bounds(op);
  return SmallVector<Value>{
      buildMap(rewriter, op.getLoc(), op.getType(), op.getInput(),
               [&](ScalarBuilder &s, ValueRange x) {
                 Value y = x[0];
                 if (bounds.min)
                   y = s.max(y, s.constant(*bounds.min));
                 if (bounds.max)
                   y = s.min(y, s.constant(*bounds.max));
                 return y;
               })};
}

FailureOr<SmallVector<Value>> lowerClampGrad(ClampGradOp op,
                                             PatternRewriter &rewriter) {
  ClampBounds bounds(op);
  return SmallVector<Value>{buildMap(
      rewriter, op.getLoc(), op.getType(), {op.getGrad(), op.getForward()},
      [&](ScalarBuilder &s, ValueRange v) {
        Value dx = v[0], zero = s.constant(0.0);
        if (bounds.min)
          dx = s.select(s.less(v[1], s.constant(*bounds.min)), zero, dx);
        if (bounds.max)
          dx = s.select(s.greater(v[1], s.constant(*bounds.max)), zero, dx);
        return dx;
      })};
}

} // namespace

void ckpt::populateElementwiseToLinalgPatterns(RewritePatternSet &patterns) {
  addPointwise<AddOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
                       return s.add(x[0], x[1]);
                     });
  addPointwise<SubOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
                       return s.sub(x[0], x[1]);
                     });
  addPointwise<MulOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
                       return s.mul(x[0], x[1]);
                     });
  addPointwise<DivOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
                       return s.div(x[0], x[1]);
                     });
  addPointwise<NegOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
                       return s.neg(x[0]);
                     });
  addPointwise<ExpOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
                       return s.exp(x[0]);
                     });
  addPointwise<LogOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
                       return s.log(x[0]);
                     });
  addPointwise<RsqrtOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
                         return s.rsqrt(x[0]);
                       });
  addPointwise<SqrtOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
                        return s.sqrt(x[0]);
                      });
  addPointwise<CastOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
                        return s.convert(x[0]);
                      });
  addPointwise<AbsOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
                       return s.abs(x[0]);
                     });
  addPointwise<TanhOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
                        return s.tanh(x[0]);
                      });
  addPointwise<SigmoidOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
        return s.sigmoid(x[0]);
      });
  addPointwise<ReluOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
                        return s.max(x[0], s.constant(0.0));
                      });
  addPointwise<SiluOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
                        return s.mul(x[0], s.sigmoid(x[0]));
                      });
  addPointwise<WhereOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
        return s.select(x[0], x[1], x[2]);
      });
  addPointwise<SigmoidGradOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
        return s.mul(x[0], s.mul(x[1], s.sub(s.constant(1.0), x[1])));
      });
  addPointwise<TanhGradOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
        return s.mul(x[0], s.sub(s.constant(1.0), s.mul(x[1], x[1])));
      });
  addPointwise<ReluGradOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
        return s.select(s.greater(x[1], s.constant(0.0)), x[0],
                        s.constant(0.0));
      });
  addPointwise<SiluGradOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
        Value sig = s.sigmoid(x[1]);
        Value slope = s.mul(
            sig, s.add(s.constant(1.0),
                       s.mul(x[1], s.sub(s.constant(1.0), sig))));
        return s.mul(x[0], slope);
      });
  addPointwise<AbsGradOp>(patterns, +[](ScalarBuilder &s, ValueRange x) {
        Value zero = s.constant(0.0);
        Value negative = s.select(s.less(x[1], zero), s.neg(x[0]), zero);
        return s.select(s.greater(x[1], zero), x[0], negative);
      });
  addLowering<PowOp>(patterns, lowerPow);
  addLowering<ClampOp>(patterns, lowerClamp);
  addLowering<ClampGradOp>(patterns, lowerClampGrad);
  addLowering<GeluOp>(patterns, lowerGelu);
  addLowering<GeluGradOp>(patterns, lowerGeluGrad);
}
