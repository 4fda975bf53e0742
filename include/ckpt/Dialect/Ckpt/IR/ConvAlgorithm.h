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

/// How `conv2d`, `conv2d_input_grad` and `conv2d_weight_grad` are computed:
/// image by image, as matrix products (each a BLAS call).
enum class ConvAlgorithm {
  /// A 1x1 kernel at stride 1 without padding in one group: products on
  /// views of the images, no scratch.
  Pointwise,
  /// Products with the columns of an image's windows (im2col, a
  /// [C * KH * KW, OH * OW] matrix, split by group), which live in one
  /// scratch buffer reused image after image.
  Columns,
};

} // namespace ckpt

#endif // CKPT_DIALECT_CKPT_IR_CONVALGORITHM_H
