//===- Gemm.cpp - matrix products on the CPU through OpenBLAS -------------===//
//
// ckptGemmF32/F64 as cblas_?gemm calls. OpenBLAS splits a product among a
// fixed number of threads the same way every time, so each element is
// summed in the same order: a product gives the same bits on every run, and
// in a forward and its recompute (another thread count can move an element
// to another kernel and change its bits). The step's other loops run on
// OpenMP's threads, as many as OpenBLAS's.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/Gemm.h"

#include <cblas.h>

// LLVM's OpenMP runtime ships its omp.h in clang's resource directory,
// which a GCC build cannot include; these are its entry points.
extern "C" void omp_set_num_threads(int threads);
extern "C" void kmp_set_blocktime(int milliseconds);

namespace {

CBLAS_TRANSPOSE getTranspose(int64_t transposed) {
  return transposed ? CblasTrans : CblasNoTrans;
}

void gemm(const float *a, const float *b, float *c, int m, int n, int k,
          int64_t transposedA, int64_t transposedB) {
  cblas_sgemm(CblasRowMajor, getTranspose(transposedA),
              getTranspose(transposedB), m, n, k, 1.0f, a, transposedA ? m : k,
              b, transposedB ? k : n, 1.0f, c, n);
}

void gemm(const double *a, const double *b, double *c, int m, int n, int k,
          int64_t transposedA, int64_t transposedB) {
  cblas_dgemm(CblasRowMajor, getTranspose(transposedA),
              getTranspose(transposedB), m, n, k, 1.0, a, transposedA ? m : k, b,
              transposedB ? k : n, 1.0, c, n);
}

} // namespace

void ckpt::runtime::setCpuThreads(int threads) {
  if (threads > 0) {
    openblas_set_num_threads(threads);
    omp_set_num_threads(threads);
  }
  // OpenMP's threads spin for 1 ms after a loop, not 200, which took the
  // cores from OpenBLAS's threads (a 12-block MLP step ran 15% slower).
  kmp_set_blocktime(1);
}

int ckpt::runtime::getCpuThreads() { return openblas_get_num_threads(); }

template <typename T>
void ckpt::runtime::blasGemm(int64_t, void *a, int64_t, void *b, int64_t,
                             void *c, int64_t batch, int64_t m, int64_t n,
                             int64_t k, int64_t strideA, int64_t strideB,
                             int64_t transposedA, int64_t transposedB) {
  const T *lhs = getMemRefData<T>(a), *rhs = getMemRefData<T>(b);
  T *out = getMemRefData<T>(c);
  for (int64_t s = 0; s < batch; ++s)
    gemm(lhs + s * strideA, rhs + s * strideB, out + s * m * n, m, n, k,
         transposedA, transposedB);
}

template void ckpt::runtime::blasGemm<float>(int64_t, void *, int64_t, void *,
                                             int64_t, void *, int64_t, int64_t,
                                             int64_t, int64_t, int64_t, int64_t,
                                             int64_t, int64_t);
template void ckpt::runtime::blasGemm<double>(int64_t, void *, int64_t, void *,
                                              int64_t, void *, int64_t,
                                              int64_t, int64_t, int64_t,
                                              int64_t, int64_t, int64_t,
                                              int64_t);
