//===- LoweringPattern.h - one rewrite pattern per lowered op -------------===//
//
// Each lowering is a function from the op to its replacement values; this
// wraps it as a rewrite pattern.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_CONVERSION_CKPTTOLINALG_LOWERINGPATTERN_H
#define CKPT_LIB_CONVERSION_CKPTTOLINALG_LOWERINGPATTERN_H

#include "mlir/IR/PatternMatch.h"

namespace ckpt {

template <typename OpTy>
using LoweringFn = mlir::FailureOr<llvm::SmallVector<mlir::Value>> (*)(
    OpTy, mlir::PatternRewriter &);

template <typename OpTy>
struct LoweringPattern : mlir::OpRewritePattern<OpTy> {
  LoweringPattern(mlir::MLIRContext *context, LoweringFn<OpTy> lower)
      : mlir::OpRewritePattern<OpTy>(context), lower(lower) {}

  mlir::LogicalResult
  matchAndRewrite(OpTy op, mlir::PatternRewriter &rewriter) const override {
    mlir::FailureOr<llvm::SmallVector<mlir::Value>> values = lower(op, rewriter);
    if (mlir::failed(values))
      return mlir::failure();
    rewriter.replaceOp(op, *values);
    return mlir::success();
  }

  LoweringFn<OpTy> lower;
};

template <typename OpTy>
void addLowering(mlir::RewritePatternSet &patterns, LoweringFn<OpTy> lower) {
  patterns.add<LoweringPattern<OpTy>>(patterns.getContext(), lower);
}

} // namespace ckpt

#endif // CKPT_LIB_CONVERSION_CKPTTOLINALG_LOWERINGPATTERN_H
