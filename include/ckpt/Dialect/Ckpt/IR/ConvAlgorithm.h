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
  /// Products with the columns of the images' windows (im2col, a
  /// [C * KH * KW, OH * OW] matrix per image, split by group), which live
  /// in one scratch buffer reused product after product. A product takes
  /// getImagesPerProduct images: with several, their columns sit side by
  /// side, and the output block (or its gradient) they multiply into, or
  /// by, is gathered into a second scratch buffer [OC, images * OH * OW].
  Columns,
};

/// Output positions below which a product takes several images: each
/// product packs the whole kernel again, which for deep layers of a few
/// positions per image costs more than the product (ResNet-18's last
/// layer, 4 positions: 3.9 ms for 8 products of one image, 1.4 ms for one
/// of 8 images, forward, one thread).
constexpr int64_t kPositionsPerProduct = 128;

/// How many images one `Columns` product takes in a batch of `images`
/// with `positions` output positions each: the most that divide the batch
/// and hold at most kPositionsPerProduct positions together, at least one.
inline int64_t getImagesPerProduct(int64_t images, int64_t positions) {
  int64_t best = 1;
  for (int64_t count = 2; count <= images; ++count)
    if (images % count == 0 && count * positions <= kPositionsPerProduct)
      best = count;
  return best;
}

} // namespace ckpt

#endif // CKPT_DIALECT_CKPT_IR_CONVALGORITHM_H
