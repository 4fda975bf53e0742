//===- LinalgBuilders.cpp - linalg.generic shapes shared by the lowerings -===//
//
// Indexing maps encode NumPy broadcasting: an operand dimension of size 1
// facing a larger result dimension reads index 0, and missing leading
// dimensions are not indexed at all.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"

#include "ckpt/Dialect/Ckpt/IR/SumSplit.h"
#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>
#include <numeric>
#include <utility>

using namespace mlir;
using namespace ckpt;

Value ScalarBuilder::constant(double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}
Value ScalarBuilder::add(Value x, Value y) {
  return arith::AddFOp::create(b, loc, x, y);
}
Value ScalarBuilder::sub(Value x, Value y) {
  return arith::SubFOp::create(b, loc, x, y);
}
Value ScalarBuilder::mul(Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}
Value ScalarBuilder::div(Value x, Value y) {
  return arith::DivFOp::create(b, loc, x, y);
}
Value ScalarBuilder::neg(Value x) { return arith::NegFOp::create(b, loc, x); }
Value ScalarBuilder::max(Value x, Value y) {
  return arith::MaximumFOp::create(b, loc, x, y);
}
Value ScalarBuilder::exp(Value x) { return math::ExpOp::create(b, loc, x); }
Value ScalarBuilder::log(Value x) { return math::LogOp::create(b, loc, x); }
Value ScalarBuilder::tanh(Value x) { return math::TanhOp::create(b, loc, x); }
Value ScalarBuilder::erf(Value x) { return math::ErfOp::create(b, loc, x); }
// 1 / sqrt(x), as PyTorch's CPU normalisations compute it.
Value ScalarBuilder::rsqrt(Value x) {
  return div(constant(1.0), math::SqrtOp::create(b, loc, x));
}
Value ScalarBuilder::sqrt(Value x) { return math::SqrtOp::create(b, loc, x); }
Value ScalarBuilder::abs(Value x) { return math::AbsFOp::create(b, loc, x); }
Value ScalarBuilder::convert(Value x) {
  auto from = cast<FloatType>(x.getType()), to = cast<FloatType>(type);
  if (from == to)
    return x;
  if (from.getWidth() < to.getWidth())
    return arith::ExtFOp::create(b, loc, to, x);
  // Between 16-bit types (bf16 and f16) through f32, which holds both.
  if (from.getWidth() == to.getWidth())
    x = arith::ExtFOp::create(b, loc, Float32Type::get(b.getContext()), x);
  return arith::TruncFOp::create(b, loc, to, x);
}
Value ScalarBuilder::pow(Value x, Value y) {
  return math::PowFOp::create(b, loc, x, y);
}
Value ScalarBuilder::min(Value x, Value y) {
  return arith::MinimumFOp::create(b, loc, x, y);
}
Value ScalarBuilder::sigmoid(Value x) {
  return div(constant(1.0), add(constant(1.0), exp(neg(x))));
}
Value ScalarBuilder::greater(Value x, Value y) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, y);
}
Value ScalarBuilder::less(Value x, Value y) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, y);
}
Value ScalarBuilder::equal(Value x, Value y) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y);
}
Value ScalarBuilder::select(Value condition, Value x, Value y) {
  return arith::SelectOp::create(b, loc, condition, x, y);
}

Value ckpt::emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value ckpt::filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                         double value) {
  ScalarBuilder s{b, loc, type.getElementType()};
  return linalg::FillOp::create(b, loc, s.constant(value),
                                emptyTensor(b, loc, type))
      .getResult(0);
}

/// The map reading `type` at the iteration point of `iterationShape`.
static AffineMap broadcastMap(MLIRContext *context,
                              ArrayRef<int64_t> iterationShape,
                              RankedTensorType type) {
  int64_t rank = iterationShape.size();
  int64_t offset = rank - type.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    int64_t d = offset + i;
    exprs.push_back(type.getDimSize(i) == 1 && iterationShape[d] != 1
                        ? getAffineConstantExpr(0, context)
                        : getAffineDimExpr(d, context));
  }
  return AffineMap::get(rank, 0, exprs, context);
}

/// `values` with their 16-bit floats extended to `computeType`, the type
/// the arithmetic on them runs in (getComputeType); the rest as they are.
static SmallVector<Value> widened(OpBuilder &b, Location loc, ValueRange values,
                                  Type computeType) {
  SmallVector<Value> result;
  for (Value value : values) {
    Type type = value.getType();
    result.push_back(getComputeType(type) != type && type != computeType
                         ? arith::ExtFOp::create(b, loc, computeType, value)
                         : value);
  }
  return result;
}

static Value identity(ScalarBuilder &, ValueRange x) { return x[0]; }

Value ckpt::normalizedAffine(ScalarBuilder &s, ValueRange v, bool weight,
                            bool bias) {
  Value normalized = s.mul(s.sub(v[0], v[1]), v[2]);
  if (weight)
    normalized = s.mul(normalized, v[3]);
  if (bias)
    normalized = s.add(normalized, v.back());
  return normalized;
}

Value ckpt::buildPointwise(OpBuilder &b, Location loc,
                           RankedTensorType resultType, ValueRange inputs,
                           ScalarBody body) {
  return buildPointwiseInto(b, loc, emptyTensor(b, loc, resultType), inputs,
                            body);
}

Value ckpt::buildPointwiseInto(OpBuilder &b, Location loc, Value into,
                               ValueRange inputs, ScalarBody body) {
  auto resultType = cast<RankedTensorType>(into.getType());
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(broadcastMap(context, resultType.getShape(),
                                cast<RankedTensorType>(input.getType())));
  maps.push_back(AffineMap::getMultiDimIdentityMap(resultType.getRank(),
                                                   context));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, inputs, ValueRange{into}, maps,
             iterators,
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               Value result = body(nested, nestedLoc, args.drop_back());
               linalg::YieldOp::create(nested, nestedLoc, result);
             })
      .getResult(0);
}

Value ckpt::buildReduction(OpBuilder &b, Location loc,
                           RankedTensorType iterationType, ValueRange inputs,
                           ArrayRef<int64_t> dims,
                           RankedTensorType resultType, double init,
                           ScalarBody body) {
  return buildReduction(b, loc, iterationType, inputs, dims,
                        filledTensor(b, loc, resultType, init), body);
}

Value ckpt::buildReduction(OpBuilder &b, Location loc,
                           RankedTensorType iterationType, ValueRange inputs,
                           ArrayRef<int64_t> dims, Value accumulator,
                           ScalarBody body) {
  auto resultType = cast<RankedTensorType>(accumulator.getType());
  MLIRContext *context = b.getContext();
  int64_t rank = iterationType.getRank();
  bool keepdim = resultType.getRank() == rank;
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(broadcastMap(context, iterationType.getShape(),
                                cast<RankedTensorType>(input.getType())));
  SmallVector<AffineExpr> outputExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(dims, d);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced)
      outputExprs.push_back(getAffineDimExpr(d, context));
    else if (keepdim)
      outputExprs.push_back(getAffineConstantExpr(0, context));
  }
  maps.push_back(AffineMap::get(rank, 0, outputExprs, context));
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, inputs, ValueRange{accumulator},
             maps, iterators,
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               linalg::YieldOp::create(nested, nestedLoc,
                                       body(nested, nestedLoc, args));
             })
      .getResult(0);
}

Value ckpt::buildMap(OpBuilder &b, Location loc, RankedTensorType resultType,
                     ValueRange inputs, Formula formula) {
  return buildMapInto(b, loc, emptyTensor(b, loc, resultType), inputs,
                      formula);
}

Value ckpt::computeScalar(OpBuilder &b, Location loc, Type element,
                          ValueRange x, Formula formula) {
  Type compute = getComputeType(element);
  ScalarBuilder s{b, loc, compute};
  Value result = formula(s, widened(b, loc, x, compute));
  return compute == element ? result
                            : ScalarBuilder{b, loc, element}.convert(result);
}

Value ckpt::buildMapInto(OpBuilder &b, Location loc, Value into,
                         ValueRange inputs, Formula formula) {
  Type element = cast<RankedTensorType>(into.getType()).getElementType();
  return buildPointwiseInto(b, loc, into, inputs,
                            [&](OpBuilder &nb, Location nl, ValueRange x) {
                              return computeScalar(nb, nl, element, x, formula);
                            });
}

Value ckpt::buildMapInPlace(OpBuilder &b, Location loc, Value value,
                            ValueRange inputs, Formula formula) {
  auto type = cast<RankedTensorType>(value.getType());
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(broadcastMap(context, type.getShape(),
                                cast<RankedTensorType>(input.getType())));
  maps.push_back(AffineMap::getMultiDimIdentityMap(type.getRank(), context));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, inputs, ValueRange{value}, maps,
             iterators,
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               linalg::YieldOp::create(nested, nestedLoc,
                                       computeScalar(nested, nestedLoc,
                                                     type.getElementType(),
                                                     args, formula));
             })
      .getResult(0);
}

/// The accumulation of buildSum: `term` of the input elements in
/// `compute`, added to the accumulator (the last of `args`).
static Value addTerm(OpBuilder &b, Location loc, Type compute, ValueRange args,
                     Formula term) {
  ScalarBuilder s{b, loc, compute};
  return s.add(args.back(),
               term(s, widened(b, loc, args.drop_back(), compute)));
}

Value ckpt::buildSum(OpBuilder &b, Location loc,
                     RankedTensorType iterationType, ValueRange inputs,
                     ArrayRef<int64_t> dims, RankedTensorType resultType,
                     Formula term) {
  Type element = resultType.getElementType();
  Type compute = getComputeType(element);
  // A 16-bit sum: its result first, live with the f32 accumulator as the
  // op's scratch counts it; the sum rounds into it once.
  Value into = compute != element ? emptyTensor(b, loc, resultType) : Value();
  Value sum = buildReduction(b, loc, iterationType, inputs, dims,
                             resultType.clone(compute), 0.0,
                             [&](OpBuilder &nb, Location nl, ValueRange args) {
                               return addTerm(nb, nl, compute, args, term);
                             });
  return into ? buildMapInto(b, loc, into, sum, identity) : sum;
}

/// Where partials and results of a reduction combining as `combining`
/// start.
static double identityOf(Combining combining) {
  return combining == Combining::Sum ? 0.0
                                     : -std::numeric_limits<double>::infinity();
}

Value ckpt::buildSplitReduction(OpBuilder &b, Location loc,
                                RankedTensorType iterationType,
                                ValueRange inputs, ArrayRef<int64_t> dims,
                                const SumSplit &split, Value accumulator,
                                Combining combining, ScalarBody body) {
  ArrayRef<int64_t> shape = iterationType.getShape();
  int64_t rank = iterationType.getRank();
  auto reduced = [&](int64_t d) { return llvm::is_contained(dims, d); };
  Type sumElement =
      cast<RankedTensorType>(accumulator.getType()).getElementType();
  // Stage 1 sums the inputs viewed as [shape[0..dim), q, t,
  // shape(dim..rank)], dimension `dim` cut as q * factor + t, over the
  // reduced dimensions up to q: the others index the partials.
  int64_t dim = split.dim;
  SmallVector<int64_t> cutShape(shape);
  cutShape[dim] = shape[dim] / split.factor;
  cutShape.insert(cutShape.begin() + dim + 1, split.factor);
  // Inputs broadcast as the iteration shape's trailing dimensions
  // (buildReduction): dimension `dim`, where an input has it, becomes [q,
  // t], or [1, 1] where it is broadcast.
  SmallVector<Value> cutInputs;
  for (Value input : inputs) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t local = dim - (rank - type.getRank());
    if (local < 0) {
      cutInputs.push_back(input);
      continue;
    }
    SmallVector<int64_t> cutInputShape(type.getShape());
    bool broadcast = cutInputShape[local] == 1 && shape[dim] != 1;
    cutInputShape[local] = broadcast ? 1 : cutShape[dim];
    cutInputShape.insert(cutInputShape.begin() + local + 1,
                         broadcast ? 1 : split.factor);
    SmallVector<ReassociationIndices> cut;
    for (int64_t d = 0; d < type.getRank(); ++d)
      cut.push_back(d < local    ? ReassociationIndices{d}
                    : d == local ? ReassociationIndices{d, d + 1}
                                 : ReassociationIndices{d + 1});
    cutInputs.push_back(tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(cutInputShape, type.getElementType()),
        input, cut));
  }
  SmallVector<int64_t> firstStage, secondStage;
  int64_t keptBefore = 0;
  for (int64_t d = 0; d <= dim; ++d) {
    if (reduced(d))
      firstStage.push_back(d);
    else
      ++keptBefore;
  }
  secondStage.push_back(keptBefore);
  for (int64_t d = dim + 1; d < rank; ++d)
    if (reduced(d))
      secondStage.push_back(keptBefore + 1 + (d - dim - 1));
  auto partialType = RankedTensorType::get(split.partialShape, sumElement);
  Value partials = buildReduction(
      b, loc, RankedTensorType::get(cutShape, iterationType.getElementType()),
      cutInputs, firstStage, partialType, identityOf(combining), body);
  return buildReduction(b, loc, partialType, partials, secondStage, accumulator,
                        [&](OpBuilder &nb, Location nl, ValueRange args) {
                          ScalarBuilder s{nb, nl, sumElement};
                          return combining == Combining::Sum
                                     ? s.add(args[1], args[0])
                                     : s.max(args[1], args[0]);
                        });
}

Value ckpt::buildSplittableReduction(OpBuilder &b, Location loc,
                                     RankedTensorType iterationType,
                                     ValueRange inputs, ArrayRef<int64_t> dims,
                                     RankedTensorType resultType,
                                     Combining combining, ScalarBody body) {
  ArrayRef<int64_t> shape = iterationType.getShape();
  int64_t rank = iterationType.getRank();
  std::optional<SumSplit> split = getSumSplit(shape, dims);
  if (!split)
    return buildReduction(b, loc, iterationType, inputs, dims, resultType,
                          identityOf(combining), body);
  // The split is made without the kept unit dimensions and viewed with
  // them at the end: each reduced dimension joins the next kept one, the
  // trailing ones the last.
  auto reduced = [&](int64_t d) { return llvm::is_contained(dims, d); };
  SmallVector<int64_t> keptShape;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced(d))
      keptShape.push_back(shape[d]);
  auto keptType = RankedTensorType::get(keptShape, resultType.getElementType());
  Value result = buildSplitReduction(
      b, loc, iterationType, inputs, dims, *split,
      filledTensor(b, loc, keptType, identityOf(combining)), combining, body);
  if (resultType == keptType)
    return result;
  assert(resultType.getRank() == rank && "a keepdim result");
  SmallVector<ReassociationIndices> units;
  ReassociationIndices pending;
  for (int64_t d = 0; d < rank; ++d) {
    pending.push_back(d);
    if (!reduced(d))
      units.push_back(std::exchange(pending, {}));
  }
  if (!units.empty())
    units.back().append(pending);
  return tensor::ExpandShapeOp::create(b, loc, resultType, result, units);
}

Value ckpt::buildSplitSum(OpBuilder &b, Location loc,
                          RankedTensorType iterationType, ValueRange inputs,
                          ArrayRef<int64_t> dims, RankedTensorType resultType,
                          Formula term, Formula finish) {
  Type compute = getComputeType(resultType.getElementType());
  // The result first: its buffer is live with the partials and any f32
  // accumulator, as the memory simulator counts an op's results and
  // scratch, even where an input dies after the first stage. A 16-bit
  // result is rounded into once, from the f32 sum, finished.
  Value into = compute != resultType.getElementType()
                   ? emptyTensor(b, loc, resultType)
                   : Value();
  Value sum = buildSplittableReduction(
      b, loc, iterationType, inputs, dims, resultType.clone(compute),
      Combining::Sum, [&](OpBuilder &nb, Location nl, ValueRange args) {
        return addTerm(nb, nl, compute, args, term);
      });
  if (into)
    return buildMapInto(b, loc, into, sum, finish ? finish : identity);
  return finish ? buildMapInPlace(b, loc, sum, {}, finish) : sum;
}

Value ckpt::buildContraction(OpBuilder &b, Location loc, Value lhs, Value rhs,
                             Value init, ArrayRef<AffineMap> maps,
                             ArrayRef<unsigned> reductions) {
  auto type = cast<RankedTensorType>(init.getType());
  SmallVector<utils::IteratorType> iterators(maps.front().getNumDims(),
                                             utils::IteratorType::parallel);
  for (unsigned d : reductions)
    iterators[d] = utils::IteratorType::reduction;
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{lhs, rhs}, ValueRange{init},
             maps, iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               auto reassoc = arith::FastMathFlags::reassoc;
               SmallVector<Value> factors =
                   widened(nb, nl, args.take_front(2), type.getElementType());
               Value product = arith::MulFOp::create(nb, nl, factors[0],
                                                     factors[1], reassoc);
               linalg::YieldOp::create(
                   nb, nl,
                   arith::AddFOp::create(nb, nl, args[2], product, reassoc)
                       .getResult());
             })
      .getResult(0);
}

Value ckpt::buildProduct(OpBuilder &b, Location loc, Value lhs, Value rhs,
                         RankedTensorType resultType, InitBuilder init,
                         ArrayRef<AffineMap> maps,
                         ArrayRef<unsigned> reductions) {
  Type element = resultType.getElementType();
  Type compute = getComputeType(element);
  Value into = compute != element ? emptyTensor(b, loc, resultType) : Value();
  Value product = buildContraction(
      b, loc, lhs, rhs, init(resultType.clone(compute)), maps, reductions);
  return into ? buildMapInto(b, loc, into, product, identity) : product;
}

SmallVector<int64_t> ckpt::dimRange(int64_t begin, int64_t end) {
  SmallVector<int64_t> dims(std::max<int64_t>(end - begin, 0));
  std::iota(dims.begin(), dims.end(), begin);
  return dims;
}
