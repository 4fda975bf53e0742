//===- Gemm.h - the GEMM routine lowered GPU steps call -------------------===//
//
// ckpt-gemm-to-calls turns matrix products into calls of
// `ckptGemmF32` / `ckptGemmF64` / `ckptGemmF16` / `ckptGemmBF16(A, B, C,
// batch, M, N, K, strideA, strideB, transposedA, transposedB)`, each buffer
// an unranked memref (its rank, then a pointer to its descriptor): for each
// batch b, C[b] += op(A[b]) * op(B[b]), row-major (C in f32 for 16-bit A
// and B), op(A) = A (M x K) or the transpose of A (K x M),
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

/// The 16-bit float inputs of ckptGemmF16 and ckptGemmBF16, whose C is f32:
/// each product is summed in f32, as PyTorch's 16-bit products are.
struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

/// C's element type for inputs of type T.
template <typename T> struct GemmResult { using type = T; };
template <> struct GemmResult<Half> { using type = float; };
template <> struct GemmResult<BFloat16> { using type = float; };

/// ckptGemmF32 (T = float), ckptGemmF64 (double), ckptGemmF16 (Half) and
/// ckptGemmBF16 (BFloat16) on the CPU.
template <typename T>
void blasGemm(int64_t rankA, void *a, int64_t rankB, void *b, int64_t rankC,
              void *c, int64_t batch, int64_t m, int64_t n, int64_t k,
              int64_t strideA, int64_t strideB, int64_t transposedA,
              int64_t transposedB);
#define CKPT_DECLARE_BLAS_GEMM(T)                                              \
  extern template void blasGemm<T>(int64_t, void *, int64_t, void *, int64_t,  \
                                   void *, int64_t, int64_t, int64_t, int64_t, \
                                   int64_t, int64_t, int64_t, int64_t);
CKPT_DECLARE_BLAS_GEMM(float)
CKPT_DECLARE_BLAS_GEMM(double)
CKPT_DECLARE_BLAS_GEMM(Half)
CKPT_DECLARE_BLAS_GEMM(BFloat16)
#undef CKPT_DECLARE_BLAS_GEMM

/// Defines the C function `NAME` with the signature above as `IMPL<T>`:
/// the entry points of the CPU's and the GPU's GEMMs.
#define CKPT_DEFINE_GEMM_ENTRY(NAME, IMPL, T)                                  \
  void NAME(int64_t rankA, void *a, int64_t rankB, void *b, int64_t rankC,     \
            void *c, int64_t batch, int64_t m, int64_t n, int64_t k,           \
            int64_t strideA, int64_t strideB, int64_t transposedA,             \
            int64_t transposedB) {                                             \
    IMPL<T>(rankA, a, rankB, b, rankC, c, batch, m, n, k, strideA, strideB,    \
            transposedA, transposedB);                                         \
  }

/// The x86 vector units OpenBLAS's faster kernels need: AVX-512 (F, CD, BW,
/// DQ, VL) and AVX2 with FMA; neither elsewhere.
struct VectorUnits {
  bool avx512 = false, avx2 = false;
};

/// This processor's VectorUnits.
VectorUnits getVectorUnits();

/// The kernels OpenBLAS should be loaded with instead of `loadedCore`
/// (openblas_get_corename) on a processor with `units`, or null to keep
/// them: OpenBLAS picks its kernels by the processor's model, and one it
/// does not know (a virtual machine can hide it) gets its SSE3 kernels,
/// "Prescott", a third of the speed of SkylakeX's on an AVX-512 processor.
const char *getOpenBlasCoreUpgrade(const char *loadedCore, VectorUnits units);

/// The kernels OpenBLAS runs the CPU's products with (its core name),
/// loading it if no product has yet.
const char *getOpenBlasCore();

/// The threads the CPU's parallel loops and products run on, one OpenMP
/// pool for both; 0 keeps the default, every core. The loops' bits do not
/// depend on it, the products' repeat on the same count.
void setCpuThreads(int threads);
int getCpuThreads();

} // namespace ckpt::runtime

#endif // CKPT_RUNTIME_GEMM_H
