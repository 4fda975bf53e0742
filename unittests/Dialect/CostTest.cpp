//===- CostTest.cpp - FLOP and byte counts of ops -------------------------===//
//
// Costs of a few ops against counts written out by hand.
//
//===----------------------------------------------------------------------===//

#include "FunctionBuilder.h"

#include "ckpt/Dialect/Ckpt/IR/SumSplit.h"

using namespace mlir;

namespace {

using CostTest = FunctionBuilderTest;

TEST_F(CostTest, BatchedMatmulCountsTwoFlopsPerMultiplyAdd) {
  // [3, 4, 5] x [5, 6]: 3 batches of 4 x 6 outputs, 5 multiply-adds each.
  ValueRange args = arguments({f32({3, 4, 5}), f32({5, 6})});
  auto matmul = ckpt::MatmulOp::create(builder, builder.getUnknownLoc(),
                                       args[0], args[1]);
  auto cost = cast<ckpt::CostOpInterface>(matmul.getOperation());
  EXPECT_EQ(cost.getFlops(), 2u * 3 * 4 * 6 * 5);
  EXPECT_EQ(cost.getBytesRead(), (3u * 4 * 5 + 5 * 6) * 4);
  EXPECT_EQ(cost.getBytesWritten(), 3u * 4 * 6 * 4);
}

TEST_F(CostTest, LinearAddsTheBias) {
  // [2, 3, 8] x [16, 8]^T + [16]: 6 rows, 16 outputs, 8 multiply-adds, and
  // one bias add per output.
  ValueRange args = arguments({f32({2, 3, 8}), f32({16, 8}), f32({16})});
  auto linear = ckpt::LinearOp::create(builder, builder.getUnknownLoc(),
                                       args[0], args[1], args[2]);
  auto cost = cast<ckpt::CostOpInterface>(linear.getOperation());
  EXPECT_EQ(cost.getFlops(), 2u * 6 * 16 * 8 + 6 * 16);
}

TEST_F(CostTest, PointwiseOpsScaleByElements) {
  ValueRange args = arguments({f32({10, 10})});
  Location loc = builder.getUnknownLoc();
  auto gelu = ckpt::GeluOp::create(builder, loc, args[0]);
  auto reshape = ckpt::ReshapeOp::create(builder, loc, f32({100}), args[0]);
  EXPECT_EQ(cast<ckpt::CostOpInterface>(gelu.getOperation()).getFlops(), 800u);
  EXPECT_EQ(cast<ckpt::CostOpInterface>(reshape.getOperation()).getFlops(), 0u);
}

TEST_F(CostTest, ConvolutionCountsMultiplyAddsPerGroup) {
  // [2, 4, 9, 9] * [6, 2, 3, 3] in 2 groups, stride 2, padding 1:
  // [2, 6, 5, 5] outputs, each 2 * 3 * 3 multiply-adds (its group's input
  // channels), plus one bias add per output. The input and weight
  // gradients do the same multiply-adds.
  ValueRange args = arguments(
      {f32({2, 4, 9, 9}), f32({6, 2, 3, 3}), f32({6}), f32({2, 6, 5, 5})});
  Location loc = builder.getUnknownLoc();
  auto stride = builder.getDenseI64ArrayAttr({2, 2});
  auto padding = builder.getDenseI64ArrayAttr({1, 1});
  auto dilation = builder.getDenseI64ArrayAttr({1, 1});
  auto groups = builder.getI64IntegerAttr(2);
  auto conv = ckpt::Conv2dOp::create(builder, loc, args[0], args[1], args[2],
                                     stride, padding, dilation, groups);
  ASSERT_EQ(conv.getType(), f32({2, 6, 5, 5}));
  uint64_t multiplyAdds = 2u * 6 * 5 * 5 * (2 * 3 * 3);
  EXPECT_EQ(cast<ckpt::CostOpInterface>(conv.getOperation()).getFlops(),
            2 * multiplyAdds + 2 * 6 * 5 * 5);
  auto inputGrad = ckpt::Conv2dInputGradOp::create(
      builder, loc, f32({2, 4, 9, 9}), args[3], args[1], stride, padding,
      dilation, groups);
  auto weightGrad = ckpt::Conv2dWeightGradOp::create(
      builder, loc, f32({6, 2, 3, 3}), args[3], args[0], stride, padding,
      dilation, groups);
  EXPECT_EQ(cast<ckpt::CostOpInterface>(inputGrad.getOperation()).getFlops(),
            2 * multiplyAdds);
  EXPECT_EQ(cast<ckpt::CostOpInterface>(weightGrad.getOperation()).getFlops(),
            2 * multiplyAdds);
}

TEST_F(CostTest, ConvolutionColumnsAreScratch) {
  // [N, 4, 9, 9] * [6, 2, 3, 3] in 2 groups, stride 2, padding 1: an
  // image's columns hold every kernel offset of every input channel
  // (4 * 3 * 3 rows) for each of the 5 * 5 output positions. 1x1 kernels
  // at stride 1 without padding in one group multiply the images
  // themselves, with no scratch.
  Location loc = builder.getUnknownLoc();
  auto ones = builder.getDenseI64ArrayAttr({1, 1});
  auto stride = builder.getDenseI64ArrayAttr({2, 2});
  auto zeros = builder.getDenseI64ArrayAttr({0, 0});
  auto scratch = [](Operation *op) {
    return cast<ckpt::CostOpInterface>(op).getScratchBytes();
  };
  struct Case {
    int64_t images, kernel, groups;
    DenseI64ArrayAttr stride, padding;
    ckpt::ConvAlgorithm algorithm;
    int64_t imagesPerProduct;
    uint64_t columnBytes, blockBytes;
  };
  auto columns = ckpt::ConvAlgorithm::Columns;
  auto pointwise = ckpt::ConvAlgorithm::Pointwise;
  // [N, 4, 9, 9] into 6 channels: 25 output positions at stride 2, 81
  // without. A product takes the most images that divide the batch within
  // 128 positions: 2 of 2, 5 of 65 (13 would be 325), 1 at 81 positions;
  // with several, their columns and their [6, images * positions] output
  // block.
  for (Case c : {
           Case{2, 3, 2, stride, ones, columns, 2, 4u * 3 * 3 * 2 * 25 * 4,
                6u * 2 * 25 * 4},
           Case{65, 3, 2, stride, ones, columns, 5, 4u * 3 * 3 * 5 * 25 * 4,
                6u * 5 * 25 * 4},
           Case{2, 1, 1, ones, zeros, pointwise, 1, 4u * 81 * 4, 0},
           Case{65, 1, 1, ones, zeros, pointwise, 1, 4u * 81 * 4, 0},
           // A 1x1 kernel in groups, or with a stride, takes columns.
           Case{2, 1, 2, ones, zeros, columns, 1, 4u * 81 * 4, 0},
           Case{2, 1, 1, stride, zeros, columns, 2, 4u * 2 * 25 * 4,
                6u * 2 * 25 * 4},
       }) {
    SCOPED_TRACE(testing::Message() << c.images << " images, kernel "
                                    << c.kernel << ", groups " << c.groups);
    ValueRange args = arguments(
        {f32({c.images, 4, 9, 9}), f32({6, 4 / c.groups, c.kernel, c.kernel})});
    auto groups = builder.getI64IntegerAttr(c.groups);
    auto conv = ckpt::Conv2dOp::create(builder, loc, args[0], args[1], Value(),
                                       c.stride, c.padding, ones, groups);
    auto inputGrad = ckpt::Conv2dInputGradOp::create(
        builder, loc, args[0].getType(), conv, args[1], c.stride, c.padding,
        ones, groups);
    auto weightGrad = ckpt::Conv2dWeightGradOp::create(
        builder, loc, args[1].getType(), conv, args[0], c.stride, c.padding,
        ones, groups);
    EXPECT_EQ(conv.getAlgorithm(), c.algorithm);
    EXPECT_EQ(inputGrad.getAlgorithm(), c.algorithm);
    EXPECT_EQ(weightGrad.getAlgorithm(), c.algorithm);
    EXPECT_EQ(conv.getImagesPerProduct(), c.imagesPerProduct);
    EXPECT_EQ(inputGrad.getImagesPerProduct(), c.imagesPerProduct);
    EXPECT_EQ(weightGrad.getImagesPerProduct(), c.imagesPerProduct);
    uint64_t expected =
        c.algorithm == columns ? c.columnBytes + c.blockBytes : 0;
    for (Operation *op : {conv.getOperation(), inputGrad.getOperation(),
                          weightGrad.getOperation()})
      EXPECT_EQ(scratch(op), expected);
    EXPECT_EQ(conv.getColumnBytes(), c.columnBytes);
    EXPECT_EQ(inputGrad.getColumnBytes(), c.columnBytes);
    EXPECT_EQ(weightGrad.getColumnBytes(), c.columnBytes);
    EXPECT_EQ(conv.getBlockBytes(), c.blockBytes);
    EXPECT_EQ(inputGrad.getBlockBytes(), c.blockBytes);
    EXPECT_EQ(weightGrad.getBlockBytes(), c.blockBytes);
  }
}

TEST_F(CostTest, PoolingCountsTheWindow) {
  // Kernel 3 x 3, stride 2, padding 1 over [2, 4, 9, 9]: [2, 4, 5, 5]
  // outputs of 9 window elements each. The max-pooling gradient adds each
  // output gradient once; the average-pooling gradient spreads it over the
  // window; upsampling copies and its gradient adds each element once.
  ValueRange args =
      arguments({f32({2, 4, 9, 9}), f32({2, 4, 5, 5}), f32({2, 4, 18, 18})});
  Location loc = builder.getUnknownLoc();
  auto kernel = builder.getDenseI64ArrayAttr({3, 3});
  auto stride = builder.getDenseI64ArrayAttr({2, 2});
  auto padding = builder.getDenseI64ArrayAttr({1, 1});
  auto maxPool =
      ckpt::MaxPool2dOp::create(builder, loc, args[0], kernel, stride, padding);
  auto floor = builder.getBoolAttr(false);
  auto avgPool =
      ckpt::AvgPool2dOp::create(builder, loc, args[0], kernel, stride, padding,
                                floor, builder.getBoolAttr(false));
  auto maxGrad = ckpt::MaxPool2dGradOp::create(builder, loc, f32({2, 4, 9, 9}),
                                               args[1], maxPool.getIndices(),
                                               kernel, stride, padding);
  auto avgGrad = ckpt::AvgPool2dGradOp::create(
      builder, loc, f32({2, 4, 9, 9}), args[1], kernel, stride, padding, floor,
      builder.getBoolAttr(true));
  auto upsample = ckpt::UpsampleNearest2dOp::create(
      builder, loc, args[0], builder.getDenseI64ArrayAttr({2, 2}));
  auto upsampleGrad = ckpt::UpsampleNearest2dGradOp::create(
      builder, loc, args[2], builder.getDenseI64ArrayAttr({2, 2}));
  uint64_t outputs = 2u * 4 * 5 * 5;
  auto flops = [](Operation *op) {
    return cast<ckpt::CostOpInterface>(op).getFlops();
  };
  EXPECT_EQ(flops(maxPool), outputs * 9);
  EXPECT_EQ(flops(avgPool), outputs * 9);
  EXPECT_EQ(flops(maxGrad), outputs);
  EXPECT_EQ(flops(avgGrad), outputs * 9);
  EXPECT_EQ(flops(upsample), 0u);
  EXPECT_EQ(flops(upsampleGrad), 2u * 4 * 18 * 18);
  // Indices are 8 bytes each.
  EXPECT_EQ(
      cast<ckpt::CostOpInterface>(maxPool.getOperation()).getBytesWritten(),
      outputs * 4 + outputs * 8);
  // The lowering's [3, 3] window tensor is scratch; the max-pooling
  // gradient, added window offset by window offset, and upsampling have
  // none.
  auto scratch = [](Operation *op) {
    return cast<ckpt::CostOpInterface>(op).getScratchBytes();
  };
  for (Operation *op :
       {maxPool.getOperation(), avgPool.getOperation(), avgGrad.getOperation()})
    EXPECT_EQ(scratch(op), 9u * 4);
  EXPECT_EQ(scratch(maxGrad), 0u);
  EXPECT_EQ(scratch(upsample), 0u);
}

TEST_F(CostTest, RowStatisticsAreScratch) {
  // [6, 5] logits or scores, rows along dimension 1: softmax keeps the
  // maximum and the sum of exponentials per row (2 * 6 * 4 B), its gradient
  // one sum, cross-entropy also the label's logit.
  ValueRange args = arguments(
      {f32({6, 5}), RankedTensorType::get({6}, builder.getI64Type())});
  Location loc = builder.getUnknownLoc();
  auto scratch = [](Operation *op) {
    return cast<ckpt::CostOpInterface>(op).getScratchBytes();
  };
  auto softmax = ckpt::SoftmaxOp::create(builder, loc, args[0], 1);
  auto softmaxGrad =
      ckpt::SoftmaxGradOp::create(builder, loc, args[0], softmax, 1);
  auto crossEntropy = ckpt::CrossEntropyOp::create(builder, loc, args[0],
                                                   args[1], IntegerAttr());
  auto ignoring = ckpt::CrossEntropyOp::create(builder, loc, args[0], args[1],
                                               builder.getI64IntegerAttr(-100));
  EXPECT_EQ(scratch(softmax), 2u * 6 * 4);
  EXPECT_EQ(scratch(softmaxGrad), 6u * 4);
  EXPECT_EQ(scratch(crossEntropy), 3u * 6 * 4);
  // The count of rows not ignored: one more element.
  EXPECT_EQ(scratch(ignoring), 3u * 6 * 4 + 4);
}

// Long rows are reduced in two stages (SumSplit.h), one reduction's
// partials at a time, freed before the op's results are allocated: softmax
// over [8, 512, 512] keeps 8 partials per row (4096 rows), cross-entropy
// over [1024, 50257] 29 per row (the largest divisor of 50257 up to 64
// partials per row), and cross-entropy over [131072, 8] splits the sum over
// its rows instead, into 1024 partials, with its 4-byte loss allocated.
// Partials count as far as they exceed the results: never for the row
// reductions with their full-size results, all but the loss for
// cross-entropy, whose label's logit is summed in one sequence per row
// after them.
TEST_F(CostTest, LongRowsKeepOneReductionsPartials) {
  RankedTensorType i64 = RankedTensorType::get({1024}, builder.getI64Type());
  ValueRange args =
      arguments({f32({8, 512, 512}), f32({1024, 50257}), i64, f32({131072, 8}),
                 RankedTensorType::get({131072}, builder.getI64Type())});
  Location loc = builder.getUnknownLoc();
  auto scratch = [](Operation *op) {
    return cast<ckpt::CostOpInterface>(op).getScratchBytes();
  };
  auto softmax = ckpt::SoftmaxOp::create(builder, loc, args[0], 2);
  auto logSoftmaxGrad =
      ckpt::LogSoftmaxGradOp::create(builder, loc, args[0], softmax, 2);
  auto rowMax = ckpt::ReduceMaxOp::create(
      builder, loc, args[0], builder.getDenseI64ArrayAttr({2}), true);
  auto wide = ckpt::CrossEntropyOp::create(builder, loc, args[1], args[2],
                                           IntegerAttr());
  auto wideGrad = ckpt::CrossEntropyGradOp::create(builder, loc, wide, args[1],
                                                   args[2], IntegerAttr());
  auto tall = ckpt::CrossEntropyOp::create(builder, loc, args[3], args[4],
                                           IntegerAttr());
  EXPECT_EQ(scratch(softmax), 2u * 4096 * 4);
  EXPECT_EQ(scratch(logSoftmaxGrad), 4096u * 4);
  EXPECT_EQ(scratch(rowMax), 4096u * 8 * 4);
  EXPECT_EQ(scratch(wide), 2u * 1024 * 4 + 1024 * 29 * 4 - 4);
  EXPECT_EQ(scratch(wideGrad), 2u * 1024 * 4);
  EXPECT_EQ(scratch(tall), (3u * 131072 + 1024) * 4);
}

// The split of a sum against a brute-force search: the trailing reduced
// dimensions whole and the largest divisor of the next that keeps at most
// kMostPartialSums partials per result, kMostPartialSumsInAll in all, and
// kShortestPartialSum elements in each; none below kSplitSumMinimum
// elements, kFewestPartialSumsPerResult partials per result or
// kFewestPartialSums in all.
TEST(SumSplitTest, MostPartialsFromTheTrailingDimensions) {
  using Dims = std::vector<int64_t>;
  std::vector<std::pair<Dims, Dims>> sums = {{{8, 512, 512}, {0, 1, 2}},
                                             {{256, 300}, {0, 1}},
                                             {{65535}, {0}},
                                             {{65537}, {0}},
                                             {{100, 100}, {0, 1}},
                                             {{2048, 50257}, {0, 1}},
                                             {{64, 1024}, {0, 1}},
                                             {{1 << 20}, {0}},
                                             {{3, 7, 4096}, {0, 1, 2}},
                                             {{16, 4096, 1}, {0, 1, 2}},
                                             {{4096, 16}, {0, 1}},
                                             {{1, 70000}, {0, 1}},
                                             {{131072, 1}, {0, 1}},
                                             {{8, 512, 512}, {0, 1}},
                                             {{8, 512, 512}, {2}},
                                             {{8, 64, 32, 32}, {0, 2, 3}},
                                             {{4096, 768}, {0}},
                                             {{2048, 50257}, {0}},
                                             {{3, 4096, 7}, {1}},
                                             {{512, 256, 2}, {0, 2}},
                                             {{16, 16}, {0}},
                                             {{1024, 1024}, {1}},
                                             {{2, 64, 512}, {0, 1}},
                                             {{1024, 512}, {0}}};
  for (const auto &[shape, dims] : sums) {
    int64_t elements = 1, results = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      elements *= shape[d];
      if (!llvm::is_contained(dims, int64_t(d)))
        results *= shape[d];
    }
    int64_t limit =
        std::min({ckpt::kMostPartialSums, ckpt::kMostPartialSumsInAll / results,
                  elements / results / ckpt::kShortestPartialSum});
    // The oracle: every reduced (dim, factor) whose later reduced
    // dimensions are whole, keeping the most partials within the limit.
    int64_t bestPartials = 0;
    for (int64_t dim : dims) {
      int64_t later = 1;
      for (int64_t d : dims)
        if (d > dim)
          later *= shape[d];
      for (int64_t factor = 1; factor <= shape[dim]; ++factor)
        if (shape[dim] % factor == 0 && later * factor <= limit)
          bestPartials = std::max(bestPartials, later * factor);
    }
    std::optional<ckpt::SumSplit> split = ckpt::getSumSplit(shape, dims);
    bool expectSplit = elements >= ckpt::kSplitSumMinimum &&
                       bestPartials >= ckpt::kFewestPartialSumsPerResult &&
                       results * bestPartials >= ckpt::kFewestPartialSums;
    ASSERT_EQ(split.has_value(), expectSplit)
        << shape.size() << " dims, " << dims.size() << " reduced";
    if (!split)
      continue;
    int64_t partials = 1;
    for (int64_t size : split->partialShape)
      partials *= size;
    EXPECT_EQ(partials, results * bestPartials);
    EXPECT_TRUE(llvm::is_contained(dims, split->dim));
    EXPECT_EQ(shape[split->dim] % split->factor, 0);
    Dims expectedShape;
    for (int64_t d = 0; d < split->dim; ++d)
      if (!llvm::is_contained(dims, d))
        expectedShape.push_back(shape[d]);
    expectedShape.push_back(split->factor);
    expectedShape.insert(expectedShape.end(), shape.begin() + split->dim + 1,
                         shape.end());
    EXPECT_TRUE(llvm::equal(split->partialShape, expectedShape));
  }
  // [8, 512, 512]: the last dimension whole and 2 of the middle one's 512.
  std::optional<ckpt::SumSplit> mlp =
      ckpt::getSumSplit({8, 512, 512}, {0, 1, 2});
  ASSERT_TRUE(mlp);
  EXPECT_EQ(mlp->dim, 1);
  EXPECT_EQ(mlp->factor, 2);
  // A bias gradient's columns: 64 partial sums of 64 rows for each of 512.
  std::optional<ckpt::SumSplit> bias = ckpt::getSumSplit({8, 512, 512}, {0, 1});
  ASSERT_TRUE(bias);
  EXPECT_EQ(bias->dim, 1);
  EXPECT_TRUE(llvm::equal(bias->partialShape, Dims{64, 512}));
  // A convolution's bias gradient: the channels, 4 of the rows, the columns.
  std::optional<ckpt::SumSplit> conv =
      ckpt::getSumSplit({8, 64, 32, 32}, {0, 2, 3});
  ASSERT_TRUE(conv);
  EXPECT_TRUE(llvm::equal(conv->partialShape, Dims{64, 4, 32}));
  // A prime dimension of 50257 gives 1 partial with the logits' rows
  // behind it: not split. Rows of 64 are one partial sum's worth each;
  // columns of 128 two, too few for a second stage.
  EXPECT_FALSE(ckpt::getSumSplit({2048, 50257}, {0, 1}));
  EXPECT_FALSE(ckpt::getSumSplit({1024, 64}, {1}));
  EXPECT_FALSE(ckpt::getSumSplit({2, 64, 512}, {0, 1}));
}

// The partials of a split sum are the reductions' and mse_loss's scratch:
// 1024 f32 for all of [8, 512, 512], 64 x 512 for its columns; none for the
// maximum or a small tensor.
TEST_F(CostTest, SplitSumsKeepPartialSums) {
  ValueRange args =
      arguments({f32({8, 512, 512}), f32({8, 512, 512}), f32({8, 512})});
  Location loc = builder.getUnknownLoc();
  auto scratch = [](Operation *op) {
    return cast<ckpt::CostOpInterface>(op).getScratchBytes();
  };
  auto mean = ckpt::ReduceMeanOp::create(builder, loc, args[0],
                                         DenseI64ArrayAttr(), false);
  auto allDims = ckpt::ReduceSumOp::create(
      builder, loc, args[0], builder.getDenseI64ArrayAttr({2, 0, 1}), true);
  auto someDims = ckpt::ReduceSumOp::create(
      builder, loc, args[0], builder.getDenseI64ArrayAttr({0, 1}), false);
  auto norm = ckpt::ReduceNormOp::create(builder, loc, args[0],
                                         DenseI64ArrayAttr(), false);
  auto max = ckpt::ReduceMaxOp::create(builder, loc, args[0],
                                       DenseI64ArrayAttr(), false);
  auto mse = ckpt::MseLossOp::create(builder, loc, args[0], args[1]);
  auto small = ckpt::MseLossOp::create(builder, loc, args[2], args[2]);
  EXPECT_EQ(scratch(mean), 1024u * 4);
  EXPECT_EQ(scratch(allDims), 1024u * 4);
  EXPECT_EQ(scratch(norm), 1024u * 4);
  EXPECT_EQ(scratch(mse), 1024u * 4);
  EXPECT_EQ(scratch(someDims), 64u * 512 * 4);
  EXPECT_EQ(scratch(max), 1024u * 4);
  EXPECT_EQ(scratch(small), 0u);
}

// 16-bit products and sums accumulate in f32 tensors of their results'
// shape, and split sums keep f32 partials: the same 1024 partials as f32
// above, and one f32 sum; row statistics are f32.
TEST_F(CostTest, HalfFloatsCountTheirF32Accumulators) {
  ValueRange args =
      arguments({bf16({2, 3, 8}), bf16({16, 8}), bf16({16}),
                 bf16({8, 512, 512}), f32({2, 3, 8}), f32({16, 8})});
  Location loc = builder.getUnknownLoc();
  auto scratch = [](Operation *op) {
    return cast<ckpt::CostOpInterface>(op).getScratchBytes();
  };
  auto linear = ckpt::LinearOp::create(builder, loc, args[0], args[1], args[2]);
  auto matmul = ckpt::MatmulOp::create(
      builder, loc, args[0],
      ckpt::TransposeOp::create(builder, loc, args[1],
                                builder.getDenseI64ArrayAttr({1, 0})));
  auto wide = ckpt::LinearOp::create(builder, loc, args[4], args[5], Value());
  auto rows = ckpt::ReduceSumOp::create(
      builder, loc, args[0], builder.getDenseI64ArrayAttr({2}), false);
  auto mean = ckpt::ReduceMeanOp::create(builder, loc, args[3],
                                         DenseI64ArrayAttr(), false);
  EXPECT_EQ(scratch(linear), 2u * 3 * 16 * 4);
  EXPECT_EQ(scratch(matmul), 2u * 3 * 16 * 4);
  EXPECT_EQ(scratch(wide), 0u);
  EXPECT_EQ(scratch(rows), 2u * 3 * 4);
  EXPECT_EQ(scratch(mean), 1024u * 4 + 4);
  // Softmax's two statistics per row, in f32.
  auto softmax = ckpt::SoftmaxOp::create(builder, loc, args[0], 2);
  EXPECT_EQ(scratch(softmax), 2u * 6 * 4);
}

// The normalisation gradients' scratch: the larger of their row sums and
// one weight or bias gradient's partials over the rows ([512, 300]: 8
// partials of 64 rows per column, 9600 bytes against 2 x 2048).
TEST_F(CostTest, NormGradientsKeepTheLargerScratch) {
  ValueRange args = arguments(
      {f32({512, 300}), f32({512, 1}), f32({300}), f32({8, 300}), f32({8, 1})});
  Location loc = builder.getUnknownLoc();
  auto scratch = [](Operation *op) {
    return cast<ckpt::CostOpInterface>(op).getScratchBytes();
  };
  auto shape = builder.getDenseI64ArrayAttr({300});
  auto layerNorm = ckpt::LayerNormGradOp::create(
      builder, loc, args[0], args[0], args[1], args[1], args[2], shape);
  auto rmsNorm = ckpt::RmsNormGradOp::create(builder, loc, args[0], args[0],
                                             args[1], args[2], shape);
  auto fewRows = ckpt::LayerNormGradOp::create(
      builder, loc, args[3], args[3], args[4], args[4], args[2], shape);
  EXPECT_EQ(scratch(layerNorm), 8u * 300 * 4);
  EXPECT_EQ(scratch(rmsNorm), 8u * 300 * 4);
  EXPECT_EQ(scratch(fewRows), 2u * 8 * 4);
}

TEST_F(CostTest, BatchNormScalesByElements) {
  ValueRange args = arguments({f32({8, 4, 5, 5}), f32({4})});
  Location loc = builder.getUnknownLoc();
  auto norm = ckpt::BatchNormOp::create(builder, loc, args[0], args[1], Value(),
                                        builder.getF64FloatAttr(1e-5));
  auto update = ckpt::BatchNormUpdateStatsOp::create(
      builder, loc, args[0], norm.getMean(), args[1], args[1],
      builder.getF64FloatAttr(0.1));
  auto grad = ckpt::BatchNormGradOp::create(
      builder, loc, args[0], args[0], norm.getMean(), norm.getRstd(), args[1]);
  auto costs = [](Operation *op) { return cast<ckpt::CostOpInterface>(op); };
  EXPECT_EQ(costs(norm).getFlops(), 8u * 8 * 4 * 5 * 5);
  EXPECT_EQ(costs(update).getFlops(), 3u * 8 * 4 * 5 * 5);
  EXPECT_EQ(costs(grad).getFlops(), 12u * 8 * 4 * 5 * 5);
  // f32 channel sums run in f64: two of them, one, and two.
  EXPECT_EQ(costs(norm).getScratchBytes(), 2u * 4 * 8);
  EXPECT_EQ(costs(update).getScratchBytes(), 4u * 8);
  EXPECT_EQ(costs(grad).getScratchBytes(), 2u * 4 * 8);
}

TEST_F(CostTest, BatchNormCountsOneSumsPartials) {
  // 8x64x32x32: 8192 elements per channel, summed as 4 parts of the rows
  // times the 32 columns, 128 f64 partials per channel, 64 KiB in all.
  ValueRange args =
      arguments({f32({8, 64, 32, 32}), f32({64}), f64({8, 64, 32, 32})});
  Location loc = builder.getUnknownLoc();
  auto eps = builder.getF64FloatAttr(1e-5);
  auto norm =
      ckpt::BatchNormOp::create(builder, loc, args[0], args[1], Value(), eps);
  auto update = ckpt::BatchNormUpdateStatsOp::create(
      builder, loc, args[0], norm.getMean(), args[1], args[1],
      builder.getF64FloatAttr(0.1));
  auto grad = ckpt::BatchNormGradOp::create(
      builder, loc, args[0], args[0], norm.getMean(), norm.getRstd(), args[1]);
  auto wide =
      ckpt::BatchNormOp::create(builder, loc, args[2], Value(), Value(), eps);
  auto wideGrad = ckpt::BatchNormGradOp::create(
      builder, loc, args[2], args[2], wide.getMean(), wide.getRstd(), Value());
  auto scratch = [](Operation *op) {
    return cast<ckpt::CostOpInterface>(op).getScratchBytes();
  };
  uint64_t partials = 64u * 4 * 32 * 8, sum = 64u * 8;
  EXPECT_EQ(scratch(norm), 2 * sum + partials);
  EXPECT_EQ(scratch(update), sum + partials);
  EXPECT_EQ(scratch(grad), 2 * sum + partials);
  EXPECT_EQ(scratch(wide), 2 * sum + partials);
  // f64 sums are the gradient's own results: only the partials.
  EXPECT_EQ(scratch(wideGrad), partials);
}

} // namespace
