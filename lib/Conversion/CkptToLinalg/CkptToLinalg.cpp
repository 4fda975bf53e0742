//===- CkptToLinalg.cpp - the ckpt-to-linalg pass -------------------------===//
//
// Inlines checkpoint segments and applies every op family's lowering
// patterns with a conversion target on which no ckpt op is legal, so any
// op left behind is reported with its location; first rejects 16-bit
// floats on ops whose lowering does not handle them.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/CkptToLinalg/CkptToLinalg.h"
#include "ckpt/Conversion/Passes.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTTOLINALGPASS
#include "ckpt/Conversion/Passes.h.inc"
} // namespace ckpt

using namespace mlir;
using namespace ckpt;

namespace {

/// A lowered segment is its body, run where the segment stands: forward
/// and recompute copies of an op go through the same patterns.
template <typename SegmentOp>
struct InlineSegment : OpRewritePattern<SegmentOp> {
  using OpRewritePattern<SegmentOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(SegmentOp segment,
                                PatternRewriter &rewriter) const override {
    inlineSegment(rewriter, segment);
    return success();
  }
};

/// The f16 or bf16 tensor type among `types`, if any.
std::optional<Type> findHalfFloatTensor(TypeRange types) {
  for (Type type : types)
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      if (getComputeType(tensor.getElementType()) != tensor.getElementType())
        return type;
  return std::nullopt;
}

/// Reports each ckpt op with 16-bit float operands or results whose
/// lowering does not handle them (LowersHalfFloats), rather than let it
/// compute in 16 bits.
LogicalResult checkHalfFloats(ModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    if (!isa<CkptDialect>(op->getDialect()) || op->hasTrait<LowersHalfFloats>())
      return WalkResult::advance();
    std::optional<Type> half = findHalfFloatTensor(op->getOperandTypes());
    if (!half)
      half = findHalfFloatTensor(op->getResultTypes());
    if (!half)
      return WalkResult::advance();
    op->emitError() << "'" << op->getName() << "' on " << *half
                    << " does not lower yet: f32 accumulation is not built "
                       "for it; cast its operands to f32 (ckpt.cast) around it";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

struct CkptToLinalgPass
    : public ckpt::impl::CkptToLinalgPassBase<CkptToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    if (failed(checkHalfFloats(getOperation())))
      return signalPassFailure();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    addRandomStateConversion(converter);

    RewritePatternSet patterns(context);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateRandomToLinalgPatterns(converter, patterns);
    populateAttentionToLinalgPatterns(converter, patterns);
    populateSegmentInliningPatterns(patterns);
    populateElementwiseToLinalgPatterns(patterns);
    populateReductionToLinalgPatterns(patterns);
    populateDenseToLinalgPatterns(patterns);
    populateShapeToTensorPatterns(patterns);
    populateNormalizationToLinalgPatterns(patterns);
    populateLookupToLinalgPatterns(patterns);
    populateVisionToLinalgPatterns(patterns);

    ConversionTarget target(*context);
    target.addIllegalDialect<CkptDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    target.addDynamicallyLegalOp<func::ReturnOp>(
        [&](func::ReturnOp op) { return converter.isLegal(op); });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp func) {
      return converter.isSignatureLegal(func.getFunctionType());
    });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();

    // Arguments belong to the caller (parameters, data, random state):
    // bufferization must copy rather than write into them.
    Builder builder(context);
    for (auto func : getOperation().getOps<func::FuncOp>())
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        if (isa<TensorType>(func.getArgument(i).getType()))
          func.setArgAttr(
              i, bufferization::BufferizationDialect::kWritableAttrName,
              builder.getBoolAttr(false));
  }
};

} // namespace

void ckpt::populateSegmentInliningPatterns(RewritePatternSet &patterns) {
  patterns.add<InlineSegment<CheckpointOp>, InlineSegment<RecomputeOp>>(
      patterns.getContext());
}
