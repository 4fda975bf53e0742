//===- Dense.cpp - linear and matmul -> linalg.generic contractions -------===//
//
// Both are one contraction linalg.generic: matmul over (batch..., m, n, k)
// with broadcast batch maps, a transposed operand read through its map;
// linear over (rows..., n, k) reading the weight as [n, k]; accumulating
// into zeros or into the broadcast bias (in f32 for 16-bit results,
// rounded once).
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "LoweringPattern.h"

#include "ckpt/Conversion/CkptToLinalg/CkptToLinalg.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace ckpt;

namespace {

FailureOr<SmallVector<Value>> lowerMatmul(MatmulOp op,
                                          PatternRewriter &rewriter) {
  MLIRContext *context = op.getContext();
  RankedTensorType result = op.getType();
  int64_t batch = result.getRank() - 2;
  // Loops batch..., m, k, n: the innermost loop walks rows of rhs and of
  // the result contiguously.
  unsigned rank = batch + 3;
  unsigned m = batch, k = batch + 1, n = batch + 2;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  auto operandMap = [&](RankedTensorType type, AffineExpr row,
                        AffineExpr column, bool transposed) {
    if (transposed)
      std::swap(row, column);
    SmallVector<AffineExpr> exprs;
    int64_t offset = batch - (type.getRank() - 2);
    for (int64_t i = 0; i < type.getRank() - 2; ++i)
      exprs.push_back(type.getDimSize(i) == 1 &&
                              result.getDimSize(offset + i) != 1
                          ? getAffineConstantExpr(0, context)
                          : d(offset + i));
    exprs.append({row, column});
    return AffineMap::get(rank, 0, exprs, context);
  };
  SmallVector<AffineExpr> out;
  for (unsigned i = 0; i < batch; ++i)
    out.push_back(d(i));
  out.append({d(m), d(n)});
  SmallVector<AffineMap> maps = {
      operandMap(op.getLhs().getType(), d(m), d(k), op.getTransposeLhs()),
      operandMap(op.getRhs().getType(), d(k), d(n), op.getTransposeRhs()),
      AffineMap::get(rank, 0, out, context)};
  Location loc = op.getLoc();
  return SmallVector<Value>{
      buildProduct(rewriter, loc, op.getLhs(), op.getRhs(), result,
                   [&](RankedTensorType type) {
                     return filledTensor(rewriter, loc, type, 0.0);
                   },
                   maps, {k})};
}

FailureOr<SmallVector<Value>> lowerLinear(LinearOp op,
                                          PatternRewriter &rewriter) {
  MLIRContext *context = op.getContext();
  RankedTensorType result = op.getType();
  unsigned rows = result.getRank() - 1;
  // Loops rows..., k, n: the innermost loop walks the result row
  // contiguously (the weight with stride K).
  unsigned rank = rows + 2, k = rows, n = rows + 1;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  SmallVector<AffineExpr> input, out;
  for (unsigned i = 0; i < rows; ++i) {
    input.push_back(d(i));
    out.push_back(d(i));
  }
  input.push_back(d(k));
  out.push_back(d(n));
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, input, context),
      AffineMap::get(rank, 0, {d(n), d(k)}, context),
      AffineMap::get(rank, 0, out, context)};
  Location loc = op.getLoc();
  return SmallVector<Value>{buildProduct(
      rewriter, loc, op.getInput(), op.getWeight(), result,
      [&](RankedTensorType type) {
        return op.getBias() ? buildMap(rewriter, loc, type, op.getBias(),
                                       [](ScalarBuilder &, ValueRange x) {
                                         return x[0];
                                       })
                            : filledTensor(rewriter, loc, type, 0.0);
      },
      maps, {k})};
}

} // namespace

void ckpt::populateDenseToLinalgPatterns(RewritePatternSet &patterns) {
  addLowering<MatmulOp>(patterns, lowerMatmul);
  addLowering<LinearOp>(patterns, lowerLinear);
}
