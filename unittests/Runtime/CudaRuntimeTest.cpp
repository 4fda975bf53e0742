//===- CudaRuntimeTest.cpp - where the CUDA runtime looks for cuBLAS ------===//

#include "ckpt/Runtime/CudaRuntime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

namespace {

using ckpt::runtime::getCublasCandidates;

size_t position(const std::vector<std::string> &list, const std::string &item) {
  return std::find(list.begin(), list.end(), item) - list.begin();
}

TEST(CudaRuntimeTest, CublasNamesThenToolkits) {
  ::unsetenv("CUDA_PATH");
  ::unsetenv("CUDA_ROOT");
  ::setenv("CUDA_HOME", "/opt/toolkit", 1);
  std::vector<std::string> candidates = getCublasCandidates();
  ::unsetenv("CUDA_HOME");
  size_t unversioned = position(candidates, "libcublas.so");
  size_t cuda13 = position(candidates, "libcublas.so.13");
  size_t cuda12 = position(candidates, "libcublas.so.12");
  size_t home = position(candidates, "/opt/toolkit/lib64/libcublas.so.13");
  size_t fallback =
      position(candidates, "/usr/local/cuda/lib64/libcublas.so.12");
  ASSERT_LT(fallback, candidates.size());
  // The loader's search first, by every name; then the named toolkit, then
  // the default one.
  EXPECT_EQ(unversioned, 0u);
  EXPECT_LT(cuda13, cuda12);
  EXPECT_LT(cuda12, home);
  EXPECT_LT(home, fallback);
}

TEST(CudaRuntimeTest, EmptyToolkitVariablesAreSkipped) {
  ::setenv("CUDA_HOME", "", 1);
  ::unsetenv("CUDA_PATH");
  ::unsetenv("CUDA_ROOT");
  std::vector<std::string> candidates = getCublasCandidates();
  ::unsetenv("CUDA_HOME");
  EXPECT_EQ(position(candidates, "/lib64/libcublas.so"), candidates.size());
  EXPECT_EQ(candidates.back(), "/usr/local/cuda/lib64/libcublas.so.11");
}

} // namespace
