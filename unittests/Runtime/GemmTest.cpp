//===- GemmTest.cpp - the reference GEMM against a plain oracle -----------===//
//
// Random shapes, batch strides (0 broadcasts) and transposes, small and
// large enough to be cut among threads; the operands are small integers,
// so every sum is exact in f32 and f64 and the result must equal the
// oracle's (computed in int64) exactly. Products of real
// numbers repeat bit for bit on the same number of threads.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/Gemm.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <vector>

using namespace ckpt::runtime;

namespace {

/// An unranked memref as lowered code passes it: a descriptor whose aligned
/// pointer and offset locate the data (sizes and strides are not read).
template <typename T> struct Buffer {
  std::vector<T> data;
  MemRefDescriptor descriptor;
  explicit Buffer(size_t size, int64_t offset = 0)
      : data(size + offset), descriptor{data.data(), data.data(), offset} {}
  T &at(size_t i) { return data[descriptor.offset + i]; }
};

/// Random products of at most `maxSize` rows and columns (large ones are
/// cut into pieces among the threads) against the oracle.
template <typename T>
void checkRandomGemms(unsigned seed, int trials, int maxSize) {
  std::mt19937 random(seed);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(random);
  };
  for (int trial = 0; trial < trials; ++trial) {
    int64_t batch = pick(1, 3), m = pick(1, maxSize), n = pick(1, maxSize),
            k = pick(1, maxSize + 2);
    bool broadcastA = pick(0, 3) == 0, broadcastB = pick(0, 3) == 0;
    bool transposedA = pick(0, 1), transposed = pick(0, 1);
    int64_t strideA = broadcastA ? 0 : m * k, strideB = broadcastB ? 0 : k * n;
    Buffer<T> a((broadcastA ? 1 : batch) * m * k, pick(0, 3));
    Buffer<T> b((broadcastB ? 1 : batch) * k * n, pick(0, 3));
    Buffer<T> c(batch * m * n, pick(0, 3));
    for (T &x : a.data)
      x = pick(-5, 5);
    for (T &x : b.data)
      x = pick(-5, 5);
    for (T &x : c.data)
      x = pick(-50, 50);
    // Oracle: C[s][i][j] + sum_p A[s][i][p] * opB[s][p][j], in integers.
    std::vector<int64_t> expected(batch * m * n);
    for (int64_t s = 0; s < batch; ++s)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          int64_t sum = static_cast<int64_t>(c.at(s * m * n + i * n + j));
          for (int64_t p = 0; p < k; ++p) {
            int64_t lhs = static_cast<int64_t>(
                a.at(s * strideA + (transposedA ? p * m + i : i * k + p)));
            int64_t rhs = static_cast<int64_t>(
                b.at(s * strideB + (transposed ? j * k + p : p * n + j)));
            sum += lhs * rhs;
          }
          expected[s * m * n + i * n + j] = sum;
        }
    blasGemm<T>(3, &a.descriptor, 2, &b.descriptor, 3, &c.descriptor,
                     batch, m, n, k, strideA, strideB, transposedA,
                     transposed);
    for (size_t i = 0; i < expected.size(); ++i)
      ASSERT_EQ(static_cast<int64_t>(c.at(i)), expected[i])
          << "trial " << trial << " element " << i << " batch " << batch
          << " m " << m << " n " << n << " k " << k << " strides " << strideA
          << "," << strideB << " transposed " << transposedA << ","
          << transposed;
  }
}

TEST(GemmTest, FloatMatchesIntegerOracle) {
  checkRandomGemms<float>(1, 200, 7);
}

TEST(GemmTest, DoubleMatchesIntegerOracle) {
  checkRandomGemms<double>(2, 200, 7);
}

TEST(GemmTest, PiecesMatchIntegerOracle) {
  // Products of up to 160 x 160, cut along their rows or their columns
  // (the longer side) among 1 to 3 threads, pieces not multiples of the
  // alignment; small-integer sums stay exact, so every piece must land
  // where the oracle puts it.
  int saved = getCpuThreads();
  for (int threads : {1, 2, 3}) {
    setCpuThreads(threads);
    checkRandomGemms<float>(10 + threads, 8, 160);
    checkRandomGemms<double>(20 + threads, 8, 160);
  }
  setCpuThreads(saved);
}

/// C = A * op(B) with `threads` threads, A and B uniform in [-1, 1).
template <typename T>
std::vector<T> multiplyOnThreads(int threads, int64_t batch, int64_t m,
                                 int64_t n, int64_t k, bool transposed) {
  std::mt19937 random(7);
  std::uniform_real_distribution<T> uniform(-1, 1);
  Buffer<T> a(batch * m * k), b(k * n), c(batch * m * n);
  for (T &x : a.data)
    x = uniform(random);
  for (T &x : b.data)
    x = uniform(random);
  int saved = getCpuThreads();
  setCpuThreads(threads);
  blasGemm<T>(3, &a.descriptor, 2, &b.descriptor, 3, &c.descriptor, batch, m,
              n, k, m * k, 0, transposed, transposed);
  setCpuThreads(saved);
  return c.data;
}

TEST(GemmTest, SameThreadsSameBits) {
  // Large enough to be cut among the threads, with sizes that are no
  // multiple of the pieces' alignment or OpenBLAS's blocks; runs on other
  // thread counts come in between.
  for (bool transposed : {false, true})
    for (int threads : {1, 2, 3}) {
      std::vector<float> first =
          multiplyOnThreads<float>(threads, 3, 203, 517, 389, transposed);
      multiplyOnThreads<float>(threads + 1, 3, 203, 517, 389, transposed);
      ASSERT_EQ(first, multiplyOnThreads<float>(threads, 3, 203, 517, 389,
                                                transposed))
          << threads << " threads, transposed " << transposed;
      std::vector<double> firstDouble =
          multiplyOnThreads<double>(threads, 2, 131, 300, 257, transposed);
      multiplyOnThreads<double>(threads + 1, 2, 131, 300, 257, transposed);
      ASSERT_EQ(firstDouble, multiplyOnThreads<double>(threads, 2, 131, 300,
                                                       257, transposed))
          << threads << " threads, transposed " << transposed;
    }
}

} // namespace

// OpenBLAS's SSE3 fallback gives way to the best kernels the vector units
// allow; a core OpenBLAS chose itself stays.
TEST(GemmTest, FallbackCoreGivesWayToTheVectorUnits) {
  EXPECT_STREQ(getOpenBlasCoreUpgrade("Prescott", {true, true}), "SkylakeX");
  EXPECT_STREQ(getOpenBlasCoreUpgrade("Prescott", {false, true}), "Haswell");
  EXPECT_EQ(getOpenBlasCoreUpgrade("Prescott", {false, false}), nullptr);
  EXPECT_EQ(getOpenBlasCoreUpgrade("Haswell", {true, true}), nullptr);
  EXPECT_EQ(getOpenBlasCoreUpgrade("SkylakeX", {true, true}), nullptr);
  EXPECT_EQ(getOpenBlasCoreUpgrade("Zen", {false, true}), nullptr);
}

// On this processor the products run on kernels no better ones replace
// (OpenBLAS's SSE3 ones only where it has no AVX2), unless the environment
// names the kernels.
TEST(GemmTest, ProductsUseTheVectorUnits) {
  if (std::getenv("OPENBLAS_CORETYPE"))
    GTEST_SKIP() << "OPENBLAS_CORETYPE names the kernels";
  const char *core = getOpenBlasCore();
  EXPECT_STRNE(core, "");
  EXPECT_EQ(getOpenBlasCoreUpgrade(core, getVectorUnits()), nullptr) << core;
}
