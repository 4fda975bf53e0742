//===- Lookup.cpp - embedding and its gradient -> linalg and scf ----------===//
//
// The lookup is a gather: a linalg.generic over the result that reads the
// weight row its index names. The gradient is a scatter-add, which linalg
// cannot express: an scf.forall over the columns, each adding the gradient
// rows into its column of the table in index order, so the result is
// deterministic and parallel (a padding row keeps its zeros).
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

using namespace mlir;
using namespace ckpt;

namespace {

Value asIndex(OpBuilder &b, Location loc, Value value) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

FailureOr<SmallVector<Value>> lowerEmbedding(EmbeddingOp op,
                                             PatternRewriter &rewriter) {
  MLIRContext *context = op.getContext();
  RankedTensorType result = op.getType();
  int64_t rank = result.getRank();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, context).getMajorSubMap(rank - 1),
      AffineMap::getMultiDimIdentityMap(rank, context)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value weight = op.getWeight();
  return SmallVector<Value>{
      linalg::GenericOp::create(
          rewriter, op.getLoc(), TypeRange{result}, op.getIndices(),
          ValueRange{emptyTensor(rewriter, op.getLoc(), result)}, maps,
          iterators,
          [&](OpBuilder &b, Location loc, ValueRange args) {
            Value row = asIndex(b, loc, args[0]);
            Value column = linalg::IndexOp::create(b, loc, rank - 1);
            Value element = tensor::ExtractOp::create(b, loc, weight,
                                                      ValueRange{row, column});
            linalg::YieldOp::create(b, loc, element);
          })
          .getResult(0)};
}

FailureOr<SmallVector<Value>> lowerEmbeddingGrad(EmbeddingGradOp op,
                                                 PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  RankedTensorType table = op.getType();
  RankedTensorType grad = op.getGrad().getType();
  int64_t rows = *getStaticElementCount(op.getIndices().getType());
  int64_t width = grad.getShape().back();
  // Flatten to [rows] indices and [rows, width] gradient rows.
  Value indices = ReshapeOp::create(
      rewriter, loc,
      RankedTensorType::get({rows},
                            op.getIndices().getType().getElementType()),
      op.getIndices());
  Value gradRows = ReshapeOp::create(
      rewriter, loc, RankedTensorType::get({rows, width}, grad.getElementType()),
      op.getGrad());
  Value zeros = filledTensor(rewriter, loc, table, 0.0);
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  Value zero = constant(0), one = constant(1);
  // One parallel iteration per column; each adds the rows into its column
  // in index order: every element sees its additions in the order a
  // row-by-row scatter makes, so the bits do not depend on the threads.
  auto columns =
      scf::ForallOp::create(rewriter, loc, {rewriter.getIndexAttr(width)},
                            ValueRange{zeros}, std::nullopt);
  Value d = columns.getInductionVar(0);
  Value shared = columns.getRegionIterArgs()[0];
  rewriter.setInsertionPoint(columns.getTerminator());
  SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(0), d};
  SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(table.getShape()[0]),
                                     rewriter.getIndexAttr(1)};
  SmallVector<OpFoldResult> strides(2, rewriter.getIndexAttr(1));
  auto columnType =
      RankedTensorType::get({table.getShape()[0]}, table.getElementType());
  Value column = tensor::ExtractSliceOp::create(
      rewriter, loc, columnType, shared, offsets, sizes, strides);
  std::optional<int64_t> padding = op.getPaddingIdx();
  auto accumulate = scf::ForOp::create(
      rewriter, loc, zero, constant(rows), one, ValueRange{column},
      [&](OpBuilder &b, Location l, Value i, ValueRange current) {
        ScalarBuilder s{b, l, grad.getElementType()};
        Value index = tensor::ExtractOp::create(b, l, indices, ValueRange{i});
        Value row = asIndex(b, l, index);
        Value old =
            tensor::ExtractOp::create(b, l, current[0], ValueRange{row});
        Value add = tensor::ExtractOp::create(b, l, gradRows, ValueRange{i, d});
        Value sum = s.add(old, add);
        if (padding)
          sum = s.select(
              arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::eq, index,
                  arith::ConstantOp::create(
                      b, l, b.getIntegerAttr(index.getType(), *padding))),
              old, sum);
        Value updated =
            tensor::InsertOp::create(b, l, sum, current[0], ValueRange{row});
        scf::YieldOp::create(b, l, updated);
      });
  rewriter.setInsertionPointToStart(columns.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, accumulate.getResult(0),
                                        shared, offsets, sizes, strides);
  return SmallVector<Value>{columns.getResult(0)};
}

} // namespace

void ckpt::populateLookupToLinalgPatterns(RewritePatternSet &patterns) {
  addLowering<EmbeddingOp>(patterns, lowerEmbedding);
  addLowering<EmbeddingGradOp>(patterns, lowerEmbeddingGrad);
}
