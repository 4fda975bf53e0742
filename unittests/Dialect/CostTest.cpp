//===- CostTest.cpp - FLOP and byte counts of ops -------------------------===//
//
// Costs of a few ops against counts written out by hand.
//
//===----------------------------------------------------------------------===//

#include "FunctionBuilder.h"

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
  EXPECT_EQ(cast<ckpt::CostOpInterface>(reshape.getOperation()).getFlops(),
            0u);
}

} // namespace
