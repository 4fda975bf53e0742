//===- ApproximateMath.cpp - f32 transcendentals as inline polynomials ----===//
//
// Rewrites f32 tanh, erf, exp, expm1, log and their kin into MLIR's
// polynomial approximations: straight-line arithmetic the backend inlines
// and vectorises, where a libm call per element cost more than the step's
// matrix products. The same op always becomes the same arithmetic, so a
// forward and its recompute agree to the bit.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTAPPROXIMATEMATHPASS
#include "ckpt/Conversion/Passes.h.inc"
} // namespace ckpt

using namespace mlir;

namespace {

struct CkptApproximateMathPass
    : public ckpt::impl::CkptApproximateMathPassBase<
          CkptApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) { return name != "math.rsqrt"; });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
