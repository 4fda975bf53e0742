//===- GemmToCalls.cpp - matrix products -> runtime GEMM calls ------------===//
//
// Replaces each bufferized matrix product (the linalg.generic that
// ckpt.linear and ckpt.matmul lower to, on contiguous buffers) by a call of
// `ckptGemm`, which a runner binds to cuBLAS on the GPU or to a reference
// loop on the CPU; the rest stays loops.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTGEMMTOCALLSPASS
#include "ckpt/Conversion/Passes.h.inc"
} // namespace ckpt

using namespace mlir;

namespace {

/// ckptGemmF32 and ckptGemmF64 (ckpt/Runtime/Gemm.h).
constexpr StringLiteral kGemmFunction = "ckptGemm";

/// One strided-batched row-major GEMM: for each batch b,
/// C[b] (M x N) += A[b] (M x K) * op(B[b]), op(B) = B (K x N) or, when
/// `transposedRhs`, the transpose of B (N x K). A batch stride of 0
/// broadcasts the operand.
struct Gemm {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  int64_t lhsStride = 0, rhsStride = 0;
  bool transposedRhs = false;
};

/// Whether `body` is `out + lhs * rhs`.
bool isMultiplyAdd(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues().front().getDefiningOp<arith::AddFOp>();
  if (!add || add.getLhs() != body.getArgument(2))
    return false;
  auto mul = add.getRhs().getDefiningOp<arith::MulFOp>();
  return mul && mul.getLhs() == body.getArgument(0) &&
         mul.getRhs() == body.getArgument(1) &&
         body.getOperations().size() == 3;
}

/// The GEMM `op` computes, if it is one on contiguous buffers.
std::optional<Gemm> matchGemm(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 1 || !op.hasPureBufferSemantics() ||
      !isMultiplyAdd(op))
    return std::nullopt;
  SmallVector<MemRefType> types;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
        !(type.getElementType().isF32() || type.getElementType().isF64()))
      return std::nullopt;
    types.push_back(type);
  }
  if (types[0].getElementType() != types[2].getElementType() ||
      types[1].getElementType() != types[2].getElementType())
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned k = 0;
  for (auto [dim, kind] : llvm::enumerate(op.getIteratorTypesArray()))
    if (kind == utils::IteratorType::reduction)
      k = dim;
  auto dimOf = [](AffineExpr e) -> int64_t {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return d.getPosition();
    return -1;
  };
  AffineMap lhs = maps[0], rhs = maps[1], out = maps[2];
  unsigned rank = out.getNumResults();
  if (rank < 2 || lhs.getNumResults() < 2 || rhs.getNumResults() < 2)
    return std::nullopt;
  // The output is the parallel dimensions in order.
  for (unsigned i = 0; i < rank; ++i)
    if (dimOf(out.getResult(i)) < 0 ||
        dimOf(out.getResult(i)) == static_cast<int64_t>(k))
      return std::nullopt;
  int64_t nDim = dimOf(out.getResult(rank - 1));
  ArrayRef<int64_t> shape = types[2].getShape();
  Gemm gemm;
  gemm.n = shape.back();
  gemm.k = types[0].getShape().back();
  if (dimOf(lhs.getResults().back()) != static_cast<int64_t>(k))
    return std::nullopt;
  // Linear: lhs (rows..., k), rhs (n, k); the rows are one M.
  if (rhs.getNumResults() == 2 && dimOf(rhs.getResult(0)) == nDim &&
      dimOf(rhs.getResult(1)) == static_cast<int64_t>(k) &&
      lhs.getNumResults() == rank) {
    for (unsigned i = 0; i + 1 < rank; ++i)
      if (lhs.getResult(i) != out.getResult(i))
        return std::nullopt;
    gemm.m = types[2].getNumElements() / gemm.n;
    gemm.transposedRhs = true;
    return gemm;
  }
  // Matmul: lhs (batch..., m, k), rhs (batch..., k, n); each operand has
  // all batch dimensions or none (or broadcasts all of them).
  if (dimOf(rhs.getResults().back()) != nDim ||
      dimOf(rhs.getResult(rhs.getNumResults() - 2)) !=
          static_cast<int64_t>(k) ||
      dimOf(lhs.getResult(lhs.getNumResults() - 2)) !=
          dimOf(out.getResult(rank - 2)))
    return std::nullopt;
  unsigned batchRank = rank - 2;
  for (int64_t size : shape.drop_back(2))
    gemm.batch *= size;
  gemm.m = shape[rank - 2];
  auto batchStride = [&](AffineMap map, MemRefType type,
                         int64_t matrix) -> std::optional<int64_t> {
    unsigned operandBatch = map.getNumResults() - 2;
    bool all = operandBatch == batchRank, none = true;
    for (unsigned i = 0; i < operandBatch; ++i) {
      AffineExpr e = map.getResult(i);
      bool broadcast = isa<AffineConstantExpr>(e) || type.getDimSize(i) == 1;
      none &= broadcast;
      all &= !broadcast && e == out.getResult(batchRank - operandBatch + i);
    }
    if (all)
      return matrix;
    if (none)
      return 0;
    return std::nullopt;
  };
  std::optional<int64_t> lhsStride =
      batchStride(lhs, types[0], gemm.m * gemm.k);
  std::optional<int64_t> rhsStride =
      batchStride(rhs, types[1], gemm.k * gemm.n);
  if (!lhsStride || !rhsStride)
    return std::nullopt;
  gemm.lhsStride = *lhsStride;
  gemm.rhsStride = *rhsStride;
  return gemm;
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
      Type element =
          cast<MemRefType>(op->getOperand(2).getType()).getElementType();
      Type unranked = UnrankedMemRefType::get(element, 0);
      std::string name =
          (kGemmFunction + (element.isF64() ? "F64" : "F32")).str();
      if (!module.lookupSymbol<func::FuncOp>(name)) {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(module.getBody());
        SmallVector<Type> inputs(3, unranked);
        inputs.append(7, i64);
        func::FuncOp::create(builder, module.getLoc(), name,
                             builder.getFunctionType(inputs, {}))
            .setPrivate();
      }
      builder.setInsertionPoint(op);
      Location loc = op.getLoc();
      SmallVector<Value> arguments;
      for (Value operand : op->getOperands())
        arguments.push_back(
            memref::CastOp::create(builder, loc, unranked, operand));
      for (int64_t value :
           {gemm.batch, gemm.m, gemm.n, gemm.k, gemm.lhsStride, gemm.rhsStride,
            static_cast<int64_t>(gemm.transposedRhs)})
        arguments.push_back(
            arith::ConstantIntOp::create(builder, loc, i64, value));
      func::CallOp::create(builder, loc, name, TypeRange{}, arguments);
      op.erase();
    }
  }
};

} // namespace
