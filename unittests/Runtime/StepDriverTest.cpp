//===- StepDriverTest.cpp - step descriptions and the strided copy --------===//

#include "ckpt/Runtime/StepDriver.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace ckpt::runtime;

extern "C" {
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};
void ckptMemrefCopy(int64_t elementBytes, UnrankedMemRef *source,
                    UnrankedMemRef *target);
}

namespace {

StepSpec sampleSpec() {
  StepSpec spec;
  spec.name = "model with spaces_train";
  spec.forwardName = "model with spaces";
  spec.trainingStep = true;
  spec.onGpu = true;
  spec.arguments = {{{Element::I64, {4, 16}}, false, false, 50257},
                    {{Element::F32, {16, 8}}, false, true, 0},
                    {{Element::F64, {}}, false, true, 0},
                    {{Element::I1, {0, 3}}, false, false, 0},
                    {{Element::BF16, {8}}, false, true, 0},
                    {{Element::F16, {2, 2}}, false, true, 0},
                    {{Element::I64, {2}}, true, false, 0}};
  spec.results = {
      {{Element::F32, {}}, false},     {{Element::F32, {16, 8}}, false},
      {{Element::F64, {}}, false},     {{Element::BF16, {8}}, false},
      {{Element::F16, {2, 2}}, false}, {{Element::I64, {2}}, true}};
  spec.forwardResults = 1;
  spec.simulatedPeak = 123456789012345ull;
  spec.simulatedPeakWithoutGradients = 42;
  return spec;
}

TEST(StepDriverTest, DescriptionRoundTrips) {
  StepSpec spec = sampleSpec();
  std::string error;
  std::optional<StepSpec> parsed =
      parseStepSpec(serializeStepSpec(spec), error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->name, spec.name);
  EXPECT_EQ(parsed->forwardName, spec.forwardName);
  EXPECT_EQ(parsed->trainingStep, spec.trainingStep);
  EXPECT_EQ(parsed->onGpu, spec.onGpu);
  EXPECT_EQ(parsed->forwardResults, spec.forwardResults);
  EXPECT_EQ(parsed->simulatedPeak, spec.simulatedPeak);
  EXPECT_EQ(parsed->simulatedPeakWithoutGradients,
            spec.simulatedPeakWithoutGradients);
  ASSERT_EQ(parsed->arguments.size(), spec.arguments.size());
  for (size_t i = 0; i < spec.arguments.size(); ++i) {
    EXPECT_EQ(parsed->arguments[i].tensor.element,
              spec.arguments[i].tensor.element);
    EXPECT_EQ(parsed->arguments[i].tensor.shape,
              spec.arguments[i].tensor.shape);
    EXPECT_EQ(parsed->arguments[i].parameter, spec.arguments[i].parameter);
    EXPECT_EQ(parsed->arguments[i].randomState, spec.arguments[i].randomState);
    EXPECT_EQ(parsed->arguments[i].indexBound, spec.arguments[i].indexBound);
  }
  ASSERT_EQ(parsed->results.size(), spec.results.size());
  for (size_t i = 0; i < spec.results.size(); ++i) {
    EXPECT_EQ(parsed->results[i].tensor.shape, spec.results[i].tensor.shape);
    EXPECT_EQ(parsed->results[i].randomState, spec.results[i].randomState);
  }
  EXPECT_EQ(parsed->parameterCount(), 4u);
  EXPECT_EQ(parsed->arguments[0].tensor.typeName(), "tensor<4x16xi64>");
  EXPECT_EQ(parsed->arguments[2].tensor.typeName(), "tensor<f64>");
  EXPECT_EQ(parsed->arguments[4].tensor.typeName(), "tensor<8xbf16>");
  EXPECT_EQ(parsed->arguments[4].tensor.npyDtype(), std::string("u2"));
  EXPECT_EQ(parsed->arguments[5].tensor.bytes(), 8u);
}

TEST(StepDriverTest, RejectsMalformedDescriptions) {
  std::string text = serializeStepSpec(sampleSpec()), error;
  for (std::string bad :
       {std::string(""), std::string("ckpt-step 2\n"),
        text + "argument 0 0 0 i32 1 4\n", text + "argument 0 0 0 f32 1 -4\n",
        text + "result 0 f32 2 4294967296 4294967296\n", text + "surprise\n",
        text.substr(text.find('\n') + 1)}) {
    error.clear();
    EXPECT_FALSE(parseStepSpec(bad, error)) << bad;
    EXPECT_FALSE(error.empty());
  }
}

/// memref.copy between strided views against element-by-element indexing.
TEST(StepDriverTest, StridedCopyMatchesIndexing) {
  // A 3x4x5 source; copy its [1:3, 0:4:2, 1:5] window (strided in the
  // middle dimension) into a dense 2x2x4 target, and a transposed view.
  std::vector<float> source(3 * 4 * 5);
  std::iota(source.begin(), source.end(), 0.0f);
  struct Case {
    std::vector<int64_t> sizes, sourceStrides;
    int64_t sourceOffset;
  } cases[] = {{{2, 2, 4}, {20, 10, 1}, 21},
               {{5, 4}, {1, 5}, 0}, // a transpose: no dense inner dimension
               {{}, {}, 7}};        // rank 0
  for (const Case &c : cases) {
    int64_t rank = c.sizes.size();
    int64_t count = 1;
    for (int64_t size : c.sizes)
      count *= size;
    std::vector<float> target(count, -1.0f);
    std::vector<int64_t> from = {0, reinterpret_cast<int64_t>(source.data()),
                                 c.sourceOffset};
    from.insert(from.end(), c.sizes.begin(), c.sizes.end());
    from.insert(from.end(), c.sourceStrides.begin(), c.sourceStrides.end());
    MemRef dense = makeDenseMemRef(target.data(), c.sizes);
    std::vector<int64_t> to = {0, reinterpret_cast<int64_t>(target.data()), 0};
    to.insert(to.end(), dense.sizes.begin(), dense.sizes.end());
    to.insert(to.end(), dense.strides.begin(), dense.strides.end());
    UnrankedMemRef sourceRef{rank, from.data()}, targetRef{rank, to.data()};
    ckptMemrefCopy(sizeof(float), &sourceRef, &targetRef);
    for (int64_t i = 0; i < count; ++i) {
      int64_t rest = i, offset = c.sourceOffset;
      for (int64_t d = rank - 1; d >= 0; --d) {
        offset += (rest % c.sizes[d]) * c.sourceStrides[d];
        rest /= c.sizes[d];
      }
      EXPECT_EQ(target[i], source[offset]) << "element " << i;
    }
  }
}

} // namespace
