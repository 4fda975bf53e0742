//===- Vision.cpp - conv2d, pooling, upsampling, batch_norm -> linalg -----===//
//
// Convolutions are matrix products (BLAS calls after ckpt-gemm-to-calls):
// pointwise ones on views of the images, the others in a loop over the
// images on the columns (im2col) of one image, or of a block of images
// with few output positions, in one scratch buffer, whose input gradient
// goes back to the images window by window, as max pooling's gradient
// does. The other windowed ops are gathers: one linalg.generic over the
// elements it writes and the window offsets it sums over, reading images
// with tensor.extract at computed positions. Padding needs no padded copy,
// and gradients that are scatters in PyTorch (col2im, pooling) sum in a
// fixed order with no write conflicts. batch_norm is layer_norm's arithmetic
// over every dimension but the channels, with PyTorch's accumulation: f32
// sums per channel run in f64.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "LoweringPattern.h"

#include "ckpt/Conversion/CkptToLinalg/CkptToLinalg.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace ckpt;

namespace {

/// Index arithmetic in a linalg.generic body.
struct IndexBuilder {
  OpBuilder &b;
  Location loc;

  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value loop(unsigned dim) { return linalg::IndexOp::create(b, loc, dim); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) {
    return arith::MulIOp::create(b, loc, x, constant(y));
  }
  /// x * factor + offset.
  Value affine(Value x, int64_t factor, int64_t offset) {
    return add(mul(x, factor), constant(offset));
  }
  Value min(Value x, int64_t y) {
    return arith::MinSIOp::create(b, loc, x, constant(y));
  }
  Value max(Value x, int64_t y) {
    return arith::MaxSIOp::create(b, loc, x, constant(y));
  }
  Value compare(arith::CmpIPredicate predicate, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  /// 0 <= x < size.
  Value inRange(Value x, int64_t size) {
    return both(compare(arith::CmpIPredicate::sge, x, constant(0)),
                compare(arith::CmpIPredicate::slt, x, constant(size)));
  }
  /// x clamped into [0, size), so that a read there is in bounds.
  Value clamp(Value x, int64_t size) { return max(min(x, size - 1), 0); }
  Value toFloat(Value x, Type type) {
    Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), x);
    return arith::SIToFPOp::create(b, loc, type, i64);
  }
  Value toI64(Value x) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), x);
  }
};

/// The element of the NCHW `image` at (n, c, h, w) with h and w clamped
/// into the image: callers discard reads outside it.
Value readClamped(IndexBuilder &ix, Value image, Value n, Value c, Value h,
                  Value w) {
  auto type = cast<RankedTensorType>(image.getType());
  return tensor::ExtractOp::create(ix.b, ix.loc, image,
                                   ValueRange{n, c,
                                              ix.clamp(h, type.getDimSize(2)),
                                              ix.clamp(w, type.getDimSize(3))});
}

/// The output position (clamped into the output) whose window reads input
/// position `position` at the dilated kernel offset `offset`, and whether
/// there is one: `position + padding - offset` must be a non-negative
/// multiple of `stride` below `stride * outputSize`.
std::pair<Value, Value> windowOrigin(IndexBuilder &ix, Value position,
                                     Value offset, int64_t padding,
                                     int64_t stride, int64_t outputSize) {
  Value shifted = ix.sub(ix.add(position, ix.constant(padding)), offset);
  Value origin =
      arith::DivSIOp::create(ix.b, ix.loc, shifted, ix.constant(stride));
  Value aligned = ix.compare(
      arith::CmpIPredicate::eq,
      arith::RemSIOp::create(ix.b, ix.loc, shifted, ix.constant(stride)),
      ix.constant(0));
  Value valid = ix.both(
      ix.both(ix.compare(arith::CmpIPredicate::sge, shifted, ix.constant(0)),
              aligned),
      ix.compare(arith::CmpIPredicate::slt, origin, ix.constant(outputSize)));
  return {ix.clamp(origin, outputSize), valid};
}

/// Along one axis of a window op, the output positions whose window reads
/// inside the input at one window offset: `count` of them from `first`,
/// reading from input position `input` on by the stride.
struct InsideRange {
  int64_t first, count, input;
};

/// The InsideRange of an input of `size` and an output of `out` positions
/// at `stride`, when output position o reads input position o * stride +
/// shift.
InsideRange insideRange(int64_t size, int64_t out, int64_t stride,
                        int64_t shift) {
  int64_t first = shift >= 0 ? 0 : llvm::divideCeil(-shift, stride);
  int64_t last =
      std::min(llvm::divideFloorSigned(size - 1 - shift, stride), out - 1);
  return {first, std::max<int64_t>(0, last - first + 1),
          first * stride + shift};
}

/// The map of an operand indexed by the loops `targets` of `numLoops`.
AffineMap loopsMap(MLIRContext *context, unsigned numLoops,
                   ArrayRef<unsigned> targets) {
  return AffineMap::getMultiDimMapWithTargets(numLoops, targets, context);
}

SmallVector<utils::IteratorType> iterators(unsigned parallel,
                                           unsigned reduction) {
  SmallVector<utils::IteratorType> kinds(parallel,
                                         utils::IteratorType::parallel);
  kinds.append(reduction, utils::IteratorType::reduction);
  return kinds;
}

/// `type` with dimension `dim` split into [groups, size / groups].
RankedTensorType splitDim(RankedTensorType type, unsigned dim, int64_t groups) {
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= groups;
  shape.insert(shape.begin() + dim, groups);
  return RankedTensorType::get(shape, type.getElementType());
}

/// The reassociation that merges dimensions `dim` and `dim + 1` of a
/// tensor of rank `rank`.
SmallVector<ReassociationIndices> mergePair(unsigned rank, unsigned dim) {
  SmallVector<ReassociationIndices> groups;
  for (unsigned d = 0; d < rank; ++d) {
    if (d == dim + 1)
      groups.back().push_back(d);
    else
      groups.push_back({static_cast<int64_t>(d)});
  }
  return groups;
}

/// A view of `value` with dimension `dim` split into [groups, size /
/// groups]: channels by group.
Value splitGroups(OpBuilder &b, Location loc, Value value, unsigned dim,
                  int64_t groups) {
  auto type = cast<RankedTensorType>(value.getType());
  RankedTensorType split = splitDim(type, dim, groups);
  return tensor::ExpandShapeOp::create(b, loc, split, value,
                                       mergePair(split.getRank(), dim));
}

/// The inverse of splitGroups.
Value mergeGroups(OpBuilder &b, Location loc, Value value, unsigned dim) {
  auto type = cast<RankedTensorType>(value.getType());
  return tensor::CollapseShapeOp::create(b, loc, value,
                                         mergePair(type.getRank(), dim));
}

/// An uninitialised tensor of `kernel`'s shape whose only use is to give
/// the kernel loops of a pooling generic their bounds (as linalg's own
/// pooling ops take one).
Value windowShape(OpBuilder &b, Location loc, ArrayRef<int64_t> kernel,
                  Type element) {
  return emptyTensor(b, loc, RankedTensorType::get(kernel, element));
}

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//

/// The sizes of a convolution, with channels counted per group.
struct ConvGeometry {
  template <typename OpTy>
  ConvGeometry(OpTy op, RankedTensorType input, RankedTensorType weight,
               RankedTensorType output)
      : stride(op.getStride()), padding(op.getPadding()),
        dilation(op.getDilation()), groups(op.getGroups()),
        height(input.getDimSize(2)), width(input.getDimSize(3)),
        outHeight(output.getDimSize(2)), outWidth(output.getDimSize(3)),
        kernelHeight(weight.getDimSize(2)), kernelWidth(weight.getDimSize(3)),
        channelsPerGroup(input.getDimSize(1) / groups),
        outChannelsPerGroup(weight.getDimSize(0) / groups),
        images(op.getImagesPerProduct()), element(input.getElementType()) {}

  /// The output positions along `axis` whose windows read inside the
  /// input at kernel offset `k`.
  InsideRange inside(unsigned axis, int64_t k) const {
    return insideRange(axis ? width : height, axis ? outWidth : outHeight,
                       stride[axis], k * dilation[axis] - padding[axis]);
  }

  /// One product's columns, [G, C/G * KH * KW, images * OH * OW].
  RankedTensorType columnsType() const {
    return RankedTensorType::get({groups,
                                  channelsPerGroup * kernelHeight * kernelWidth,
                                  images * outHeight * outWidth},
                                 element);
  }

  /// The columns as [G, C/G, KH, KW, images, OH, OW].
  RankedTensorType windowsType() const {
    return RankedTensorType::get({groups, channelsPerGroup, kernelHeight,
                                  kernelWidth, images, outHeight, outWidth},
                                 element);
  }

  /// One product's output block (or its gradient), [G, OC/G, images * OH *
  /// OW], gathered from the images when a product takes several.
  RankedTensorType blockType() const {
    return RankedTensorType::get(
        {groups, outChannelsPerGroup, images * outHeight * outWidth}, element);
  }

  ArrayRef<int64_t> stride, padding, dilation;
  int64_t groups, height, width, outHeight, outWidth;
  int64_t kernelHeight, kernelWidth;
  int64_t channelsPerGroup, outChannelsPerGroup;
  /// The images one product takes (ConvAlgorithm.h).
  int64_t images;
  Type element;
};

/// The reassociation between the columns and their windows.
SmallVector<ReassociationIndices> windowsOfColumns() {
  return {{0}, {1, 2, 3}, {4, 5, 6}};
}

/// An image batch [N, C, H, W] as [N, C, H*W]: a view.
Value mergePositions(OpBuilder &b, Location loc, Value value) {
  return tensor::CollapseShapeOp::create(b, loc, value, mergePair(4, 2));
}

/// An image batch or its gradient [N, C, H, W] as [N, G, C/G, H*W]: a
/// view.
Value groupPositions(OpBuilder &b, Location loc, Value value, int64_t groups) {
  return splitGroups(b, loc, mergePositions(b, loc, value), 1, groups);
}

/// A kernel [OC, C/G, KH, KW] as the matrix [OC, C/G * KH * KW]: a view.
Value kernelMatrix(OpBuilder &b, Location loc, Value weight) {
  return tensor::CollapseShapeOp::create(
      b, loc, weight, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
}

/// A kernel as one matrix per group, [G, OC/G, C/G * KH * KW]: a view.
Value groupKernels(OpBuilder &b, Location loc, Value weight, int64_t groups) {
  return splitGroups(b, loc, kernelMatrix(b, loc, weight), 0, groups);
}

/// The offsets, sizes and strides of image `n` of a batch of `type`.
struct ImageSlice {
  ImageSlice(OpBuilder &b, RankedTensorType type, Value n)
      : offsets(type.getRank(), b.getIndexAttr(0)),
        sizes(getAsIndexOpFoldResult(b.getContext(), type.getShape())),
        strides(type.getRank(), b.getIndexAttr(1)) {
    offsets[0] = n;
    sizes[0] = b.getIndexAttr(1);
  }
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

/// Image `n` of `batch` ([N, ...]), without the batch dimension: a view.
Value extractImage(OpBuilder &b, Location loc, Value batch, Value n) {
  auto type = cast<RankedTensorType>(batch.getType());
  ImageSlice slice(b, type, n);
  return tensor::ExtractSliceOp::create(
      b, loc,
      RankedTensorType::get(type.getShape().drop_front(),
                            type.getElementType()),
      batch, slice.offsets, slice.sizes, slice.strides);
}

/// `batch` with image `n` replaced by `image`, written in place.
Value insertImage(OpBuilder &b, Location loc, Value image, Value batch,
                  Value n) {
  ImageSlice slice(b, cast<RankedTensorType>(batch.getType()), n);
  return tensor::InsertSliceOp::create(b, loc, image, batch, slice.offsets,
                                       slice.sizes, slice.strides);
}

/// Images n to n + count - 1 of `batch`, keeping the batch dimension: a
/// view.
Value extractImages(OpBuilder &b, Location loc, Value batch, Value n,
                    int64_t count) {
  auto type = cast<RankedTensorType>(batch.getType());
  ImageSlice slice(b, type, n);
  slice.sizes[0] = b.getIndexAttr(count);
  SmallVector<int64_t> shape(type.getShape());
  shape[0] = count;
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), batch,
      slice.offsets, slice.sizes, slice.strides);
}

/// `batch` with images n on replaced by `images`, written in place.
Value insertImages(OpBuilder &b, Location loc, Value images, Value batch,
                   Value n) {
  auto type = cast<RankedTensorType>(batch.getType());
  ImageSlice slice(b, type, n);
  slice.sizes[0] =
      b.getIndexAttr(cast<RankedTensorType>(images.getType()).getDimSize(0));
  return tensor::InsertSliceOp::create(b, loc, images, batch, slice.offsets,
                                       slice.sizes, slice.strides);
}

/// A copy of `source` into `target` whose element at the loops' position
/// (target's dimensions, in order) is source's at `sourceDims`.
Value copyPermuted(OpBuilder &b, Location loc, Value source, Value target,
                   ArrayRef<unsigned> sourceDims) {
  auto type = cast<RankedTensorType>(target.getType());
  unsigned rank = type.getRank();
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{source}, ValueRange{target},
             ArrayRef<AffineMap>{loopsMap(b.getContext(), rank, sourceDims),
                                 b.getMultiDimIdentityMap(rank)},
             iterators(rank, 0),
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, args[0]);
             })
      .getResult(0);
}

/// The reassociation between a block [G, O, images * P] and its images
/// [G, O, images, P].
SmallVector<ReassociationIndices> imagesOfBlock() { return {{0}, {1}, {2, 3}}; }

/// A block [G, O, images * P] as [G, O, images, P]: a view.
Value blockImages(OpBuilder &b, Location loc, const ConvGeometry &conv,
                  Value block) {
  auto type = cast<RankedTensorType>(block.getType());
  auto imagesType =
      RankedTensorType::get({type.getDimSize(0), type.getDimSize(1),
                             conv.images, conv.outHeight * conv.outWidth},
                            conv.element);
  return tensor::ExpandShapeOp::create(b, loc, imagesType, block,
                                       imagesOfBlock());
}

/// Images n on of `batch` ([N, G, O, P]) gathered into `block` ([G, O,
/// images * P]) for one product.
Value gatherBlock(OpBuilder &b, Location loc, const ConvGeometry &conv,
                  Value batch, Value n, Value block) {
  // Loops g, o, i, p. (Built in statements: the order of a call's
  // arguments, and so of the ops, differs between compilers.)
  Value target = blockImages(b, loc, conv, block);
  Value images = extractImages(b, loc, batch, n, conv.images);
  Value copied = copyPermuted(b, loc, images, target, {2, 0, 1, 3});
  return tensor::CollapseShapeOp::create(b, loc, block.getType(), copied,
                                         imagesOfBlock());
}

/// `block` written back into images n on of `batch`, in place.
Value scatterBlock(OpBuilder &b, Location loc, const ConvGeometry &conv,
                   Value block, Value batch, Value n) {
  // Loops i, g, o, p.
  Value source = blockImages(b, loc, conv, block);
  Value target = extractImages(b, loc, batch, n, conv.images);
  Value images = copyPermuted(b, loc, source, target, {1, 2, 0, 3});
  return insertImages(b, loc, images, batch, n);
}

/// The body of the loop over the images: gets the builder, the image index
/// and the loop-carried values, returns their next values.
using ImageBody = llvm::function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                        Value, ValueRange)>;

/// One scf.for over the `images` images `step` at a time, in order,
/// carrying `initial` (the results and the scratch, each updated in
/// place): the products of one image or block of images after another,
/// without unrolling. The body gets the first image of its block.
scf::ForOp forEachImage(OpBuilder &b, Location loc, int64_t images,
                        int64_t step, ValueRange initial, ImageBody body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value count = arith::ConstantIndexOp::create(b, loc, images);
  Value by = arith::ConstantIndexOp::create(b, loc, step);
  return scf::ForOp::create(
      b, loc, zero, count, by, initial,
      [&](OpBuilder &nb, Location l, Value n, ValueRange carried) {
        scf::YieldOp::create(nb, l, body(nb, l, n, carried));
      });
}

/// A static slice of a tensor, and what it is.
struct Slice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  RankedTensorType type;

  Value extract(OpBuilder &b, Location loc, Value from) const {
    return tensor::ExtractSliceOp::create(b, loc, type, from, offsets, sizes,
                                          strides);
  }
  Value insert(OpBuilder &b, Location loc, Value part, Value into) const {
    return tensor::InsertSliceOp::create(b, loc, part, into, offsets, sizes,
                                         strides);
  }
};

/// At kernel offset (kh, kw), the output positions that read inside the
/// image are a rectangle, and what they read a strided window of it: the
/// slices of both, within their kernel row's slices (KernelRowSlices).
struct KernelOffsetSlices {
  /// Of the row's columns: [G, C/G, 1, 1, images, rows, cols].
  Slice columns;
  /// Of the row's image rows: [images, G, C/G, rows, cols], strided.
  Slice image;
};

/// The offsets (kh, kw) of kernel row kh all read the same image rows: the
/// slices of the row's columns, as [G, C/G, KH, KW, images, OH, OW]:
/// [G, C/G, 1, KW, images, OH, OW], and of the image rows it reads, as
/// [images, G, C/G, H, W]: [images, G, C/G, rows, W], strided; and its
/// offsets in order (offsets whose positions all read padding have none).
/// A chain of slices per row rather than one per offset over the whole
/// columns keeps bufferization's analysis short: its cost grows with the
/// square of a chain's length.
struct KernelRowSlices {
  Slice columns, image;
  std::vector<KernelOffsetSlices> offsets;
};

/// Calls `body` with each kernel row that reads inside the image, in order.
void forEachKernelRow(OpBuilder &b, const ConvGeometry &conv,
                      llvm::function_ref<void(const KernelRowSlices &)> body) {
  MLIRContext *context = b.getContext();
  auto indices = [&](ArrayRef<int64_t> values) {
    return getAsIndexOpFoldResult(context, values);
  };
  int64_t g = conv.groups, c = conv.channelsPerGroup, i = conv.images;
  for (int64_t kh = 0; kh < conv.kernelHeight; ++kh) {
    InsideRange rows = conv.inside(0, kh);
    if (rows.count == 0)
      continue;
    KernelRowSlices row{
        {indices({0, 0, kh, 0, 0, 0, 0}),
         indices({g, c, 1, conv.kernelWidth, i, conv.outHeight, conv.outWidth}),
         indices({1, 1, 1, 1, 1, 1, 1}),
         RankedTensorType::get(
             {g, c, 1, conv.kernelWidth, i, conv.outHeight, conv.outWidth},
             conv.element)},
        {indices({0, 0, 0, rows.input, 0}),
         indices({i, g, c, rows.count, conv.width}),
         indices({1, 1, 1, conv.stride[0], 1}),
         RankedTensorType::get({i, g, c, rows.count, conv.width},
                               conv.element)},
        {}};
    for (int64_t kw = 0; kw < conv.kernelWidth; ++kw) {
      InsideRange cols = conv.inside(1, kw);
      if (cols.count == 0)
        continue;
      row.offsets.push_back(
          {{indices({0, 0, 0, kw, 0, rows.first, cols.first}),
            indices({g, c, 1, 1, i, rows.count, cols.count}),
            indices({1, 1, 1, 1, 1, 1, 1}),
            RankedTensorType::get({g, c, 1, 1, i, rows.count, cols.count},
                                  conv.element)},
           {indices({0, 0, 0, 0, cols.input}),
            indices({i, g, c, rows.count, cols.count}),
            indices({1, 1, 1, 1, conv.stride[1]}),
            RankedTensorType::get({i, g, c, rows.count, cols.count},
                                  conv.element)}});
    }
    if (!row.offsets.empty())
      body(row);
  }
}

/// The columns of images n to n + conv.images - 1 of `input` ([N, C, H,
/// W]), written into `into` (of conv.columnsType()): in group g, row (cg,
/// kh, kw) of column (i, oh, ow) is the element of image n + i that output
/// position (oh, ow) reads at kernel offset (kh, kw) of channel cg, or
/// zero in the padding: one copy per kernel offset, over zeros where some
/// positions read the padding. Writing each product's columns over the
/// last one's keeps one buffer.
Value imageColumns(OpBuilder &b, Location loc, const ConvGeometry &conv,
                   Value input, Value n, Value into) {
  Value windows = tensor::ExpandShapeOp::create(b, loc, conv.windowsType(),
                                                into, windowsOfColumns());
  int64_t copied = 0;
  forEachKernelRow(b, conv, [&](const KernelRowSlices &row) {
    for (const KernelOffsetSlices &slices : row.offsets)
      copied += slices.image.type.getNumElements();
  });
  if (copied < conv.windowsType().getNumElements()) {
    Value zero = ScalarBuilder{b, loc, conv.element}.constant(0.0);
    windows = linalg::FillOp::create(b, loc, zero, windows).getResult(0);
  }
  Value image = extractImages(
      b, loc, splitGroups(b, loc, input, 1, conv.groups), n, conv.images);
  forEachKernelRow(b, conv, [&](const KernelRowSlices &row) {
    Value rows = row.image.extract(b, loc, image);
    Value columns = row.columns.extract(b, loc, windows);
    for (const KernelOffsetSlices &slices : row.offsets) {
      Value read = slices.image.extract(b, loc, rows);
      Value target = slices.columns.extract(b, loc, columns);
      // Loops g, cg, (kh), (kw), i, oh, ow.
      Value written = copyPermuted(b, loc, read, target, {4, 0, 1, 5, 6});
      columns = slices.columns.insert(b, loc, written, columns);
    }
    windows = row.columns.insert(b, loc, columns, windows);
  });
  return tensor::CollapseShapeOp::create(b, loc, conv.columnsType(), windows,
                                         windowsOfColumns());
}

/// Adds the columns `columns` of one product's input gradient back into its
/// images `image` ([images, G, C/G, H, W]): per kernel offset in order,
/// each column's row adds into the image element it was read from. Each
/// input position gets its terms in kernel order, whatever the stride or
/// overlap, so the sums have a fixed order.
Value addColumnsToImage(OpBuilder &b, Location loc, const ConvGeometry &conv,
                        Value columns, Value image) {
  MLIRContext *context = b.getContext();
  Value windows = tensor::ExpandShapeOp::create(b, loc, conv.windowsType(),
                                                columns, windowsOfColumns());
  AffineExpr zero = getAffineConstantExpr(0, context);
  auto loop = [&](unsigned dim) { return getAffineDimExpr(dim, context); };
  // Loops i, g, cg, oh, ow.
  AffineMap termsMap = AffineMap::get(
      5, 0, {loop(1), loop(2), zero, zero, loop(0), loop(3), loop(4)}, context);
  forEachKernelRow(b, conv, [&](const KernelRowSlices &row) {
    Value rowColumns = row.columns.extract(b, loc, windows);
    Value rows = row.image.extract(b, loc, image);
    for (const KernelOffsetSlices &slices : row.offsets) {
      Value terms = slices.columns.extract(b, loc, rowColumns);
      Value target = slices.image.extract(b, loc, rows);
      Value sum =
          linalg::GenericOp::create(
              b, loc, TypeRange{slices.image.type}, ValueRange{terms},
              ValueRange{target},
              ArrayRef<AffineMap>{termsMap, b.getMultiDimIdentityMap(5)},
              iterators(5, 0),
              [&](OpBuilder &nb, Location l, ValueRange args) {
                ScalarBuilder s{nb, l, conv.element};
                linalg::YieldOp::create(nb, l, s.add(args[1], args[0]));
              })
              .getResult(0);
      rows = slices.image.insert(b, loc, sum, rows);
    }
    image = row.image.insert(b, loc, rows, image);
  });
  return image;
}

/// The product `lhs` x `rhs` of a pointwise convolution or its input
/// gradient, per image, accumulated into `init`: loops n, row, sum,
/// position; `lhs` is [row, sum] or, `transposed`, [sum, row], `rhs`
/// [N, sum, P], `init` and the result [N, row, P].
Value pointwiseProduct(OpBuilder &b, Location loc, Value lhs, Value rhs,
                       Value init, bool transposed) {
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps = {
      loopsMap(context, 4,
               transposed ? ArrayRef<unsigned>{2, 1}
                          : ArrayRef<unsigned>{1, 2}),
      loopsMap(context, 4, {0, 2, 3}), loopsMap(context, 4, {0, 1, 3})};
  return buildContraction(b, loc, lhs, rhs, init, maps, {2});
}

FailureOr<SmallVector<Value>> lowerConv2d(Conv2dOp op,
                                          PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  RankedTensorType result = op.getType();
  ConvGeometry conv(op, op.getInput().getType(), op.getWeight().getType(),
                    result);
  RankedTensorType grouped = splitDim(result, 1, conv.groups);
  // The sums start at the bias, [OC] viewed as [G, OC/G, 1, 1] and
  // broadcast over batch and positions, or at zero.
  Value init;
  if (Value bias = op.getBias()) {
    auto biasType = RankedTensorType::get(
        {conv.groups, conv.outChannelsPerGroup, 1, 1}, result.getElementType());
    Value view = tensor::ExpandShapeOp::create(
        rewriter, loc, biasType, bias,
        ArrayRef<ReassociationIndices>{{0, 1, 2, 3}});
    init = buildPointwise(
        rewriter, loc, grouped, view,
        [](OpBuilder &, Location, ValueRange x) { return x[0]; });
  } else {
    init = filledTensor(rewriter, loc, grouped, 0.0);
  }
  Value input = op.getInput();
  if (op.getAlgorithm() == ConvAlgorithm::Pointwise) {
    Value kernel = kernelMatrix(rewriter, loc, op.getWeight());
    Value images = mergePositions(rewriter, loc, input);
    Value sums =
        mergePositions(rewriter, loc, mergeGroups(rewriter, loc, init, 1));
    Value sum = pointwiseProduct(rewriter, loc, kernel, images, sums,
                                 /*transposed=*/false);
    return SmallVector<Value>{tensor::ExpandShapeOp::create(
        rewriter, loc, result, sum, mergePair(4, 2))};
  }
  // Per product and group, [OC/G, C/G * KH * KW] x its columns; loops
  // g, o, p | k. One image's product accumulates into its image; several
  // images' into their block, gathered from the images and written back.
  Value kernels = groupKernels(rewriter, loc, op.getWeight(), conv.groups);
  Value sums =
      tensor::CollapseShapeOp::create(rewriter, loc, init, mergePair(5, 3));
  SmallVector<AffineMap> maps = {loopsMap(context, 4, {0, 1, 3}),
                                 loopsMap(context, 4, {0, 3, 2}),
                                 loopsMap(context, 4, {0, 1, 2})};
  bool blocked = conv.images > 1;
  SmallVector<Value> initial = {sums,
                                emptyTensor(rewriter, loc, conv.columnsType())};
  if (blocked)
    initial.push_back(emptyTensor(rewriter, loc, conv.blockType()));
  scf::ForOp loop = forEachImage(
      rewriter, loc, result.getDimSize(0), conv.images, initial,
      [&](OpBuilder &b, Location l, Value n, ValueRange carried) {
        Value columns = imageColumns(b, l, conv, input, n, carried[1]);
        if (!blocked) {
          Value image =
              buildContraction(b, l, kernels, columns,
                               extractImage(b, l, carried[0], n), maps, {3});
          return SmallVector<Value>{insertImage(b, l, image, carried[0], n),
                                    columns};
        }
        Value block = buildContraction(
            b, l, kernels, columns,
            gatherBlock(b, l, conv, carried[0], n, carried[2]), maps, {3});
        return SmallVector<Value>{
            scatterBlock(b, l, conv, block, carried[0], n), columns, block};
      });
  Value sum = tensor::ExpandShapeOp::create(rewriter, loc, grouped,
                                            loop.getResult(0), mergePair(5, 3));
  return SmallVector<Value>{mergeGroups(rewriter, loc, sum, 1)};
}

FailureOr<SmallVector<Value>> lowerConv2dInputGrad(Conv2dInputGradOp op,
                                                   PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  RankedTensorType result = op.getType();
  ConvGeometry conv(op, result, op.getWeight().getType(),
                    op.getGrad().getType());
  Value grad = op.getGrad();
  if (op.getAlgorithm() == ConvAlgorithm::Pointwise) {
    Value kernel = kernelMatrix(rewriter, loc, op.getWeight());
    Value grads = mergePositions(rewriter, loc, grad);
    Value zeros =
        mergePositions(rewriter, loc, filledTensor(rewriter, loc, result, 0.0));
    Value sum = pointwiseProduct(rewriter, loc, kernel, grads, zeros,
                                 /*transposed=*/true);
    return SmallVector<Value>{tensor::ExpandShapeOp::create(
        rewriter, loc, result, sum, mergePair(4, 2))};
  }
  // Per product and group, the columns' gradient [C/G * KH * KW, images
  // * OH * OW] = kernel^T x the output's gradient (loops g, k, p | o),
  // several images' gathered into a block, then added back into the
  // images' positions.
  RankedTensorType grouped = splitDim(result, 1, conv.groups);
  Value sums = filledTensor(rewriter, loc, grouped, 0.0);
  Value kernels = groupKernels(rewriter, loc, op.getWeight(), conv.groups);
  Value grads = groupPositions(rewriter, loc, grad, conv.groups);
  SmallVector<AffineMap> maps = {loopsMap(context, 4, {0, 3, 1}),
                                 loopsMap(context, 4, {0, 3, 2}),
                                 loopsMap(context, 4, {0, 1, 2})};
  bool blocked = conv.images > 1;
  SmallVector<Value> initial = {sums,
                                emptyTensor(rewriter, loc, conv.columnsType())};
  if (blocked)
    initial.push_back(emptyTensor(rewriter, loc, conv.blockType()));
  scf::ForOp loop = forEachImage(
      rewriter, loc, result.getDimSize(0), conv.images, initial,
      [&](OpBuilder &b, Location l, Value n, ValueRange carried) {
        Value zero = ScalarBuilder{b, l, conv.element}.constant(0.0);
        Value columns =
            linalg::FillOp::create(b, l, zero, carried[1]).getResult(0);
        Value block = blocked ? gatherBlock(b, l, conv, grads, n, carried[2])
                              : extractImage(b, l, grads, n);
        columns = buildContraction(b, l, kernels, block, columns, maps, {3});
        Value images =
            addColumnsToImage(b, l, conv, columns,
                              extractImages(b, l, carried[0], n, conv.images));
        SmallVector<Value> next = {insertImages(b, l, images, carried[0], n),
                                   columns};
        if (blocked)
          next.push_back(block);
        return next;
      });
  return SmallVector<Value>{mergeGroups(rewriter, loc, loop.getResult(0), 1)};
}

FailureOr<SmallVector<Value>> lowerConv2dWeightGrad(Conv2dWeightGradOp op,
                                                    PatternRewriter &rewriter) {
  // The sum over images n of grad[n] [OC/G, OH * OW] x columns[n]^T per
  // group (loops g, o, k | p), each product accumulating into the last in
  // image order; a product of several images takes their gradients
  // gathered into a block. A pointwise convolution's columns are its
  // image.
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  RankedTensorType result = op.getType();
  ConvGeometry conv(op, op.getInput().getType(), result,
                    op.getGrad().getType());
  Value input = op.getInput();
  auto kernelsType = RankedTensorType::get(
      {conv.groups, conv.outChannelsPerGroup,
       conv.channelsPerGroup * conv.kernelHeight * conv.kernelWidth},
      conv.element);
  Value sum = filledTensor(rewriter, loc, kernelsType, 0.0);
  Value grads = groupPositions(rewriter, loc, op.getGrad(), conv.groups);
  SmallVector<AffineMap> maps = {loopsMap(context, 4, {0, 1, 3}),
                                 loopsMap(context, 4, {0, 2, 3}),
                                 loopsMap(context, 4, {0, 1, 2})};
  bool pointwise = op.getAlgorithm() == ConvAlgorithm::Pointwise;
  bool blocked = conv.images > 1;
  SmallVector<Value> initial = {sum};
  Value images;
  if (pointwise)
    images = groupPositions(rewriter, loc, input, 1);
  else
    initial.push_back(emptyTensor(rewriter, loc, conv.columnsType()));
  if (blocked)
    initial.push_back(emptyTensor(rewriter, loc, conv.blockType()));
  scf::ForOp loop = forEachImage(
      rewriter, loc, op.getInput().getType().getDimSize(0), conv.images,
      initial, [&](OpBuilder &b, Location l, Value n, ValueRange carried) {
        Value columns = pointwise
                            ? extractImage(b, l, images, n)
                            : imageColumns(b, l, conv, input, n, carried[1]);
        Value block = blocked ? gatherBlock(b, l, conv, grads, n, carried[2])
                              : extractImage(b, l, grads, n);
        SmallVector<Value> next = {
            buildContraction(b, l, block, columns, carried[0], maps, {3})};
        if (!pointwise)
          next.push_back(columns);
        if (blocked)
          next.push_back(block);
        return next;
      });
  Value matrix = tensor::CollapseShapeOp::create(
      rewriter, loc, loop.getResult(0),
      ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  return SmallVector<Value>{tensor::ExpandShapeOp::create(
      rewriter, loc, result, matrix,
      ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}})};
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// The window of a pooling op over an input of `input`'s type giving
/// `output`'s.
struct PoolGeometry {
  template <typename OpTy>
  PoolGeometry(OpTy op, RankedTensorType input, RankedTensorType output)
      : kernel(op.getKernel()), stride(op.getWindowStride()),
        padding(op.getPadding()), height(input.getDimSize(2)),
        width(input.getDimSize(3)), outHeight(output.getDimSize(2)),
        outWidth(output.getDimSize(3)) {}

  /// The first input row (axis 0) or column (axis 1) of output position
  /// `out`'s window; may lie in the padding.
  Value windowStart(IndexBuilder &ix, unsigned axis, Value out) const {
    return ix.affine(out, stride[axis], -padding[axis]);
  }

  /// The output position (and whether there is one) whose window holds
  /// input position `position` at kernel offset `k`; offsets are visited
  /// from the last, so that output positions ascend as in PyTorch's
  /// accumulation.
  std::pair<Value, Value> origin(IndexBuilder &ix, unsigned axis,
                                 Value position, Value k) const {
    Value offset = ix.sub(ix.constant(kernel[axis] - 1), k);
    return windowOrigin(ix, position, offset, padding[axis], stride[axis],
                        axis == 0 ? outHeight : outWidth);
  }

  /// The output positions along `axis` whose windows hold an input
  /// position at window offset `k`.
  InsideRange inside(unsigned axis, int64_t k) const {
    return insideRange(axis ? width : height, axis ? outWidth : outHeight,
                       stride[axis], k - padding[axis]);
  }

  /// The divisor of output position (oh, ow) of an average: the part of
  /// the window inside the padded input (the kernel size but for a
  /// ceil-mode window hanging over its end), or inside the input.
  Value divisor(IndexBuilder &ix, ScalarBuilder &s, bool countIncludePad,
                Value oh, Value ow) const {
    auto inside = [&](unsigned axis, Value out, int64_t size) {
      Value start = windowStart(ix, axis, out);
      int64_t margin = countIncludePad ? padding[axis] : 0;
      Value end =
          ix.min(ix.add(start, ix.constant(kernel[axis])), size + margin);
      return ix.sub(end, ix.max(start, -margin));
    };
    Value count = arith::MulIOp::create(ix.b, ix.loc, inside(0, oh, height),
                                        inside(1, ow, width));
    return ix.toFloat(count, s.type);
  }

  ArrayRef<int64_t> kernel, stride, padding;
  int64_t height, width, outHeight, outWidth;
};

FailureOr<SmallVector<Value>> lowerMaxPool2d(MaxPool2dOp op,
                                             PatternRewriter &rewriter) {
  // Loops n, c, oh, ow | kh, kw in row-major window order: a strictly
  // greater element (or a NaN) replaces the maximum, so ties keep the
  // first, and the first element inside the input starts it.
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  RankedTensorType result = op.getResult().getType();
  RankedTensorType indicesType = op.getIndices().getType();
  Type element = result.getElementType();
  PoolGeometry window(op, op.getInput().getType(), result);
  Value input = op.getInput();
  Value maxima = filledTensor(rewriter, loc, result,
                              -std::numeric_limits<double>::infinity());
  Value none =
      arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(-1));
  Value positions =
      linalg::FillOp::create(rewriter, loc, none,
                             emptyTensor(rewriter, loc, indicesType))
          .getResult(0);
  AffineMap outMap = loopsMap(context, 6, {0, 1, 2, 3});
  auto pooled = linalg::GenericOp::create(
      rewriter, loc, TypeRange{result, indicesType},
      ValueRange{windowShape(rewriter, loc, window.kernel, element)},
      ValueRange{maxima, positions},
      {loopsMap(context, 6, {4, 5}), outMap, outMap}, iterators(4, 2),
      [&](OpBuilder &b, Location l, ValueRange args) {
        IndexBuilder ix{b, l};
        ScalarBuilder s{b, l, element};
        Value h = ix.add(window.windowStart(ix, 0, ix.loop(2)), ix.loop(4));
        Value w = ix.add(window.windowStart(ix, 1, ix.loop(3)), ix.loop(5));
        Value x = readClamped(ix, input, ix.loop(0), ix.loop(1), h, w);
        Value inside =
            ix.both(ix.inRange(h, window.height), ix.inRange(w, window.width));
        Value max = args[1], position = args[2];
        Value first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                            position, none);
        Value isNan =
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
        Value better = arith::OrIOp::create(
            b, l, arith::OrIOp::create(b, l, first, s.greater(x, max)), isNan);
        Value take = ix.both(inside, better);
        Value here = ix.toI64(ix.add(ix.mul(h, window.width), w));
        linalg::YieldOp::create(
            b, l,
            ValueRange{s.select(take, x, max), s.select(take, here, position)});
      });
  return SmallVector<Value>{pooled.getResult(0), pooled.getResult(1)};
}

FailureOr<SmallVector<Value>> lowerMaxPool2dGrad(MaxPool2dGradOp op,
                                                 PatternRewriter &rewriter) {
  // Each input position sums the gradients of the windows that contain it
  // and chose it, window offsets from the last (output positions ascend,
  // as in PyTorch's accumulation). Per window offset in that order, the
  // output positions whose window holds an input position there are a
  // rectangle and those input positions a strided window of the input:
  // each adds its gradient where its index names the position. Every input
  // element gets its terms in the same order as a gather over offsets.
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  RankedTensorType result = op.getType();
  Type element = result.getElementType();
  PoolGeometry window(op, result, op.getGrad().getType());
  Value grad = op.getGrad(), indices = op.getIndices();
  Value sum = filledTensor(rewriter, loc, result, 0.0);
  int64_t images = result.getDimSize(0), channels = result.getDimSize(1);
  auto indicesOf = [&](ArrayRef<int64_t> values) {
    return getAsIndexOpFoldResult(context, values);
  };
  for (int64_t kh = window.kernel[0] - 1; kh >= 0; --kh) {
    for (int64_t kw = window.kernel[1] - 1; kw >= 0; --kw) {
      InsideRange rows = window.inside(0, kh), cols = window.inside(1, kw);
      if (rows.count == 0 || cols.count == 0)
        continue;
      SmallVector<OpFoldResult> sizes =
          indicesOf({images, channels, rows.count, cols.count});
      SmallVector<OpFoldResult> outputOffsets =
          indicesOf({0, 0, rows.first, cols.first});
      SmallVector<OpFoldResult> ones = indicesOf({1, 1, 1, 1});
      Value dy = tensor::ExtractSliceOp::create(rewriter, loc, grad,
                                                outputOffsets, sizes, ones);
      Value chosen = tensor::ExtractSliceOp::create(rewriter, loc, indices,
                                                    outputOffsets, sizes, ones);
      SmallVector<OpFoldResult> inputOffsets =
          indicesOf({0, 0, rows.input, cols.input});
      SmallVector<OpFoldResult> inputStrides =
          indicesOf({1, 1, window.stride[0], window.stride[1]});
      Value target = tensor::ExtractSliceOp::create(
          rewriter, loc, sum, inputOffsets, sizes, inputStrides);
      AffineMap same = rewriter.getMultiDimIdentityMap(4);
      // Loops n, c, i, j over the rectangle.
      Value added =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{target.getType()},
              ValueRange{dy, chosen}, ValueRange{target},
              ArrayRef<AffineMap>{same, same, same}, iterators(4, 0),
              [&](OpBuilder &b, Location l, ValueRange args) {
                IndexBuilder ix{b, l};
                ScalarBuilder s{b, l, element};
                Value h = ix.affine(ix.loop(2), window.stride[0], rows.input);
                Value w = ix.affine(ix.loop(3), window.stride[1], cols.input);
                Value here = ix.toI64(ix.add(ix.mul(h, window.width), w));
                Value hit = ix.compare(arith::CmpIPredicate::eq, args[1], here);
                Value acc = args[2];
                linalg::YieldOp::create(
                    b, l, s.select(hit, s.add(acc, args[0]), acc));
              })
              .getResult(0);
      sum = tensor::InsertSliceOp::create(rewriter, loc, added, sum,
                                          inputOffsets, sizes, inputStrides);
    }
  }
  return SmallVector<Value>{sum};
}

FailureOr<SmallVector<Value>> lowerAvgPool2d(AvgPool2dOp op,
                                             PatternRewriter &rewriter) {
  // The window sums (padding adds nothing), then each divided by its
  // divisor, as PyTorch divides.
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  RankedTensorType result = op.getType();
  Type element = result.getElementType();
  PoolGeometry window(op, op.getInput().getType(), result);
  Value input = op.getInput();
  AffineMap outMap = loopsMap(context, 6, {0, 1, 2, 3});
  Value sums =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{result},
          ValueRange{windowShape(rewriter, loc, window.kernel, element)},
          ValueRange{filledTensor(rewriter, loc, result, 0.0)},
          {loopsMap(context, 6, {4, 5}), outMap}, iterators(4, 2),
          [&](OpBuilder &b, Location l, ValueRange args) {
            IndexBuilder ix{b, l};
            ScalarBuilder s{b, l, element};
            Value h = ix.add(window.windowStart(ix, 0, ix.loop(2)), ix.loop(4));
            Value w = ix.add(window.windowStart(ix, 1, ix.loop(3)), ix.loop(5));
            Value x = readClamped(ix, input, ix.loop(0), ix.loop(1), h, w);
            Value inside = ix.both(ix.inRange(h, window.height),
                                   ix.inRange(w, window.width));
            Value acc = args[1];
            linalg::YieldOp::create(b, l, s.select(inside, s.add(acc, x), acc));
          })
          .getResult(0);
  // The division rewrites the sums in place: no second buffer.
  bool countIncludePad = op.getCountIncludePad();
  return SmallVector<Value>{
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{result}, ValueRange{}, ValueRange{sums},
          {AffineMap::getMultiDimIdentityMap(4, context)}, iterators(4, 0),
          [&](OpBuilder &b, Location l, ValueRange args) {
            IndexBuilder ix{b, l};
            ScalarBuilder s{b, l, element};
            Value divisor =
                window.divisor(ix, s, countIncludePad, ix.loop(2), ix.loop(3));
            linalg::YieldOp::create(b, l, s.div(args[0], divisor));
          })
          .getResult(0)};
}

FailureOr<SmallVector<Value>> lowerAvgPool2dGrad(AvgPool2dGradOp op,
                                                 PatternRewriter &rewriter) {
  // Loops n, c, h, w | kh, kw: each input position sums grad / divisor of
  // the windows that contain it.
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  RankedTensorType result = op.getType();
  Type element = result.getElementType();
  PoolGeometry window(op, result, op.getGrad().getType());
  Value grad = op.getGrad();
  bool countIncludePad = op.getCountIncludePad();
  return SmallVector<Value>{
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{result},
          ValueRange{windowShape(rewriter, loc, window.kernel, element)},
          ValueRange{filledTensor(rewriter, loc, result, 0.0)},
          {loopsMap(context, 6, {4, 5}), loopsMap(context, 6, {0, 1, 2, 3})},
          iterators(4, 2),
          [&](OpBuilder &b, Location l, ValueRange args) {
            IndexBuilder ix{b, l};
            ScalarBuilder s{b, l, element};
            auto [oh, rowHit] = window.origin(ix, 0, ix.loop(2), ix.loop(4));
            auto [ow, columnHit] = window.origin(ix, 1, ix.loop(3), ix.loop(5));
            Value dy = readClamped(ix, grad, ix.loop(0), ix.loop(1), oh, ow);
            Value share =
                s.div(dy, window.divisor(ix, s, countIncludePad, oh, ow));
            Value acc = args[1];
            linalg::YieldOp::create(
                b, l,
                s.select(ix.both(rowHit, columnHit), s.add(acc, share), acc));
          })
          .getResult(0)};
}

//===----------------------------------------------------------------------===//
// Upsampling
//===----------------------------------------------------------------------===//

/// An NCHW type with its height and width split into [H, sh] and [W, sw]:
/// the blocks of nearest upsampling.
RankedTensorType blockType(RankedTensorType small, ArrayRef<int64_t> scale) {
  return RankedTensorType::get({small.getDimSize(0), small.getDimSize(1),
                                small.getDimSize(2), scale[0],
                                small.getDimSize(3), scale[1]},
                               small.getElementType());
}

/// Merges the blocks of blockType back into height and width.
SmallVector<ReassociationIndices> blockReassociation() {
  return {{0}, {1}, {2, 3}, {4, 5}};
}

FailureOr<SmallVector<Value>>
lowerUpsampleNearest2d(UpsampleNearest2dOp op, PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  RankedTensorType blocks = blockType(op.getInput().getType(), op.getScale());
  Value copies =
      linalg::GenericOp::create(rewriter, loc, TypeRange{blocks},
                                ValueRange{op.getInput()},
                                ValueRange{emptyTensor(rewriter, loc, blocks)},
                                {loopsMap(context, 6, {0, 1, 2, 4}),
                                 AffineMap::getMultiDimIdentityMap(6, context)},
                                iterators(6, 0),
                                [](OpBuilder &b, Location l, ValueRange args) {
                                  linalg::YieldOp::create(b, l, args[0]);
                                })
          .getResult(0);
  return SmallVector<Value>{tensor::CollapseShapeOp::create(
      rewriter, loc, op.getType(), copies, blockReassociation())};
}

FailureOr<SmallVector<Value>>
lowerUpsampleNearest2dGrad(UpsampleNearest2dGradOp op,
                           PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  RankedTensorType result = op.getType();
  RankedTensorType blocks = blockType(result, op.getScale());
  Value grad = tensor::ExpandShapeOp::create(
      rewriter, loc, blocks, op.getGrad(), blockReassociation());
  return SmallVector<Value>{
      buildSum(rewriter, loc, blocks, grad, {3, 5}, result,
               [](ScalarBuilder &, ValueRange v) { return v[0]; })};
}

//===----------------------------------------------------------------------===//
// batch_norm
//===----------------------------------------------------------------------===//

/// Per-channel statistics of an [N, C, ...] tensor: sums over every
/// dimension but 1, kept with size 1 so pointwise maps broadcast them.
/// PyTorch's CPU batch norm accumulates float sums in double (thousands of
/// values per channel lose several digits in float), so f32 sums run in an
/// f64 accumulator, element by element in a fixed order, and each
/// statistic derived from them is rounded to f32 once.
struct ChannelStatistics {
  explicit ChannelStatistics(RankedTensorType input)
      : input(input), channels(RankedTensorType::get({input.getDimSize(1)},
                                                     input.getElementType())) {
    Type element = input.getElementType();
    accumulator =
        element.isF32() ? Float64Type::get(element.getContext()) : element;
    SmallVector<int64_t> shape(input.getRank(), 1);
    shape[1] = input.getDimSize(1);
    kept = RankedTensorType::get(shape, element);
    keptSums = RankedTensorType::get(shape, accumulator);
    count = 1;
    for (int64_t d = 0; d < input.getRank(); ++d)
      if (d != 1) {
        reduced.push_back(d);
        count *= input.getDimSize(d);
      }
  }

  /// Whether sums run in a wider type than the elements (f32's in f64).
  bool widened() const { return accumulator != input.getElementType(); }

  /// A zero sum per channel in the accumulator type, kept, for `sum`.
  Value zeroSums(OpBuilder &b, Location loc) const {
    return filledTensor(b, loc, keptSums, 0.0);
  }

  /// A statistic per channel, kept, to be written later.
  Value statistic(OpBuilder &b, Location loc) const {
    return emptyTensor(b, loc, kept);
  }

  /// Sum of term(elements) per channel in the accumulator type, added to
  /// `sums` (zeroSums); the term is computed in the element type. Many
  /// elements per channel add in two stages (buildSplitReduction), whose
  /// partials the ops declare as scratch (channelSumPartialBytes).
  Value sum(OpBuilder &b, Location loc, Value sums, ValueRange inputs,
            Formula term) const {
    Type element = input.getElementType();
    auto body = [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
      ScalarBuilder s{nb, nl, element};
      Value value = term(s, args.drop_back());
      if (widened())
        value = arith::ExtFOp::create(nb, nl, accumulator, value);
      return arith::AddFOp::create(nb, nl, args.back(), value);
    };
    std::optional<SumSplit> split = getSumSplit(input.getShape(), reduced);
    if (!split)
      return buildReduction(b, loc, input, inputs, reduced, sums, body);
    // The split sums per channel, [C]: a view of the kept sums.
    auto perChannel = RankedTensorType::get({input.getDimSize(1)}, accumulator);
    SmallVector<ReassociationIndices> all = {dimRange(0, input.getRank())};
    Value total = buildSplitReduction(
        b, loc, input, inputs, reduced, *split,
        tensor::CollapseShapeOp::create(b, loc, perChannel, sums, all),
        Combining::Sum, body);
    return tensor::ExpandShapeOp::create(b, loc, keptSums, total, all);
  }

  /// formula(sums) per channel, computed in the accumulator type and
  /// rounded to the element type, written into `into` (statistic).
  Value derive(OpBuilder &b, Location loc, Value into, Value sums,
               Formula formula) const {
    return buildPointwiseInto(
        b, loc, into, sums,
        [&](OpBuilder &nb, Location nl, ValueRange v) -> Value {
          ScalarBuilder s{nb, nl, accumulator};
          Value value = formula(s, v);
          if (!widened())
            return value;
          return arith::TruncFOp::create(nb, nl, kept.getElementType(), value)
              .getResult();
        });
  }

  /// A [C] tensor as the kept shape.
  Value keep(OpBuilder &b, Location loc, Value perChannel) const {
    return tensor::ExpandShapeOp::create(
        b, loc, kept, perChannel,
        ArrayRef<ReassociationIndices>{dimRange(0, input.getRank())});
  }

  /// A kept tensor as [C].
  Value flatten(OpBuilder &b, Location loc, Value keptValue) const {
    return tensor::CollapseShapeOp::create(
        b, loc, channels, keptValue,
        ArrayRef<ReassociationIndices>{dimRange(0, input.getRank())});
  }

  RankedTensorType input, channels, kept, keptSums;
  Type accumulator;
  SmallVector<int64_t> reduced;
  double count;
};

/// Sums of the squares of `x - mean` per channel, added to `sums`.
Value sumCenteredSquares(OpBuilder &b, Location loc,
                         const ChannelStatistics &stats, Value sums, Value x,
                         Value mean) {
  return stats.sum(b, loc, sums, {x, mean}, [](ScalarBuilder &s, ValueRange v) {
    Value centered = s.sub(v[0], v[1]);
    return s.mul(centered, centered);
  });
}

FailureOr<SmallVector<Value>> lowerBatchNorm(BatchNormOp op,
                                             PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  ChannelStatistics stats(op.getInput().getType());
  double count = stats.count, eps = op.getEps().convertToDouble();
  Value x = op.getInput();
  // Every result, then the scratch (the two sums), so that all are live
  // at once, as the simulator counts them.
  Value y = emptyTensor(rewriter, loc, stats.input);
  Value mean = stats.statistic(rewriter, loc);
  Value rstd = stats.statistic(rewriter, loc);
  Value sum = stats.zeroSums(rewriter, loc);
  Value squares = stats.zeroSums(rewriter, loc);
  sum = stats.sum(rewriter, loc, sum, x,
                  [](ScalarBuilder &, ValueRange v) { return v[0]; });
  mean = stats.derive(rewriter, loc, mean, sum,
                      [&](ScalarBuilder &s, ValueRange v) {
                        return s.div(v[0], s.constant(count));
                      });
  squares = sumCenteredSquares(rewriter, loc, stats, squares, x, mean);
  rstd = stats.derive(
      rewriter, loc, rstd, squares, [&](ScalarBuilder &s, ValueRange v) {
        return s.rsqrt(s.add(s.div(v[0], s.constant(count)), s.constant(eps)));
      });
  SmallVector<Value> inputs = {x, mean, rstd};
  bool weight = bool(op.getWeight()), bias = bool(op.getBias());
  if (weight)
    inputs.push_back(stats.keep(rewriter, loc, op.getWeight()));
  if (bias)
    inputs.push_back(stats.keep(rewriter, loc, op.getBias()));
  y = buildMapInto(rewriter, loc, y, inputs,
                   [&](ScalarBuilder &s, ValueRange v) {
                     return normalizedAffine(s, v, weight, bias);
                   });
  return SmallVector<Value>{y, stats.flatten(rewriter, loc, mean),
                            stats.flatten(rewriter, loc, rstd)};
}

FailureOr<SmallVector<Value>>
lowerBatchNormUpdateStats(BatchNormUpdateStatsOp op,
                          PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  ChannelStatistics stats(op.getInput().getType());
  double count = stats.count, momentum = op.getMomentum().convertToDouble();
  // Both results, then the scratch sum.
  Value newMean = emptyTensor(rewriter, loc, stats.channels);
  Value newVar = stats.statistic(rewriter, loc);
  Value mean = stats.keep(rewriter, loc, op.getMean());
  Value squares = sumCenteredSquares(
      rewriter, loc, stats, stats.zeroSums(rewriter, loc), op.getInput(), mean);
  // PyTorch's update, momentum * batch + (1 - momentum) * running, of the
  // mean and of the unbiased variance (rounded to the element type first,
  // as batch_norm rounds its statistics).
  auto moveTowards = [&](ScalarBuilder &s, Value running, Value batch) {
    return s.add(s.mul(s.constant(momentum), batch),
                 s.mul(s.constant(1.0 - momentum), running));
  };
  newMean =
      buildMapInto(rewriter, loc, newMean, {op.getRunningMean(), op.getMean()},
                   [&](ScalarBuilder &s, ValueRange v) {
                     return moveTowards(s, v[0], v[1]);
                   });
  Type element = stats.input.getElementType();
  newVar = buildMapInto(
      rewriter, loc, newVar,
      {stats.keep(rewriter, loc, op.getRunningVar()), squares},
      [&](ScalarBuilder &s, ValueRange v) {
        ScalarBuilder wide{s.b, s.loc, stats.accumulator};
        Value variance = wide.div(v[1], wide.constant(count - 1));
        if (stats.widened())
          variance = arith::TruncFOp::create(s.b, s.loc, element, variance);
        return moveTowards(s, v[0], variance);
      });
  newVar = stats.flatten(rewriter, loc, newVar);
  return SmallVector<Value>{newMean, newVar};
}

FailureOr<SmallVector<Value>> lowerBatchNormGrad(BatchNormGradOp op,
                                                 PatternRewriter &rewriter) {
  // PyTorch's training-mode backward: with dotp = sum(dy (x - mean)),
  //   dx = (dy - sum(dy) / M - (x - mean) rstd^2 dotp / M) rstd w,
  //   dw = dotp rstd, db = sum(dy).
  Location loc = op.getLoc();
  ChannelStatistics stats(op.getInput().getType());
  double count = stats.count;
  bool weight = bool(op.getWeight());
  Value mean = stats.keep(rewriter, loc, op.getMean());
  Value rstd = stats.keep(rewriter, loc, op.getRstd());
  Value dy = op.getGrad(), x = op.getInput();
  // Every result, then the scratch, so that all are live at once, as the
  // simulator counts them. Sums in the element type are the bias and
  // weight gradients themselves (no scratch); f32's f64 sums are rounded
  // into them.
  Value dx = emptyTensor(rewriter, loc, stats.input);
  Value db, dw;
  if (stats.widened()) {
    db = stats.statistic(rewriter, loc);
    dw = stats.statistic(rewriter, loc);
  }
  Value sumDy = stats.sum(rewriter, loc, stats.zeroSums(rewriter, loc), dy,
                          [](ScalarBuilder &, ValueRange v) { return v[0]; });
  Value dotp = stats.sum(rewriter, loc, stats.zeroSums(rewriter, loc),
                         {dy, x, mean}, [](ScalarBuilder &s, ValueRange v) {
                           return s.mul(v[0], s.sub(v[1], v[2]));
                         });
  if (stats.widened()) {
    auto identity = [](ScalarBuilder &, ValueRange v) { return v[0]; };
    sumDy = stats.derive(rewriter, loc, db, sumDy, identity);
    dotp = stats.derive(rewriter, loc, dw, dotp, identity);
  }
  SmallVector<Value> inputs = {dy, x, mean, rstd, sumDy, dotp};
  if (weight)
    inputs.push_back(stats.keep(rewriter, loc, op.getWeight()));
  dx = buildMapInto(
      rewriter, loc, dx, inputs, [&](ScalarBuilder &s, ValueRange v) {
        Value meanDy = s.div(v[4], s.constant(count));
        Value k = s.div(s.mul(s.mul(v[5], v[3]), v[3]), s.constant(count));
        Value centered = s.mul(s.sub(v[1], v[2]), k);
        Value scaled = s.mul(s.sub(s.sub(v[0], meanDy), centered), v[3]);
        return weight ? s.mul(scaled, v[6]) : scaled;
      });
  // dw in the buffer of dotp once dx has read it.
  dw = buildMapInPlace(
      rewriter, loc, dotp, rstd,
      [](ScalarBuilder &s, ValueRange v) { return s.mul(v[1], v[0]); });
  return SmallVector<Value>{dx, stats.flatten(rewriter, loc, dw),
                            stats.flatten(rewriter, loc, sumDy)};
}

/// `lower` for ops whose operands and results all have static shapes: the
/// lowerings take loop bounds, views and divisors from them. Other ops stay
/// illegal, and the conversion reports them at their location.
template <typename OpTy, LoweringFn<OpTy> lower>
FailureOr<SmallVector<Value>> whenStatic(OpTy op, PatternRewriter &rewriter) {
  auto isStatic = [](Type type) {
    return cast<ShapedType>(type).hasStaticShape();
  };
  if (!llvm::all_of(op->getOperandTypes(), isStatic) ||
      !llvm::all_of(op->getResultTypes(), isStatic))
    return rewriter.notifyMatchFailure(op, "needs static shapes");
  return lower(op, rewriter);
}

} // namespace

void ckpt::populateVisionToLinalgPatterns(RewritePatternSet &patterns) {
  addLowering<Conv2dOp>(patterns, whenStatic<Conv2dOp, lowerConv2d>);
  addLowering<Conv2dInputGradOp>(
      patterns, whenStatic<Conv2dInputGradOp, lowerConv2dInputGrad>);
  addLowering<Conv2dWeightGradOp>(
      patterns, whenStatic<Conv2dWeightGradOp, lowerConv2dWeightGrad>);
  addLowering<MaxPool2dOp>(patterns, whenStatic<MaxPool2dOp, lowerMaxPool2d>);
  addLowering<MaxPool2dGradOp>(patterns,
                               whenStatic<MaxPool2dGradOp, lowerMaxPool2dGrad>);
  addLowering<AvgPool2dOp>(patterns, whenStatic<AvgPool2dOp, lowerAvgPool2d>);
  addLowering<AvgPool2dGradOp>(patterns,
                               whenStatic<AvgPool2dGradOp, lowerAvgPool2dGrad>);
  addLowering<UpsampleNearest2dOp>(
      patterns, whenStatic<UpsampleNearest2dOp, lowerUpsampleNearest2d>);
  addLowering<UpsampleNearest2dGradOp>(
      patterns,
      whenStatic<UpsampleNearest2dGradOp, lowerUpsampleNearest2dGrad>);
  addLowering<BatchNormOp>(patterns, whenStatic<BatchNormOp, lowerBatchNorm>);
  addLowering<BatchNormUpdateStatsOp>(
      patterns, whenStatic<BatchNormUpdateStatsOp, lowerBatchNormUpdateStats>);
  addLowering<BatchNormGradOp>(patterns,
                               whenStatic<BatchNormGradOp, lowerBatchNormGrad>);
}
