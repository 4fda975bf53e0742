//===- Gemm.cpp - the reference GEMM on the CPU ---------------------------===//
//
// Each element of C starts from its value and adds A[i][p] * B[p][j] for
// p = 0, 1, ..., K - 1, one rounding per multiply and per add: the order and
// the operations of the loops the GEMM replaces.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/Gemm.h"

namespace {

template <typename T>
void gemm(const T *a, const T *b, T *c, int64_t batch, int64_t m, int64_t n,
          int64_t k, int64_t strideA, int64_t strideB, bool transposedB) {
  for (int64_t s = 0; s < batch; ++s) {
    const T *as = a + s * strideA, *bs = b + s * strideB;
    T *cs = c + s * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T sum = cs[i * n + j];
        for (int64_t p = 0; p < k; ++p) {
          T product = as[i * k + p] * (transposedB ? bs[j * k + p]
                                                   : bs[p * n + j]);
          sum = sum + product;
        }
        cs[i * n + j] = sum;
      }
  }
}

} // namespace

void ckpt::runtime::referenceGemmF32(int64_t, void *a, int64_t, void *b,
                                     int64_t, void *c, int64_t batch, int64_t m,
                                     int64_t n, int64_t k, int64_t strideA,
                                     int64_t strideB, int64_t transposedB) {
  gemm(getMemRefData<float>(a), getMemRefData<float>(b),
       getMemRefData<float>(c), batch, m, n, k, strideA, strideB,
       transposedB != 0);
}

void ckpt::runtime::referenceGemmF64(int64_t, void *a, int64_t, void *b,
                                     int64_t, void *c, int64_t batch, int64_t m,
                                     int64_t n, int64_t k, int64_t strideA,
                                     int64_t strideB, int64_t transposedB) {
  gemm(getMemRefData<double>(a), getMemRefData<double>(b),
       getMemRefData<double>(c), batch, m, n, k, strideA, strideB,
       transposedB != 0);
}
