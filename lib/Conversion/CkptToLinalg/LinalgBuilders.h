//===- LinalgBuilders.h - linalg.generic shapes shared by the lowerings ---===//
//
// Every ckpt op lowers to a few linalg.generic ops of three shapes: a
// pointwise map with NumPy broadcasting, a reduction over some dimensions,
// and a contraction. These helpers build them so each lowering only states
// its scalar arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_CONVERSION_CKPTTOLINALG_LINALGBUILDERS_H
#define CKPT_LIB_CONVERSION_CKPTTOLINALG_LINALGBUILDERS_H

#include "ckpt/Dialect/Ckpt/IR/SumSplit.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace ckpt {

using ScalarBody = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// Emits scalar arithmetic with one element type, as lowerings need it.
struct ScalarBuilder {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type type;

  mlir::Value constant(double value);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value sub(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  mlir::Value div(mlir::Value x, mlir::Value y);
  mlir::Value neg(mlir::Value x);
  mlir::Value max(mlir::Value x, mlir::Value y);
  mlir::Value exp(mlir::Value x);
  mlir::Value log(mlir::Value x);
  mlir::Value tanh(mlir::Value x);
  mlir::Value erf(mlir::Value x);
  mlir::Value rsqrt(mlir::Value x);
  mlir::Value sqrt(mlir::Value x);
  mlir::Value abs(mlir::Value x);
  /// x (a float of any width) in this builder's type: extended exactly, or
  /// rounded to the nearest, ties to even.
  mlir::Value convert(mlir::Value x);
  mlir::Value pow(mlir::Value x, mlir::Value y);
  mlir::Value min(mlir::Value x, mlir::Value y);
  mlir::Value sigmoid(mlir::Value x);
  /// x > y as an i1.
  mlir::Value greater(mlir::Value x, mlir::Value y);
  /// x < y as an i1.
  mlir::Value less(mlir::Value x, mlir::Value y);
  mlir::Value equal(mlir::Value x, mlir::Value y);
  mlir::Value select(mlir::Value condition, mlir::Value x, mlir::Value y);
};

/// (x - mean) * rstd, then times the weight and plus the bias where there
/// are ones: the normalisations' output, over `v` = x, mean, rstd, then
/// the weight and the bias present.
mlir::Value normalizedAffine(ScalarBuilder &s, mlir::ValueRange v, bool weight,
                             bool bias);

/// A tensor of `type` (static shape), uninitialised.
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type);

/// A tensor of `type` filled with `value`.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::RankedTensorType type, double value);

/// result[i...] = body(inputs broadcast to result's shape at i...).
mlir::Value buildPointwise(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::RankedTensorType resultType,
                           mlir::ValueRange inputs, ScalarBody body);

/// buildPointwise written into `into`, a tensor the lowering made earlier:
/// its buffer is then allocated there, live with whatever the lowering
/// allocates in between (an op's results before its scratch, as the memory
/// simulator counts them). `body` gets the inputs alone.
mlir::Value buildPointwiseInto(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value into, mlir::ValueRange inputs,
                               ScalarBody body);

/// Reduces `inputs` (all of the iteration shape, or broadcastable to it)
/// over the sorted `dims` into a tensor of `resultType`, which either keeps
/// the reduced dimensions with size 1 or drops them. The accumulator starts
/// at `init`; `body` gets the input elements followed by the accumulator.
mlir::Value buildReduction(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::RankedTensorType iterationType,
                           mlir::ValueRange inputs,
                           llvm::ArrayRef<int64_t> dims,
                           mlir::RankedTensorType resultType, double init,
                           ScalarBody body);

/// buildReduction accumulating into `accumulator` (its type the result's),
/// a tensor the lowering filled earlier, as buildPointwiseInto's `into`.
mlir::Value buildReduction(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::RankedTensorType iterationType,
                           mlir::ValueRange inputs,
                           llvm::ArrayRef<int64_t> dims,
                           mlir::Value accumulator, ScalarBody body);

/// A scalar formula over elements, with a ScalarBuilder of the result's
/// compute type (getComputeType: f32 for f16 and bf16) and its 16-bit
/// float inputs extended to it; the builders round its value into the
/// result's element type once.
using Formula = llvm::function_ref<mlir::Value(ScalarBuilder &,
                                               mlir::ValueRange)>;

/// `formula` over the elements `x` in the compute type of `element`, its
/// value rounded into `element` once: one element of a map's result.
mlir::Value computeScalar(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Type element, mlir::ValueRange x,
                          Formula formula);

/// buildPointwise with the body given as a formula.
mlir::Value buildMap(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::RankedTensorType resultType, mlir::ValueRange inputs,
                     Formula formula);

/// buildMap written into `into` (see buildPointwiseInto).
mlir::Value buildMapInto(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value into, mlir::ValueRange inputs,
                         Formula formula);

/// `formula(inputs, value)` elementwise (`inputs` broadcast to `value`'s
/// shape, then `value`), written over `value` itself: bufferization reuses
/// its buffer when nothing reads the old value later (the lowering emits
/// those reads first), so a statistic turns into the next one without a
/// second buffer of its size.
mlir::Value buildMapInPlace(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value value, mlir::ValueRange inputs,
                            Formula formula);

/// The sum over `dims` of `term(elements)`, as buildReduction shapes it,
/// accumulated in the compute type: a 16-bit result is allocated first and
/// the f32 sum of its shape rounded into it (the op's scratch counts it).
mlir::Value buildSum(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::RankedTensorType iterationType,
                     mlir::ValueRange inputs, llvm::ArrayRef<int64_t> dims,
                     mlir::RankedTensorType resultType, Formula term);

/// How the two stages of a split reduction combine values: partial sums
/// start at zero and add up, partial maxima start at -inf and take the
/// larger (arith.maximumf, which is associative and commutative, so the
/// split gives the same bits as one pass).
enum class Combining { Sum, Maximum };

/// buildReduction in the two stages `split` gives (SumSplit.h): `body`
/// combines the input elements into partials (in the accumulator's element
/// type, starting at `combining`'s identity), each over its part in
/// row-major order; then each result's partials are combined in order into
/// `accumulator`, a tensor of the kept sizes without the reduced dimensions
/// that the lowering filled earlier. `body` sees a cut view of the
/// iteration space, so it must not read loop indices (linalg.index). The
/// op's cost must count the partials as scratch.
mlir::Value buildSplitReduction(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::RankedTensorType iterationType,
                                mlir::ValueRange inputs,
                                llvm::ArrayRef<int64_t> dims,
                                const SumSplit &split, mlir::Value accumulator,
                                Combining combining, ScalarBody body);

/// buildReduction into a new tensor of `resultType` (the kept sizes, with
/// or without the reduced dimensions as 1) starting at `combining`'s
/// identity, in two stages (buildSplitReduction) when getSumSplit splits
/// it; `body` must not read loop indices. The op's cost must count the
/// partials as scratch.
mlir::Value buildSplittableReduction(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::RankedTensorType iterationType,
                                     mlir::ValueRange inputs,
                                     llvm::ArrayRef<int64_t> dims,
                                     mlir::RankedTensorType resultType,
                                     Combining combining, ScalarBody body);

/// The sum over `dims` of `term(elements)` into `resultType` (the kept
/// sizes, with or without the reduced dimensions as 1), in two stages when
/// getSumSplit (SumSplit.h) splits it: partial sums in a scratch tensor,
/// each in row-major order, then each result's partials in order; then
/// `finish`, when given, maps each sum (a mean's division). Partials and
/// sums are in the compute type: a 16-bit result is allocated first and
/// the finished f32 sums rounded into it once. `term` must not read loop
/// indices. The op's cost must count the partials and any f32 sums as
/// scratch.
mlir::Value buildSplitSum(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::RankedTensorType iterationType,
                          mlir::ValueRange inputs, llvm::ArrayRef<int64_t> dims,
                          mlir::RankedTensorType resultType, Formula term,
                          Formula finish = nullptr);

/// init += lhs * rhs over an iteration space whose dimensions `reductions`
/// are contracted; `maps` give the indices of lhs, rhs and init. The loops
/// run in the order of the dimensions; 16-bit lhs and rhs are extended to a
/// wider init's type.
mlir::Value buildContraction(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value lhs, mlir::Value rhs, mlir::Value init,
                             llvm::ArrayRef<mlir::AffineMap> maps,
                             llvm::ArrayRef<unsigned> reductions);

/// The starting value of a product's accumulator, as a tensor of the type
/// it is given.
using InitBuilder =
    llvm::function_ref<mlir::Value(mlir::RankedTensorType accumulatorType)>;

/// init + lhs * rhs as buildContraction computes it, into a tensor of
/// `resultType`, accumulated in its compute type: a 16-bit result is
/// allocated first and the f32 product rounded into it once (the op's
/// scratch counts the f32 product).
mlir::Value buildProduct(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value lhs, mlir::Value rhs,
                         mlir::RankedTensorType resultType, InitBuilder init,
                         llvm::ArrayRef<mlir::AffineMap> maps,
                         llvm::ArrayRef<unsigned> reductions);

/// The dimensions [begin, end) as a sorted list.
llvm::SmallVector<int64_t> dimRange(int64_t begin, int64_t end);

} // namespace ckpt

#endif // CKPT_LIB_CONVERSION_CKPTTOLINALG_LINALGBUILDERS_H
