//===- ExpandBFloat16.cpp - bf16 conversions as integer arithmetic --------===//
//
// Rewrites arith.extf from bf16 and arith.truncf to bf16 into shifts and
// round-to-nearest-even integer arithmetic: without AVX512-BF16, LLVM calls
// __truncsfbf2 for the rounding, which the GCC 12 runtime lacks. The
// arithmetic gives the bits the instruction and PyTorch give.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTEXPANDBFLOAT16PASS
#include "ckpt/Conversion/Passes.h.inc"
} // namespace ckpt

using namespace mlir;

namespace {

struct CkptExpandBFloat16Pass
    : public ckpt::impl::CkptExpandBFloat16PassBase<CkptExpandBFloat16Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
