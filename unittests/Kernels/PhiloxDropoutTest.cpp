//===- PhiloxDropoutTest.cpp - the CUDA dropout against the reference -----===//
//
// Runs the kernel where a GPU is present and compares every element with
// the mask of the reference stream (ckpt/Runtime/Philox.h), including
// counters that cross 2^32. Skipped without a GPU.
//
//===----------------------------------------------------------------------===//

#include "PhiloxDropout.h"
#include "ckpt/Runtime/Philox.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

namespace {

TEST(PhiloxDropoutTest, MatchesTheReferenceStream) {
  if (!ckpt::kernels::cudaDeviceAvailable())
    GTEST_SKIP() << "no CUDA device";
  const uint64_t count = 4099, seed = 0x1234567890abcdefULL,
                 base = 4294967296ULL - 500, offset = 300;
  const float p = 0.375f;
  std::vector<float> input(count), output(count);
  ckpt::runtime::PhiloxStream fill(seed, 1);
  for (uint64_t i = 0; i < count; ++i)
    input[i] = static_cast<float>(2.0 * fill.uniform(i) - 1.0);
  float *deviceIn = nullptr, *deviceOut = nullptr;
  ASSERT_EQ(cudaMalloc(&deviceIn, count * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&deviceOut, count * sizeof(float)), cudaSuccess);
  cudaMemcpy(deviceIn, input.data(), count * sizeof(float),
             cudaMemcpyHostToDevice);
  ASSERT_EQ(ckpt::kernels::philoxDropout(deviceIn, deviceOut, count, seed,
                                         base, offset, p),
            0);
  cudaMemcpy(output.data(), deviceOut, count * sizeof(float),
             cudaMemcpyDeviceToHost);
  cudaFree(deviceIn);
  cudaFree(deviceOut);

  ckpt::runtime::PhiloxStream mask(seed, 0);
  for (uint64_t i = 0; i < count; ++i) {
    bool keep = mask.uniform(4 * (base + offset) + i) >= p;
    float expected = keep ? input[i] * (1.0f / (1.0f - p)) : 0.0f;
    ASSERT_EQ(output[i], expected) << "element " << i;
  }
}

} // namespace
