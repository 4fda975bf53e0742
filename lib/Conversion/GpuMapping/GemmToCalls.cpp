//===- GemmToCalls.cpp - matrix products -> runtime GEMM calls ------------===//
//
// Replaces each bufferized matrix product (the linalg.generic contractions
// of ckpt.linear, ckpt.matmul, attention and pointwise convolutions, on
// buffers or views dense in row-major order) by a call of
// `ckptGemm`, which a runner binds to cuBLAS on the GPU or to OpenBLAS on
// the CPU; the rest stays loops.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTGEMMTOCALLSPASS
#include "ckpt/Conversion/Passes.h.inc"
} // namespace ckpt

using namespace mlir;

namespace {

/// ckptGemmF32, ckptGemmF64, ckptGemmF16 and ckptGemmBF16
/// (ckpt/Runtime/Gemm.h).
constexpr StringLiteral kGemmFunction = "ckptGemm";

/// One strided-batched row-major GEMM: for each batch b,
/// C[b] (M x N) += op(A[b]) * op(B[b]), op(A) = A (M x K) or, when
/// `transposedLhs`, the transpose of A (K x M); op(B) = B (K x N) or the
/// transpose of B (N x K). A batch stride of 0 broadcasts the operand.
struct Gemm {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  int64_t lhsStride = 0, rhsStride = 0;
  bool transposedLhs = false, transposedRhs = false;
};

/// `value`, or what it extends when it is an arith.extf.
Value throughExtension(Value value) {
  if (auto extend = value.getDefiningOp<arith::ExtFOp>())
    return extend.getIn();
  return value;
}

/// Whether `body` is `out + lhs * rhs`, 16-bit lhs and rhs extended to
/// out's f32 (the contractions of buildContraction).
bool isMultiplyAdd(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues().front().getDefiningOp<arith::AddFOp>();
  if (!add || add.getLhs() != body.getArgument(2))
    return false;
  auto mul = add.getRhs().getDefiningOp<arith::MulFOp>();
  if (!mul || throughExtension(mul.getLhs()) != body.getArgument(0) ||
      throughExtension(mul.getRhs()) != body.getArgument(1))
    return false;
  size_t extensions = (mul.getLhs() != body.getArgument(0)) +
                      (mul.getRhs() != body.getArgument(1));
  return body.getOperations().size() == 3 + extensions;
}

/// The runtime function's suffix for a product of `input`s into `output`:
/// F32, F64, or F16 and BF16 into f32; empty for other types.
StringRef getGemmSuffix(Type input, Type output) {
  if (input == output && (input.isF32() || input.isF64()))
    return input.isF32() ? "F32" : "F64";
  if (output.isF32() && (input.isF16() || input.isBF16()))
    return input.isF16() ? "F16" : "BF16";
  return "";
}

/// The loops an operand's row-major dimensions follow, outermost first,
/// leaving out dimensions of extent 1 (a constant index must be one of
/// them).
std::optional<SmallVector<unsigned>>
getOperandLoops(AffineMap map, MemRefType type, ArrayRef<int64_t> extents) {
  SmallVector<unsigned> loops;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(e)) {
      if (extents[dim.getPosition()] != 1)
        loops.push_back(dim.getPosition());
      continue;
    }
    if (!isa<AffineConstantExpr>(e) || type.getDimSize(i) != 1)
      return std::nullopt;
  }
  return loops;
}

/// `a` = `b` followed by `c`, or `c` followed by `b` when `swapped`.
bool isConcatenation(ArrayRef<unsigned> a, ArrayRef<unsigned> b,
                     ArrayRef<unsigned> c, bool swapped) {
  if (swapped)
    std::swap(b, c);
  return a.size() == b.size() + c.size() && a.take_front(b.size()) == b &&
         a.drop_front(b.size()) == c;
}

/// The GEMM of a contraction whose first `batchRank` output loops are its
/// batch, each operand having all of them or none; every other loop is a
/// row (lhs and output), a column (rhs and output) or summed (lhs and rhs),
/// and each operand is its batch, then its two groups in either order.
std::optional<Gemm> matchGemmWithBatch(ArrayRef<SmallVector<unsigned>> loops,
                                       ArrayRef<int64_t> extents,
                                       ArrayRef<utils::IteratorType> iterators,
                                       unsigned batchRank) {
  ArrayRef<unsigned> lhs = loops[0], rhs = loops[1], out = loops[2];
  ArrayRef<unsigned> batch = out.take_front(batchRank);
  Gemm gemm;
  for (unsigned loop : batch) {
    if (iterators[loop] != utils::IteratorType::parallel)
      return std::nullopt;
    gemm.batch *= extents[loop];
  }
  auto stripBatch = [&](ArrayRef<unsigned> operand, int64_t matrix,
                        int64_t &stride) -> std::optional<ArrayRef<unsigned>> {
    if (batch.empty()) {
      stride = 0;
      return operand;
    }
    if (operand.take_front(batchRank) == batch) {
      stride = matrix;
      return operand.drop_front(batchRank);
    }
    if (llvm::any_of(batch, [&](unsigned b) {
          return llvm::is_contained(operand, b);
        }))
      return std::nullopt;
    stride = 0;
    return operand;
  };
  SmallVector<unsigned> rows, columns, sums;
  for (unsigned loop = 0; loop < extents.size(); ++loop) {
    if (extents[loop] == 1 || llvm::is_contained(batch, loop))
      continue;
    bool inLhs = llvm::is_contained(lhs, loop),
         inRhs = llvm::is_contained(rhs, loop),
         inOut = llvm::is_contained(out, loop);
    bool reduction = iterators[loop] == utils::IteratorType::reduction;
    if (inLhs && inOut && !inRhs && !reduction)
      gemm.m *= extents[loop];
    else if (inRhs && inOut && !inLhs && !reduction)
      gemm.n *= extents[loop];
    else if (inLhs && inRhs && !inOut && reduction)
      gemm.k *= extents[loop];
    else
      return std::nullopt;
  }
  for (unsigned loop : out.drop_front(batchRank))
    (llvm::is_contained(lhs, loop) ? rows : columns).push_back(loop);
  std::optional<ArrayRef<unsigned>> lhsRest =
      stripBatch(lhs, gemm.m * gemm.k, gemm.lhsStride);
  std::optional<ArrayRef<unsigned>> rhsRest =
      stripBatch(rhs, gemm.k * gemm.n, gemm.rhsStride);
  if (!lhsRest || !rhsRest || (gemm.lhsStride == 0 && gemm.rhsStride == 0 &&
                               batchRank > 0))
    return std::nullopt;
  for (unsigned loop : *lhsRest)
    if (!llvm::is_contained(rows, loop))
      sums.push_back(loop);
  // The output is its rows, then its columns.
  if (!isConcatenation(out.drop_front(batchRank), rows, columns, false))
    return std::nullopt;
  gemm.transposedLhs = !isConcatenation(*lhsRest, rows, sums, false);
  gemm.transposedRhs = !isConcatenation(*rhsRest, sums, columns, false);
  if (!isConcatenation(*lhsRest, rows, sums, gemm.transposedLhs) ||
      !isConcatenation(*rhsRest, sums, columns, gemm.transposedRhs))
    return std::nullopt;
  return gemm;
}

/// The GEMM `op` computes, if it is one on contiguous buffers: with the
/// batch loops every operand has, else with the leading output loops one
/// operand lacks (and reads once for all of them).
std::optional<Gemm> matchGemm(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() < 1 || !op.hasPureBufferSemantics() ||
      !isMultiplyAdd(op))
    return std::nullopt;
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (llvm::any_of(extents, ShapedType::isDynamic))
    return std::nullopt;
  SmallVector<SmallVector<unsigned>> loops;
  SmallVector<Type, 3> elements;
  for (auto [operand, map] :
       llvm::zip(op->getOperands(), op.getIndexingMapsArray())) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    // Views into a larger buffer qualify when their elements are dense in
    // row-major order: the runtime reads the descriptor's offset.
    if (!type || !memref::isStaticShapeAndContiguousRowMajor(type))
      return std::nullopt;
    elements.push_back(type.getElementType());
    std::optional<SmallVector<unsigned>> operandLoops =
        getOperandLoops(map, type, extents);
    if (!operandLoops)
      return std::nullopt;
    loops.push_back(std::move(*operandLoops));
  }
  if (elements[0] != elements[1] ||
      getGemmSuffix(elements[0], elements[2]).empty())
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  ArrayRef<unsigned> lhs = loops[0], rhs = loops[1], out = loops[2];
  auto inBoth = [&](unsigned loop) {
    return llvm::is_contained(lhs, loop) && llvm::is_contained(rhs, loop);
  };
  unsigned shared = 0;
  while (shared < out.size() && inBoth(out[shared]))
    ++shared;
  if (std::optional<Gemm> gemm =
          matchGemmWithBatch(loops, extents, iterators, shared))
    return gemm;
  // A broadcast batch: the leading output loops the lhs (or the rhs) lacks.
  for (ArrayRef<unsigned> operand : {lhs, rhs}) {
    unsigned lacking = 0;
    while (lacking < out.size() && !llvm::is_contained(operand, out[lacking]))
      ++lacking;
    for (; lacking > 0; --lacking)
      if (std::optional<Gemm> gemm =
              matchGemmWithBatch(loops, extents, iterators, lacking))
        return gemm;
  }
  return std::nullopt;
}

struct CkptGemmToCallsPass
    : public ckpt::impl::CkptGemmToCallsPassBase<CkptGemmToCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::GenericOp, Gemm>> gemms;
    module.walk([&](linalg::GenericOp op) {
      if (std::optional<Gemm> gemm = matchGemm(op))
        gemms.push_back({op, *gemm});
    });
    OpBuilder builder(module.getBodyRegion());
    Type i64 = builder.getI64Type();
    for (auto [op, gemm] : gemms) {
      // The buffers are passed as unranked memrefs (rank and descriptor),
      // so the frees of ckpt-free-after-last-use stay after the call.
      auto elementOf = [&](unsigned operand) {
        return cast<MemRefType>(op->getOperand(operand).getType())
            .getElementType();
      };
      std::string name =
          (kGemmFunction + getGemmSuffix(elementOf(0), elementOf(2))).str();
      auto unranked = [&](unsigned operand) -> Type {
        return UnrankedMemRefType::get(elementOf(operand), 0);
      };
      if (!module.lookupSymbol<func::FuncOp>(name)) {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(module.getBody());
        SmallVector<Type> inputs = {unranked(0), unranked(1), unranked(2)};
        inputs.append(8, i64);
        func::FuncOp::create(builder, module.getLoc(), name,
                             builder.getFunctionType(inputs, {}))
            .setPrivate();
      }
      builder.setInsertionPoint(op);
      Location loc = op.getLoc();
      SmallVector<Value> arguments;
      for (auto [index, operand] : llvm::enumerate(op->getOperands()))
        arguments.push_back(
            memref::CastOp::create(builder, loc, unranked(index), operand));
      for (int64_t value :
           {gemm.batch, gemm.m, gemm.n, gemm.k, gemm.lhsStride, gemm.rhsStride,
            static_cast<int64_t>(gemm.transposedLhs),
            static_cast<int64_t>(gemm.transposedRhs)})
        arguments.push_back(
            arith::ConstantIntOp::create(builder, loc, i64, value));
      func::CallOp::create(builder, loc, name, TypeRange{}, arguments);
      op.erase();
    }
  }
};

} // namespace
