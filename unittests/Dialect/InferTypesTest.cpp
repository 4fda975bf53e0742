//===- InferTypesTest.cpp - result types built through the C++ API --------===//
//
// Passes build ckpt ops without spelling result types; these tests check the
// inferred types against small independent reference implementations of
// the PyTorch shape rules, on random shapes from a fixed seed.
//
//===----------------------------------------------------------------------===//

#include "FunctionBuilder.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>

using namespace mlir;
using Shape = SmallVector<int64_t>;

namespace {

/// NumPy broadcasting, written out from the rule: align right, equal sizes
/// stay, a 1 stretches, anything else is an error.
std::optional<Shape> referenceBroadcast(ArrayRef<int64_t> a,
                                        ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[rank - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

class InferTypesTest : public FunctionBuilderTest {
protected:
  InferTypesTest() : rng(20261129) {}

  Shape randomShape(size_t minRank, size_t maxRank) {
    std::uniform_int_distribution<size_t> rank(minRank, maxRank);
    std::uniform_int_distribution<size_t> pick(0, 3);
    const int64_t sizes[] = {1, 2, 3, 5};
    Shape shape(rank(rng));
    for (int64_t &d : shape)
      d = sizes[pick(rng)];
    return shape;
  }

  /// Verifies `op` and returns the text of the first error, if any.
  std::string verifyError(Operation *op) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (message.empty())
        message = diag.str();
      return success();
    });
    (void)verify(op);
    return message;
  }

  std::mt19937_64 rng;
};

TEST_F(InferTypesTest, BinaryOpsBroadcastLikeNumPy) {
  int compatible = 0, incompatible = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Shape a = randomShape(0, 4), b = randomShape(0, 4);
    ValueRange args = arguments({f32(a), f32(b)});
    Location loc = builder.getUnknownLoc();
    std::optional<Shape> expected = referenceBroadcast(a, b);
    if (expected) {
      ++compatible;
      auto add = ckpt::AddOp::create(builder, loc, args[0], args[1]);
      EXPECT_EQ(add.getType(), f32(*expected));
      EXPECT_TRUE(succeeded(verify(add)));
      continue;
    }
    ++incompatible;
    OperationState state(loc, ckpt::MulOp::getOperationName());
    state.addOperands(args);
    state.addTypes(f32(a));
    Operation *mul = builder.create(state);
    EXPECT_NE(verifyError(mul).find("do not broadcast"), std::string::npos);
  }
  // The generator must exercise both outcomes for the test to mean anything.
  EXPECT_GT(compatible, 50);
  EXPECT_GT(incompatible, 50);
}

TEST_F(InferTypesTest, MatmulBroadcastsBatchDimensions) {
  for (int trial = 0; trial < 200; ++trial) {
    Shape batchA = randomShape(0, 2), batchB = randomShape(0, 2);
    std::optional<Shape> batch = referenceBroadcast(batchA, batchB);
    if (!batch)
      continue;
    Shape a = batchA, b = batchB;
    a.append({4, 6});
    b.append({6, 7});
    ValueRange args = arguments({f32(a), f32(b)});
    auto matmul =
        ckpt::MatmulOp::create(builder, builder.getUnknownLoc(), args[0], args[1]);
    Shape expected = *batch;
    expected.append({4, 7});
    EXPECT_EQ(matmul.getType(), f32(expected));
  }
}

TEST_F(InferTypesTest, LinearReplacesLastDimensionByOutFeatures) {
  for (int trial = 0; trial < 50; ++trial) {
    Shape input = randomShape(0, 3);
    input.push_back(16);
    ValueRange args = arguments({f32(input), f32({24, 16}), f32({24})});
    auto linear = ckpt::LinearOp::create(builder, builder.getUnknownLoc(),
                                         args[0], args[1], args[2]);
    Shape expected(input.begin(), input.end() - 1);
    expected.push_back(24);
    EXPECT_EQ(linear.getType(), f32(expected));
  }
}

TEST_F(InferTypesTest, LinearNamesMismatchedFeatures) {
  ValueRange args = arguments({f32({4, 8}), f32({16, 9})});
  OperationState state(builder.getUnknownLoc(),
                       ckpt::LinearOp::getOperationName());
  state.addOperands(args);
  state.addTypes(f32({4, 16}));
  Operation *linear = builder.create(state);
  EXPECT_EQ(verifyError(linear), "'ckpt.linear' op input features (8) do not "
                                 "match weight columns (9)");
}

TEST_F(InferTypesTest, ReductionsDropOrKeepReducedDimensions) {
  for (int trial = 0; trial < 200; ++trial) {
    Shape input = randomShape(1, 4);
    SmallVector<int64_t> dims;
    for (int64_t d = 0, e = input.size(); d < e; ++d)
      if (rng() % 2)
        dims.push_back(d);
    std::shuffle(dims.begin(), dims.end(), rng);
    bool keepdim = rng() % 2;
    ValueRange args = arguments({f32(input)});
    auto sum = ckpt::ReduceSumOp::create(
        builder, builder.getUnknownLoc(), args[0],
        builder.getDenseI64ArrayAttr(dims), keepdim);
    Shape expected;
    for (int64_t d = 0, e = input.size(); d < e; ++d) {
      bool reduced = llvm::is_contained(dims, d);
      if (!reduced)
        expected.push_back(input[d]);
      else if (keepdim)
        expected.push_back(1);
    }
    EXPECT_EQ(sum.getType(), f32(expected));
  }
}

TEST_F(InferTypesTest, TransposeFollowsPermutation) {
  for (int trial = 0; trial < 100; ++trial) {
    Shape input = randomShape(1, 5);
    SmallVector<int64_t> perm(input.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    ValueRange args = arguments({f32(input)});
    auto transpose = ckpt::TransposeOp::create(builder, builder.getUnknownLoc(),
                                               args[0], perm);
    Shape expected;
    for (int64_t p : perm)
      expected.push_back(input[p]);
    EXPECT_EQ(transpose.getType(), f32(expected));
  }
}

TEST_F(InferTypesTest, LayerNormStatisticsKeepLeadingDimensions) {
  ValueRange args = arguments({f32({8, 64, 32, 16}), f32({32, 16})});
  auto norm = ckpt::LayerNormOp::create(
      builder, builder.getUnknownLoc(), args[0], args[1], /*bias=*/Value(),
      ArrayRef<int64_t>{32, 16}, llvm::APFloat(1e-5));
  EXPECT_EQ(norm.getResult().getType(), f32({8, 64, 32, 16}));
  EXPECT_EQ(norm.getMean().getType(), f32({8, 64, 1, 1}));
  EXPECT_EQ(norm.getRstd().getType(), f32({8, 64, 1, 1}));
}

} // namespace
