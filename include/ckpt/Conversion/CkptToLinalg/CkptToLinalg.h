//===- CkptToLinalg.h - ckpt ops -> linalg/tensor/arith/math --------------===//
//
// Patterns that lower ckpt ops on tensors to linalg.generic and tensor ops,
// one populate function per op family, and the pass that applies them.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_CONVERSION_CKPTTOLINALG_CKPTTOLINALG_H
#define CKPT_CONVERSION_CKPTTOLINALG_CKPTTOLINALG_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace ckpt {

/// Pointwise ops and their gradients (add ... gelu, where, *_grad).
void populateElementwiseToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// Reductions, softmax and log_softmax, and their gradients.
void populateReductionToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// linear and matmul.
void populateDenseToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// reshape, transpose, broadcast_to, slice, slice_grad, concat.
void populateShapeToTensorPatterns(mlir::RewritePatternSet &patterns);
/// layer_norm, rms_norm and their gradients.
void populateNormalizationToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// embedding (a gather) and embedding_grad (a deterministic scatter-add).
void populateLookupToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// conv2d, max_pool2d, avg_pool2d, upsample_nearest2d, batch_norm and their
/// gradients.
void populateVisionToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// The random state `!ckpt.rng` as `tensor<2xi64>` (seed, base counter).
void addRandomStateConversion(mlir::TypeConverter &converter);
/// dropout and dropout_grad with Philox4x32-10 in generated code; their
/// random state goes through `converter`.
void populateRandomToLinalgPatterns(const mlir::TypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
/// scaled_dot_product_attention and its gradient; the random state of
/// their dropout goes through `converter`.
void populateAttentionToLinalgPatterns(const mlir::TypeConverter &converter,
                                       mlir::RewritePatternSet &patterns);
/// Checkpoint and recompute segments run inline once lowered.
void populateSegmentInliningPatterns(mlir::RewritePatternSet &patterns);

} // namespace ckpt

#endif // CKPT_CONVERSION_CKPTTOLINALG_CKPTTOLINALG_H
