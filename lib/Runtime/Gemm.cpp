//===- Gemm.cpp - matrix products on the CPU through OpenBLAS -------------===//
//
// ckptGemmF32/F64 as cblas_?gemm calls. OpenBLAS splits a product among its
// threads by rows and columns of C, never along K, so every element is
// summed in the same order whatever the thread count: a product gives the
// same bits on every run, and in a forward and its recompute.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/Gemm.h"

#include <cblas.h>

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

void ckpt::runtime::setGemmThreads(int threads) {
  openblas_set_num_threads(threads);
}

int ckpt::runtime::getGemmThreads() { return openblas_get_num_threads(); }

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
