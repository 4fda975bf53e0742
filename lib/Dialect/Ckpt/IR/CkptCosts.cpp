//===- CkptCosts.cpp - FLOP counts and scratch bytes of ckpt ops ----------===//
//
// The CostOpInterface of every computing op. Matrix products count
// 2*M*N*K multiply-adds; pointwise and normalisation ops count elements
// times a per-op factor that approximates their arithmetic; data movement
// (reshape, transpose, slice, ...) counts no FLOPs. docs/CostModel.md has
// the table. Counts saturate instead of wrapping. Ops whose lowering
// allocates buffers besides their results declare those scratch bytes.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/SumSplit.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace ckpt;

static uint64_t elements(Value value) {
  return getStaticElementCount(cast<ShapedType>(value.getType())).value_or(0);
}

static uint64_t times(uint64_t a, uint64_t b) {
  return llvm::SaturatingMultiply(a, b);
}

/// FLOPs of a product of a `[rows, k]` by `[k, columns]` matrix, `batch`
/// times.
static uint64_t matmulFlops(uint64_t batch, int64_t rows, int64_t k,
                            int64_t columns) {
  return times(times(times(2 * batch, rows), k), columns);
}

uint64_t LinearOp::getFlops() {
  RankedTensorType weight = getWeight().getType();
  uint64_t rows = elements(getInput()) / std::max<int64_t>(
                                             weight.getDimSize(1), 1);
  uint64_t flops =
      matmulFlops(1, rows, weight.getDimSize(1), weight.getDimSize(0));
  return getBias() ? llvm::SaturatingAdd(flops, elements(getResult()))
                   : flops;
}

// A 16-bit product accumulates in f32 before it rounds into its result.
uint64_t LinearOp::getScratchBytes() {
  return getWidenedAccumulatorBytes(getResult().getType());
}
uint64_t MatmulOp::getScratchBytes() {
  return getWidenedAccumulatorBytes(getResult().getType());
}

uint64_t MatmulOp::getFlops() {
  RankedTensorType result = getResult().getType();
  int64_t rows = result.getDimSize(result.getRank() - 2);
  int64_t columns = result.getDimSize(result.getRank() - 1);
  ArrayRef<int64_t> lhs = getLhs().getType().getShape();
  int64_t k = getTransposeLhs() ? lhs.drop_back().back() : lhs.back();
  uint64_t batch = elements(getResult()) /
                   std::max<uint64_t>(times(rows, columns), 1);
  return matmulFlops(batch, rows, k, columns);
}

/// Sizes of attention: the `[N, H, L, S]` weights and the head sizes.
struct AttentionSizes {
  explicit AttentionSizes(Value query, Value key, Value value) {
    auto q = cast<RankedTensorType>(query.getType());
    weights = times(elements(query) / std::max<int64_t>(q.getDimSize(3), 1),
                    cast<RankedTensorType>(key.getType()).getDimSize(2));
    qk = q.getDimSize(3);
    v = cast<RankedTensorType>(value.getType()).getDimSize(3);
  }
  uint64_t weights;
  int64_t qk, v;
};

// Scores, weights times values, and 5 per weight for the softmax (2 more
// with dropout). The causal half is computed and counted too.
uint64_t ScaledDotProductAttentionOp::getFlops() {
  AttentionSizes a(getQuery(), getKey(), getValue());
  uint64_t perWeight = 2 * (a.qk + a.v) + 5 + (getP().isZero() ? 0 : 2);
  return times(a.weights, perWeight);
}

// The recomputed scores, four matrix products (value, weight, query and
// key gradients) and the pointwise softmax gradient.
uint64_t ScaledDotProductAttentionGradOp::getFlops() {
  AttentionSizes a(getQuery(), getKey(), getValue());
  uint64_t perWeight = 2 * a.qk + 4 * a.v + 4 * a.qk + 6 +
                       (getP().isZero() ? 0 : 4);
  return times(a.weights, perWeight);
}

// FLOPs per element of the first result.
#define CKPT_POINTWISE_FLOPS(Op, factor)                                       \
  uint64_t Op::getFlops() {                                                    \
    return times(elements(getOperation()->getResult(0)), factor);             \
  }

// Elementwise forward ops.
CKPT_POINTWISE_FLOPS(AddOp, 1)
CKPT_POINTWISE_FLOPS(SubOp, 1)
CKPT_POINTWISE_FLOPS(MulOp, 1)
CKPT_POINTWISE_FLOPS(DivOp, 1)
CKPT_POINTWISE_FLOPS(NegOp, 1)
CKPT_POINTWISE_FLOPS(ReluOp, 1)
CKPT_POINTWISE_FLOPS(WhereOp, 1)
CKPT_POINTWISE_FLOPS(ExpOp, 4)
CKPT_POINTWISE_FLOPS(LogOp, 4)
CKPT_POINTWISE_FLOPS(RsqrtOp, 2)
CKPT_POINTWISE_FLOPS(SqrtOp, 1)
CKPT_POINTWISE_FLOPS(AbsOp, 1)
CKPT_POINTWISE_FLOPS(ClampOp, 2)
CKPT_POINTWISE_FLOPS(CastOp, 1)
CKPT_POINTWISE_FLOPS(PowOp, 4)
CKPT_POINTWISE_FLOPS(TanhOp, 4)
CKPT_POINTWISE_FLOPS(SigmoidOp, 4)
CKPT_POINTWISE_FLOPS(SiluOp, 5)
CKPT_POINTWISE_FLOPS(GeluOp, 8)
CKPT_POINTWISE_FLOPS(DropoutOp, 2)
CKPT_POINTWISE_FLOPS(DropoutGradOp, 2)
// Normalisation: max/sum/exp/divide passes over the data.
CKPT_POINTWISE_FLOPS(SoftmaxOp, 5)
CKPT_POINTWISE_FLOPS(LogSoftmaxOp, 5)
CKPT_POINTWISE_FLOPS(LayerNormOp, 8)
CKPT_POINTWISE_FLOPS(RmsNormOp, 5)
// Data movement.
CKPT_POINTWISE_FLOPS(ReshapeOp, 0)
CKPT_POINTWISE_FLOPS(TransposeOp, 0)
CKPT_POINTWISE_FLOPS(BroadcastToOp, 0)
CKPT_POINTWISE_FLOPS(SliceOp, 0)
CKPT_POINTWISE_FLOPS(ConcatOp, 0)
CKPT_POINTWISE_FLOPS(EmbeddingOp, 0)
// Backward.
CKPT_POINTWISE_FLOPS(ReluGradOp, 1)
CKPT_POINTWISE_FLOPS(AbsGradOp, 2)
CKPT_POINTWISE_FLOPS(ClampGradOp, 2)
CKPT_POINTWISE_FLOPS(SigmoidGradOp, 3)
CKPT_POINTWISE_FLOPS(TanhGradOp, 3)
CKPT_POINTWISE_FLOPS(SiluGradOp, 8)
CKPT_POINTWISE_FLOPS(GeluGradOp, 12)
CKPT_POINTWISE_FLOPS(SoftmaxGradOp, 4)
CKPT_POINTWISE_FLOPS(LogSoftmaxGradOp, 4)
CKPT_POINTWISE_FLOPS(LayerNormGradOp, 12)
CKPT_POINTWISE_FLOPS(RmsNormGradOp, 8)
CKPT_POINTWISE_FLOPS(CrossEntropyGradOp, 6)
CKPT_POINTWISE_FLOPS(MseLossGradOp, 3)
CKPT_POINTWISE_FLOPS(ReduceMaxGradOp, 3)
CKPT_POINTWISE_FLOPS(ReduceNormGradOp, 3)
CKPT_POINTWISE_FLOPS(SliceGradOp, 0)
#undef CKPT_POINTWISE_FLOPS

// Moving a counter is bookkeeping, not arithmetic on tensors.
uint64_t RngAdvanceOp::getFlops() { return 0; }

// FLOPs per element of an operand.
#define CKPT_OPERAND_FLOPS(Op, operand, factor)                                \
  uint64_t Op::getFlops() { return times(elements(operand), factor); }

CKPT_OPERAND_FLOPS(ReduceSumOp, getInput(), 1)
CKPT_OPERAND_FLOPS(ReduceMeanOp, getInput(), 1)
CKPT_OPERAND_FLOPS(ReduceMaxOp, getInput(), 1)
CKPT_OPERAND_FLOPS(ReduceNormOp, getInput(), 2)
CKPT_OPERAND_FLOPS(CrossEntropyOp, getLogits(), 5)
CKPT_OPERAND_FLOPS(MseLossOp, getInput(), 3)
CKPT_OPERAND_FLOPS(EmbeddingGradOp, getGrad(), 1)
CKPT_OPERAND_FLOPS(IndexAddOp, getSource(), 1)
CKPT_OPERAND_FLOPS(AllReduceOp, getInput(), 1)
CKPT_OPERAND_FLOPS(PrintOp, getInput(), 0)
#undef CKPT_OPERAND_FLOPS

// Vision.

/// FLOPs of the multiply-adds of a convolution: every output element of
/// `output` ([N, OC, OH, OW]) takes one per weight element of its group
/// (`weight` is [OC, C / groups, KH, KW]). The input and weight gradients
/// do the same multiply-adds in another order.
static uint64_t convFlops(RankedTensorType output, RankedTensorType weight) {
  uint64_t perOutput = getStaticElementCount(weight).value_or(0) /
                       std::max<int64_t>(weight.getDimSize(0), 1);
  return times(2 * getStaticElementCount(output).value_or(0), perOutput);
}

uint64_t Conv2dOp::getFlops() {
  uint64_t flops = convFlops(getResult().getType(), getWeight().getType());
  return getBias() ? llvm::SaturatingAdd(flops, elements(getResult())) : flops;
}

uint64_t Conv2dInputGradOp::getFlops() {
  return convFlops(getGrad().getType(), getWeight().getType());
}

uint64_t Conv2dWeightGradOp::getFlops() {
  return convFlops(getGrad().getType(), getResult().getType());
}

/// Window elements of a pooling kernel.
static uint64_t windowSize(ArrayRef<int64_t> kernel) {
  return times(kernel[0], kernel[1]);
}

// Pooling compares or adds every window element of every output element;
// the max-pooling gradient adds each output gradient once, the average
// pooling gradient spreads it over the window.
uint64_t MaxPool2dOp::getFlops() {
  return times(elements(getResult()), windowSize(getKernel()));
}
uint64_t AvgPool2dOp::getFlops() {
  return times(elements(getResult()), windowSize(getKernel()));
}
uint64_t MaxPool2dGradOp::getFlops() { return elements(getGrad()); }
uint64_t AvgPool2dGradOp::getFlops() {
  return times(elements(getGrad()), windowSize(getKernel()));
}

// Upsampling copies; its gradient adds every gradient element once.
uint64_t UpsampleNearest2dOp::getFlops() { return 0; }
uint64_t UpsampleNearest2dGradOp::getFlops() { return elements(getGrad()); }

// Batch normalisation does what layer normalisation does per element.
uint64_t BatchNormOp::getFlops() { return times(elements(getInput()), 8); }
// The centred squares of the input, summed.
uint64_t BatchNormUpdateStatsOp::getFlops() {
  return times(elements(getInput()), 3);
}
uint64_t BatchNormGradOp::getFlops() { return times(elements(getGrad()), 12); }

//===----------------------------------------------------------------------===//
// Scratch memory: the buffers each lowering (lib/Conversion/CkptToLinalg)
// allocates besides the op's results, most live at once.
//===----------------------------------------------------------------------===//

static uint64_t bytes(Value value) {
  return getStaticTensorBytes(value.getType()).value_or(0);
}

/// Bytes of one element of `type`'s compute type (f32 for 16-bit floats).
static unsigned computeWidth(RankedTensorType type) {
  return getElementByteWidth(getComputeType(type.getElementType()));
}

/// Bytes of the partials of a reduction over `reduced` of `input` where
/// getSumSplit splits it, `width` bytes each.
static uint64_t splitPartialBytes(Value input, ArrayRef<int64_t> reduced,
                                  unsigned width) {
  auto type = cast<RankedTensorType>(input.getType());
  return times(getSplitPartialCount(type.getShape(), reduced), width);
}

/// Bytes of `count` statistics per row of `value` along `dim` (one value per
/// position of the other dimensions), in the compute type (f32 for 16-bit
/// values).
static uint64_t rowStatistics(Value value, int64_t dim, uint64_t count) {
  auto type = cast<RankedTensorType>(value.getType());
  uint64_t rows = elements(value) / std::max<int64_t>(type.getDimSize(dim), 1);
  return times(times(count, rows), computeWidth(type));
}

// Softmax and log_softmax: the row maximum and the sum of exponentials.
// Long rows reduce in two stages (SumSplit.h), but their partials are freed
// before the result is allocated and are at most a 64th of its elements in
// f32, so they never raise the op's peak.
uint64_t SoftmaxOp::getScratchBytes() {
  return rowStatistics(getInput(), getDim(), 2);
}
uint64_t LogSoftmaxOp::getScratchBytes() {
  return rowStatistics(getInput(), getDim(), 2);
}
// Their gradients: one row sum (its partials, likewise, never count).
uint64_t SoftmaxGradOp::getScratchBytes() {
  return rowStatistics(getGrad(), getDim(), 1);
}
uint64_t LogSoftmaxGradOp::getScratchBytes() {
  return rowStatistics(getGrad(), getDim(), 1);
}
// Cross-entropy: the row maximum and the sum of exponentials with one of
// their partials, before the loss is allocated; then the label's logit
// too, and the partials of the sum over the rows with the loss. Its
// gradient: the first two (their partials never count, as for softmax).
// With an ignored label, both also count the rows that are not ignored, in
// one element.
static uint64_t ignoredRowCount(Value logits,
                                std::optional<int64_t> ignoreIndex) {
  if (!ignoreIndex)
    return 0;
  return getElementByteWidth(
      cast<RankedTensorType>(logits.getType()).getElementType());
}
uint64_t CrossEntropyOp::getScratchBytes() {
  auto logits = cast<RankedTensorType>(getLogits().getType());
  uint64_t loss = bytes(getResult());
  uint64_t rowPartials =
      splitPartialBytes(getLogits(), {1}, computeWidth(logits));
  uint64_t lossPartials =
      times(getSplitPartialCount({logits.getDimSize(0), 1}, {0, 1}),
            computeWidth(cast<RankedTensorType>(getType())));
  // The op's peak less its result, the loss.
  uint64_t rowPhase = rowStatistics(getLogits(), 1, 2) + rowPartials;
  uint64_t lossPhase = rowStatistics(getLogits(), 1, 3) + lossPartials + loss;
  return std::max(rowPhase, lossPhase) - loss +
         ignoredRowCount(getLogits(), getIgnoreIndex());
}
uint64_t CrossEntropyGradOp::getScratchBytes() {
  return rowStatistics(getLogits(), 1, 2) +
         ignoredRowCount(getLogits(), getIgnoreIndex());
}
// Attention: the weights of every head and their row sums (the row maxima
// become the log-sum-exp result in place). Its gradient: the weights and
// their gradients, and the row dot products of the output's gradient with
// the output.
uint64_t ScaledDotProductAttentionOp::getScratchBytes() {
  unsigned width = getElementByteWidth(getQuery().getType().getElementType());
  return times(AttentionSizes(getQuery(), getKey(), getValue()).weights,
               width) +
         bytes(getLse());
}
uint64_t ScaledDotProductAttentionGradOp::getScratchBytes() {
  unsigned width = getElementByteWidth(getQuery().getType().getElementType());
  return times(times(2, AttentionSizes(getQuery(), getKey(), getValue())
                            .weights),
               width) +
         bytes(getLse());
}
/// Bytes of one element of batch norm's per-channel sums: f32 channels are
/// summed in f64, as PyTorch's CPU kernels do.
static uint64_t channelSumWidth(Value statistic) {
  auto type = cast<RankedTensorType>(statistic.getType());
  return std::max<uint64_t>(getElementByteWidth(type.getElementType()), 8);
}
/// Bytes of one per-channel sum of batch norm.
static uint64_t channelSumBytes(Value statistic) {
  return times(elements(statistic), channelSumWidth(statistic));
}
/// Bytes of the partials of one per-channel sum of `input` (SumSplit.h),
/// in the sums' type; one sum's partials are freed before the next sum's.
static uint64_t channelSumPartialBytes(Value input, Value statistic) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> reduced;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != 1)
      reduced.push_back(d);
  return splitPartialBytes(input, reduced, channelSumWidth(statistic));
}
// batch_norm: the sums of the input and of its centred squares, and one
// sum's partials.
uint64_t BatchNormOp::getScratchBytes() {
  return times(2, channelSumBytes(getMean())) +
         channelSumPartialBytes(getInput(), getMean());
}
// Its running statistics: the sum of the centred squares again, and its
// partials.
uint64_t BatchNormUpdateStatsOp::getScratchBytes() {
  return channelSumBytes(getMean()) +
         channelSumPartialBytes(getInput(), getMean());
}
// Its gradient: sum(dy) and sum(dy (x - mean)), which become the bias and
// weight gradients in place where they are summed in the element type, and
// one sum's partials.
uint64_t BatchNormGradOp::getScratchBytes() {
  bool widened = channelSumBytes(getMean()) != bytes(getMean());
  return (widened ? times(2, channelSumBytes(getMean())) : 0) +
         channelSumPartialBytes(getInput(), getMean());
}
// The number of elements tied for the maximum, per output element.
uint64_t ReduceMaxGradOp::getScratchBytes() { return bytes(getOutput()); }

/// The dimensions a reduction of `input` over `dims` reduces: all of them
/// when absent.
static SmallVector<int64_t> reducedDims(Value input,
                                        std::optional<ArrayRef<int64_t>> dims) {
  if (dims)
    return llvm::to_vector(*dims);
  return llvm::to_vector(
      llvm::seq<int64_t>(0, cast<RankedTensorType>(input.getType()).getRank()));
}

/// The scratch of a sum over `dims` of `input` (all of them when absent)
/// into `result` (buildSplitSum): the partial sums where SumSplit.h splits
/// it, and an f32 sum of the result's shape for a 16-bit result, both in the
/// compute type.
static uint64_t sumScratchBytes(Value input,
                                std::optional<ArrayRef<int64_t>> dims,
                                Value result) {
  auto resultType = cast<RankedTensorType>(result.getType());
  return llvm::SaturatingAdd(splitPartialBytes(input, reducedDims(input, dims),
                                               computeWidth(resultType)),
                             getWidenedAccumulatorBytes(resultType));
}
uint64_t ReduceSumOp::getScratchBytes() {
  return sumScratchBytes(getInput(), getDims(), getResult());
}
uint64_t ReduceMeanOp::getScratchBytes() {
  return sumScratchBytes(getInput(), getDims(), getResult());
}
uint64_t ReduceNormOp::getScratchBytes() {
  return sumScratchBytes(getInput(), getDims(), getResult());
}
// The maximum's partials, in its element type, where it is split.
uint64_t ReduceMaxOp::getScratchBytes() {
  return splitPartialBytes(getInput(), reducedDims(getInput(), getDims()),
                           getElementByteWidth(getType().getElementType()));
}
uint64_t MseLossOp::getScratchBytes() {
  return sumScratchBytes(getInput(), std::nullopt, getResult());
}
// Normalisation gradients: the weight and bias gradients' partial sums
// over the rows, one sum's at a time, or the row sums of the shape of the
// saved statistics, which come after them, with the last one's partials
// where long rows are split (the forward ops turn their sums into mean and
// rstd in place, and batch_norm's gradient turns its sum into the weight
// gradient).
template <typename NormGradOp>
static uint64_t normGradScratch(NormGradOp op, uint64_t rowSumBytes) {
  int64_t rank = cast<RankedTensorType>(op.getInput().getType()).getRank();
  int64_t rowRank = rank - static_cast<int64_t>(op.getNormalizedShape().size());
  SmallVector<int64_t> rows = llvm::to_vector(llvm::seq<int64_t>(0, rowRank));
  SmallVector<int64_t> columns =
      llvm::to_vector(llvm::seq<int64_t>(rowRank, rank));
  uint64_t rowPartials = splitPartialBytes(
      op.getInput(), columns,
      computeWidth(cast<RankedTensorType>(op.getInput().getType())));
  return std::max(llvm::SaturatingAdd(rowSumBytes, rowPartials),
                  sumScratchBytes(op.getInput(), ArrayRef<int64_t>(rows),
                                  op.getWeightGrad()));
}
uint64_t LayerNormGradOp::getScratchBytes() {
  return normGradScratch(*this, times(2, bytes(getMean())));
}
uint64_t RmsNormGradOp::getScratchBytes() {
  return normGradScratch(*this, bytes(getRstd()));
}

/// The lowering of a convolution with kernel `weight` ([OC, C / groups,
/// KH, KW]).
static ConvAlgorithm convAlgorithm(RankedTensorType weight,
                                   ArrayRef<int64_t> stride,
                                   ArrayRef<int64_t> padding, int64_t groups) {
  bool pointwise = groups == 1 && weight.getDimSize(2) == 1 &&
                   weight.getDimSize(3) == 1 && stride[0] == 1 &&
                   stride[1] == 1 && padding[0] == 0 && padding[1] == 0;
  return pointwise ? ConvAlgorithm::Pointwise : ConvAlgorithm::Columns;
}

/// The images each product of a convolution over `image` ([N, C, H, W])
/// giving `output` takes: one for pointwise ones and unknown sizes (which
/// are not lowered).
static int64_t imagesPerProduct(ConvAlgorithm algorithm, RankedTensorType image,
                                RankedTensorType output) {
  if (algorithm != ConvAlgorithm::Columns || !image.hasStaticShape() ||
      !output.hasStaticShape())
    return 1;
  return getImagesPerProduct(image.getDimSize(0),
                             output.getDimSize(2) * output.getDimSize(3));
}

/// Bytes of the columns of `images` images: every kernel offset of every
/// input channel, for every output position (0 for unknown sizes).
static uint64_t columnBytes(RankedTensorType image, RankedTensorType weight,
                            RankedTensorType output, int64_t images) {
  if (!image.hasStaticShape() || !weight.hasStaticShape() ||
      !output.hasStaticShape())
    return 0;
  uint64_t rows = times(image.getDimSize(1),
                        times(weight.getDimSize(2), weight.getDimSize(3)));
  uint64_t positions =
      times(images, times(output.getDimSize(2), output.getDimSize(3)));
  return times(times(rows, positions),
               getElementByteWidth(image.getElementType()));
}

/// Bytes of the output block of `images` images, [OC, images * OH * OW],
/// gathered only when a product takes several (0 otherwise).
static uint64_t blockBytes(RankedTensorType output, int64_t images) {
  if (images == 1 || !output.hasStaticShape())
    return 0;
  return times(images,
               getStaticTensorBytes(output).value_or(0) / output.getDimSize(0));
}

ConvAlgorithm Conv2dOp::getAlgorithm() {
  return convAlgorithm(getWeight().getType(), getStride(), getPadding(),
                       getGroups());
}
ConvAlgorithm Conv2dInputGradOp::getAlgorithm() {
  return convAlgorithm(getWeight().getType(), getStride(), getPadding(),
                       getGroups());
}
ConvAlgorithm Conv2dWeightGradOp::getAlgorithm() {
  return convAlgorithm(getType(), getStride(), getPadding(), getGroups());
}
int64_t Conv2dOp::getImagesPerProduct() {
  return imagesPerProduct(getAlgorithm(), getInput().getType(), getType());
}
int64_t Conv2dInputGradOp::getImagesPerProduct() {
  return imagesPerProduct(getAlgorithm(), getType(), getGrad().getType());
}
int64_t Conv2dWeightGradOp::getImagesPerProduct() {
  return imagesPerProduct(getAlgorithm(), getInput().getType(),
                          getGrad().getType());
}
uint64_t Conv2dOp::getColumnBytes() {
  return columnBytes(getInput().getType(), getWeight().getType(), getType(),
                     getImagesPerProduct());
}
uint64_t Conv2dInputGradOp::getColumnBytes() {
  return columnBytes(getType(), getWeight().getType(), getGrad().getType(),
                     getImagesPerProduct());
}
uint64_t Conv2dWeightGradOp::getColumnBytes() {
  return columnBytes(getInput().getType(), getType(), getGrad().getType(),
                     getImagesPerProduct());
}
uint64_t Conv2dOp::getBlockBytes() {
  return blockBytes(getType(), getImagesPerProduct());
}
uint64_t Conv2dInputGradOp::getBlockBytes() {
  return blockBytes(getGrad().getType(), getImagesPerProduct());
}
uint64_t Conv2dWeightGradOp::getBlockBytes() {
  return blockBytes(getGrad().getType(), getImagesPerProduct());
}

// Convolutions lowered through columns: one product's columns (the forward
// and the weight gradient gather them from the images, the input gradient
// multiplies the output gradient into them before scattering them back),
// and its output block (or its gradient) when it takes several images.
template <typename ConvOp> static uint64_t columnScratch(ConvOp op) {
  if (op.getAlgorithm() != ConvAlgorithm::Columns)
    return 0;
  return op.getColumnBytes() + op.getBlockBytes();
}
uint64_t Conv2dOp::getScratchBytes() { return columnScratch(*this); }
uint64_t Conv2dInputGradOp::getScratchBytes() { return columnScratch(*this); }
uint64_t Conv2dWeightGradOp::getScratchBytes() { return columnScratch(*this); }

/// The [KH, KW] tensor that gives a pooling generic its window loops.
static uint64_t windowBytes(ArrayRef<int64_t> kernel, Value result) {
  return times(windowSize(kernel),
               getElementByteWidth(
                   cast<ShapedType>(result.getType()).getElementType()));
}

uint64_t MaxPool2dOp::getScratchBytes() {
  return windowBytes(getKernel(), getResult());
}
uint64_t AvgPool2dOp::getScratchBytes() {
  return windowBytes(getKernel(), getResult());
}
// Max pooling's gradient adds window offset by window offset, no loops
// over a window tensor.
uint64_t MaxPool2dGradOp::getScratchBytes() { return 0; }
uint64_t AvgPool2dGradOp::getScratchBytes() {
  return windowBytes(getKernel(), getResult());
}
