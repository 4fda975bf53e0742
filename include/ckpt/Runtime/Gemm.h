//===- Gemm.h - the GEMM routine lowered GPU steps call -------------------===//
//
// ckpt-gemm-to-calls turns matrix products into calls of
// `ckptGemmF32` / `ckptGemmF64(A, B, C, batch, M, N, K, strideA, strideB,
// transposedA, transposedB)`, each buffer an unranked memref (its rank, then
// a pointer to its descriptor): for each batch b, C[b] += op(A[b]) *
// op(B[b]), row-major, op(A) = A (M x K) or the transpose of A (K x M),
// op(B) = B (K x N) or the transpose of B (N x K). On the GPU they are
// cuBLAS (CudaRuntime.h), on the CPU OpenBLAS (these).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_RUNTIME_GEMM_H
#define CKPT_RUNTIME_GEMM_H

#include <cstdint>

namespace ckpt::runtime {

/// A strided memref descriptor, as lowered code lays it out; the sizes and
/// strides follow.
struct MemRefDescriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
};

/// The first element of an unranked memref's buffer.
template <typename T> T *getMemRefData(void *descriptor) {
  auto *memref = static_cast<MemRefDescriptor *>(descriptor);
  return static_cast<T *>(memref->aligned) + memref->offset;
}

/// ckptGemmF32 (T = float) and ckptGemmF64 (T = double) on the CPU.
template <typename T>
void blasGemm(int64_t rankA, void *a, int64_t rankB, void *b, int64_t rankC,
              void *c, int64_t batch, int64_t m, int64_t n, int64_t k,
              int64_t strideA, int64_t strideB, int64_t transposedA,
              int64_t transposedB);
extern template void blasGemm<float>(int64_t, void *, int64_t, void *, int64_t,
                                     void *, int64_t, int64_t, int64_t,
                                     int64_t, int64_t, int64_t, int64_t,
                                     int64_t);
extern template void blasGemm<double>(int64_t, void *, int64_t, void *,
                                      int64_t, void *, int64_t, int64_t,
                                      int64_t, int64_t, int64_t, int64_t,
                                      int64_t, int64_t);

/// The threads the CPU's parallel loops and products run on, one OpenMP
/// pool for both; 0 keeps the default, every core. The loops' bits do not
/// depend on it, the products' repeat on the same count.
void setCpuThreads(int threads);
int getCpuThreads();

} // namespace ckpt::runtime

#endif // CKPT_RUNTIME_GEMM_H
