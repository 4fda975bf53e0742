//===- ConvAlgorithm.h - how convolutions are computed ----------*- C++ -*-===//
//
// The lowering of a convolution and of its two gradients is chosen from
// their shapes, here, so that the lowering (CkptToLinalg) and the scratch
// bytes the memory simulator counts always agree.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_CONVALGORITHM_H
#define CKPT_DIALECT_CKPT_IR_CONVALGORITHM_H

#include <cstdint>

namespace ckpt {

/// How `conv2d`, `conv2d_input_grad` and `conv2d_weight_grad` are computed.
enum class ConvAlgorithm {
  /// A 1x1 kernel at stride 1 without padding in one group: matrix products
  /// on views of the images, no scratch.
  Pointwise,
  /// Per image, one product with the columns of its windows (im2col, a
  /// [C * KH * KW, OH * OW] matrix per group stack), which live in one
  /// scratch buffer reused image after image.
  Columns,
  /// One gather loop nest over the result, no scratch.
  Gather,
};

/// The largest batch whose convolutions are lowered image by image (the
/// per-image products are unrolled); larger batches are gathered.
constexpr int64_t kMostConvImagesUnrolled = 64;

} // namespace ckpt

#endif // CKPT_DIALECT_CKPT_IR_CONVALGORITHM_H
