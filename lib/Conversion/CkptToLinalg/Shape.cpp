//===- Shape.cpp - shape ops -> tensor ops and copies ---------------------===//
//
// reshape collapses to one dimension and expands to the target (both views
// after bufferization); a transpose is a copy by linalg.generic
// (broadcast_to, a pointwise op, lowers in Elementwise.cpp); a slice is an
// extract_slice copied by linalg.copy, its gradient an insert_slice into zeros;
// concat inserts each input into an empty result.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "LoweringPattern.h"

#include "ckpt/Conversion/CkptToLinalg/CkptToLinalg.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace ckpt;

namespace {

FailureOr<SmallVector<Value>> lowerReshape(ReshapeOp op,
                                           PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  RankedTensorType source = op.getInput().getType();
  RankedTensorType target = op.getType();
  if (source == target)
    return SmallVector<Value>{op.getInput()};
  // Through a one-dimensional tensor of the same elements.
  auto flatType = RankedTensorType::get(
      {static_cast<int64_t>(*getStaticElementCount(source))},
      source.getElementType());
  Value flat = op.getInput();
  if (source.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(rewriter, loc, flatType, flat,
                                         ArrayRef<ReassociationIndices>{});
  else if (source.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(
        rewriter, loc, flat,
        ArrayRef<ReassociationIndices>{dimRange(0, source.getRank())});
  if (target.getRank() == 1)
    return SmallVector<Value>{flat};
  if (target.getRank() == 0)
    return SmallVector<Value>{tensor::CollapseShapeOp::create(
        rewriter, loc, target, flat, ArrayRef<ReassociationIndices>{})};
  return SmallVector<Value>{tensor::ExpandShapeOp::create(
      rewriter, loc, target, flat,
      ArrayRef<ReassociationIndices>{dimRange(0, target.getRank())})};
}

FailureOr<SmallVector<Value>> lowerTranspose(TransposeOp op,
                                             PatternRewriter &rewriter) {
  MLIRContext *context = op.getContext();
  RankedTensorType result = op.getType();
  ArrayRef<int64_t> perm = op.getPermutation();
  // result[i...] = input[j...] with j[perm[k]] = i[k].
  SmallVector<AffineExpr> inputExprs(perm.size());
  for (auto [k, p] : llvm::enumerate(perm))
    inputExprs[p] = getAffineDimExpr(k, context);
  unsigned rank = perm.size();
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, inputExprs, context),
      AffineMap::getMultiDimIdentityMap(rank, context)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return SmallVector<Value>{
      linalg::GenericOp::create(
          rewriter, op.getLoc(), TypeRange{result}, op.getInput(),
          ValueRange{emptyTensor(rewriter, op.getLoc(), result)}, maps,
          iterators,
          [](OpBuilder &b, Location loc, ValueRange args) {
            linalg::YieldOp::create(b, loc, args[0]);
          })
          .getResult(0)};
}

/// Offsets, sizes and strides of a slice of `full` along `dim`.
struct SliceBox {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

SliceBox sliceBox(OpBuilder &b, RankedTensorType full, RankedTensorType part,
                  int64_t dim, int64_t start, int64_t step) {
  SliceBox box;
  // An empty part may start at the end (x[..., 16:] of 16 columns, where
  // rotary embeddings cover a whole head), which extract_slice rejects as
  // out of bounds: it starts at 0 instead.
  bool empty = part.getDimSize(dim) == 0;
  for (int64_t d = 0; d < full.getRank(); ++d) {
    box.offsets.push_back(b.getIndexAttr(d == dim && !empty ? start : 0));
    box.sizes.push_back(b.getIndexAttr(part.getDimSize(d)));
    box.strides.push_back(b.getIndexAttr(d == dim ? step : 1));
  }
  return box;
}

/// A slice is copied into a buffer of its own rather than taken as a view
/// (extract_slice bufferizes to a subview): a view would keep the whole
/// input buffer alive for as long as the slice is used, while the memory
/// simulator frees the input after its last use and counts the slice by its
/// own size. The gradient slices of a concat in particular often outlive
/// the larger gradient they come from by a long way.
FailureOr<SmallVector<Value>> lowerSlice(SliceOp op,
                                         PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  SliceBox box = sliceBox(rewriter, op.getInput().getType(), op.getType(),
                          op.getDim(), op.getStart(), op.getStep());
  Value view =
      tensor::ExtractSliceOp::create(rewriter, loc, op.getType(), op.getInput(),
                                     box.offsets, box.sizes, box.strides);
  // linalg.copy, not an identity linalg.generic: canonicalization folds
  // the latter away and leaves the view.
  return SmallVector<Value>{
      linalg::CopyOp::create(rewriter, loc, view,
                             emptyTensor(rewriter, loc, op.getType()))
          .getResult(0)};
}

FailureOr<SmallVector<Value>> lowerSliceGrad(SliceGradOp op,
                                             PatternRewriter &rewriter) {
  RankedTensorType full = op.getType();
  SliceBox box = sliceBox(rewriter, full, op.getGrad().getType(), op.getDim(),
                          op.getStart(), op.getStep());
  Value zeros = filledTensor(rewriter, op.getLoc(), full, 0.0);
  return SmallVector<Value>{tensor::InsertSliceOp::create(
      rewriter, op.getLoc(), op.getGrad(), zeros, box.offsets, box.sizes,
      box.strides)};
}

FailureOr<SmallVector<Value>> lowerConcat(ConcatOp op,
                                          PatternRewriter &rewriter) {
  RankedTensorType result = op.getType();
  Value joined = emptyTensor(rewriter, op.getLoc(), result);
  int64_t offset = 0;
  for (Value input : op.getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    SliceBox box = sliceBox(rewriter, result, type, op.getDim(), offset, 1);
    joined = tensor::InsertSliceOp::create(rewriter, op.getLoc(), input,
                                           joined, box.offsets, box.sizes,
                                           box.strides);
    offset += type.getDimSize(op.getDim());
  }
  return SmallVector<Value>{joined};
}

} // namespace

void ckpt::populateShapeToTensorPatterns(RewritePatternSet &patterns) {
  addLowering<ReshapeOp>(patterns, lowerReshape);
  addLowering<TransposeOp>(patterns, lowerTranspose);
  addLowering<SliceOp>(patterns, lowerSlice);
  addLowering<SliceGradOp>(patterns, lowerSliceGrad);
  addLowering<ConcatOp>(patterns, lowerConcat);
}
