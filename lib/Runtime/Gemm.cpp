//===- Gemm.cpp - the reference GEMM on the CPU ---------------------------===//
//
// Each element of C starts from its value and adds A[i][p] * B[p][j] for
// p = 0, 1, ..., K - 1, one rounding per multiply and per add: the order and
// the operations of the loops the GEMM replaces.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/Gemm.h"

template <typename T>
void ckpt::runtime::referenceGemm(int64_t, void *a, int64_t, void *b, int64_t,
                                  void *c, int64_t batch, int64_t m, int64_t n,
                                  int64_t k, int64_t strideA, int64_t strideB,
                                  int64_t transposedB) {
  const T *lhs = getMemRefData<T>(a), *rhs = getMemRefData<T>(b);
  T *out = getMemRefData<T>(c);
  for (int64_t s = 0; s < batch; ++s) {
    const T *as = lhs + s * strideA, *bs = rhs + s * strideB;
    T *cs = out + s * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T sum = cs[i * n + j];
        for (int64_t p = 0; p < k; ++p) {
          T product =
              as[i * k + p] * (transposedB ? bs[j * k + p] : bs[p * n + j]);
          sum = sum + product;
        }
        cs[i * n + j] = sum;
      }
  }
}

template void ckpt::runtime::referenceGemm<float>(int64_t, void *, int64_t,
                                                  void *, int64_t, void *,
                                                  int64_t, int64_t, int64_t,
                                                  int64_t, int64_t, int64_t,
                                                  int64_t);
template void ckpt::runtime::referenceGemm<double>(int64_t, void *, int64_t,
                                                   void *, int64_t, void *,
                                                   int64_t, int64_t, int64_t,
                                                   int64_t, int64_t, int64_t,
                                                   int64_t);
