//===- Gemm.cpp - matrix products on the CPU through OpenBLAS -------------===//
//
// ckptGemmF32/F64 as single-threaded cblas_?gemm calls on the step's OpenMP
// threads: one pool for products and loops (OpenBLAS's own threads spinning
// beside OpenMP's took a third of two cores). A product is cut into pieces
// along its longer side by the thread count alone, each piece one call, so
// each element is summed in the same order on every run, and in a forward
// and its recompute; another thread count can cut elsewhere and change bits.
// OpenBLAS is opened on the first product, not linked: a step that runs on
// the GPU needs no OpenBLAS.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/Gemm.h"
#include "ckpt/Runtime/HalfFloat.h"

#include <algorithm>
#include <cblas.h>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <string_view>
#include <vector>

// LLVM's OpenMP runtime ships its omp.h in clang's resource directory,
// which a GCC build cannot include; these are its entry points.
extern "C" void omp_set_num_threads(int threads);
extern "C" int omp_get_max_threads();

namespace {

/// Products smaller than this many multiply-adds run in one call on the
/// calling thread: starting the team costs more than they do.
constexpr int64_t kMinSplitWork = int64_t{1} << 18;
/// Pieces start at multiples of this many rows or columns, so that they
/// keep OpenBLAS's kernels on whole tiles.
constexpr int64_t kPieceAlignment = 16;

/// The OpenBLAS functions used, from the library that `loadOpenBlas` opens.
struct OpenBlas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  const char *core = "";
};

/// OpenBLAS's core name (openblas_get_corename) in `library`, or "".
const char *getCoreName(void *library) {
  auto coreName =
      reinterpret_cast<char *(*)()>(dlsym(library, "openblas_get_corename"));
  return coreName ? coreName() : "";
}

/// Opens OpenBLAS and keeps its calls on the calling thread (the pieces are
/// ours), or ends the process saying why: the lowered step cannot handle
/// an error. OpenBLAS picks its kernels for the processor as it loads,
/// unless OPENBLAS_CORETYPE names them; where it falls back to kernels
/// below the processor's vector units (getOpenBlasCoreUpgrade), it is
/// loaded again with OPENBLAS_CORETYPE naming better ones, for that load
/// only.
OpenBlas loadOpenBlas() {
  void *library = nullptr;
  std::string errors;
  const char *loadedName = nullptr;
  for (const char *name : {"libopenblas.so.0", "libopenblas.so"}) {
    if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
      loadedName = name;
      break;
    }
    errors += std::string("\n  ") + dlerror();
  }
  if (library && !std::getenv("OPENBLAS_CORETYPE")) {
    if (const char *core = ckpt::runtime::getOpenBlasCoreUpgrade(
            getCoreName(library), ckpt::runtime::getVectorUnits())) {
      setenv("OPENBLAS_CORETYPE", core, 1);
      dlclose(library);
      library = dlopen(loadedName, RTLD_NOW | RTLD_LOCAL);
      unsetenv("OPENBLAS_CORETYPE");
      if (!library)
        errors += std::string("\n  ") + dlerror();
    }
  }
  OpenBlas blas;
  void (*setThreads)(int) = nullptr;
  if (library) {
    blas.core = getCoreName(library);
    blas.sgemm =
        reinterpret_cast<decltype(blas.sgemm)>(dlsym(library, "cblas_sgemm"));
    blas.dgemm =
        reinterpret_cast<decltype(blas.dgemm)>(dlsym(library, "cblas_dgemm"));
    setThreads = reinterpret_cast<void (*)(int)>(
        dlsym(library, "openblas_set_num_threads"));
    if (!blas.sgemm || !blas.dgemm || !setThreads)
      errors += "\n  the library has no cblas_sgemm, cblas_dgemm or "
                "openblas_set_num_threads";
  }
  if (!library || !setThreads || !blas.sgemm || !blas.dgemm) {
    std::fprintf(stderr,
                 "ckpt: error: matrix products on the CPU need OpenBLAS "
                 "(libopenblas.so.0), which cannot be loaded:%s\n",
                 errors.c_str());
    std::fflush(stderr);
    std::_Exit(1);
  }
  setThreads(1);
  return blas;
}

/// OpenBLAS, opened on the first call (from any thread, once).
const OpenBlas &getOpenBlas() {
  static const OpenBlas blas = loadOpenBlas();
  return blas;
}

} // namespace

ckpt::runtime::VectorUnits ckpt::runtime::getVectorUnits() {
  VectorUnits units;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  units.avx512 =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
      __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  units.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  return units;
}

const char *ckpt::runtime::getOpenBlasCoreUpgrade(const char *loadedCore,
                                                  VectorUnits units) {
  if (std::string_view(loadedCore) != "Prescott")
    return nullptr;
  return units.avx512 ? "SkylakeX" : units.avx2 ? "Haswell" : nullptr;
}

const char *ckpt::runtime::getOpenBlasCore() { return getOpenBlas().core; }

namespace {

CBLAS_TRANSPOSE getTranspose(bool transposed) {
  return transposed ? CblasTrans : CblasNoTrans;
}

void gemm(const float *a, int64_t lda, const float *b, int64_t ldb, float *c,
          int64_t ldc, int64_t m, int64_t n, int64_t k, bool transposedA,
          bool transposedB) {
  getOpenBlas().sgemm(CblasRowMajor, getTranspose(transposedA),
                      getTranspose(transposedB), m, n, k, 1.0f, a, lda, b, ldb,
                      1.0f, c, ldc);
}

void gemm(const double *a, int64_t lda, const double *b, int64_t ldb, double *c,
          int64_t ldc, int64_t m, int64_t n, int64_t k, bool transposedA,
          bool transposedB) {
  getOpenBlas().dgemm(CblasRowMajor, getTranspose(transposedA),
                      getTranspose(transposedB), m, n, k, 1.0, a, lda, b, ldb,
                      1.0, c, ldc);
}

float widen(ckpt::runtime::Half x) {
  return ckpt::runtime::halfToFloat(x.bits);
}
float widen(ckpt::runtime::BFloat16 x) {
  return ckpt::runtime::bfloat16ToFloat(x.bits);
}

/// A product of 16-bit matrices into f32 C: sgemm on f32 copies of tiles of
/// A and B, in this thread's workspace (1.25 MiB, outside the step's heap
/// like OpenBLAS's own buffers). Each C tile sums its K tiles in order.
template <typename T>
void gemm(const T *a, int64_t lda, const T *b, int64_t ldb, float *c,
          int64_t ldc, int64_t m, int64_t n, int64_t k, bool transposedA,
          bool transposedB) {
  constexpr int64_t kRows = 256, kColumns = 1024, kDepth = 256;
  thread_local std::vector<float> aTile(kRows * kDepth),
      bTile(kDepth * kColumns);
  for (int64_t i0 = 0; i0 < m; i0 += kRows)
    for (int64_t j0 = 0; j0 < n; j0 += kColumns)
      for (int64_t p0 = 0; p0 < k; p0 += kDepth) {
        int64_t rows = std::min(kRows, m - i0);
        int64_t columns = std::min(kColumns, n - j0);
        int64_t depth = std::min(kDepth, k - p0);
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t p = 0; p < depth; ++p)
            aTile[i * depth + p] =
                widen(transposedA ? a[(p0 + p) * lda + i0 + i]
                                  : a[(i0 + i) * lda + p0 + p]);
        for (int64_t p = 0; p < depth; ++p)
          for (int64_t j = 0; j < columns; ++j)
            bTile[p * columns + j] =
                widen(transposedB ? b[(j0 + j) * ldb + p0 + p]
                                  : b[(p0 + p) * ldb + j0 + j]);
        gemm(aTile.data(), depth, bTile.data(), columns, c + i0 * ldc + j0, ldc,
             rows, columns, depth, false, false);
      }
}

} // namespace

void ckpt::runtime::setCpuThreads(int threads) {
  if (threads > 0)
    omp_set_num_threads(threads);
}

int ckpt::runtime::getCpuThreads() { return omp_get_max_threads(); }

template <typename T>
void ckpt::runtime::blasGemm(int64_t, void *a, int64_t, void *b, int64_t,
                             void *c, int64_t batch, int64_t m, int64_t n,
                             int64_t k, int64_t strideA, int64_t strideB,
                             int64_t transposedA, int64_t transposedB) {
  // Opened before the pieces' threads start, which it would otherwise
  // make wait.
  getOpenBlas();
  using Result = typename GemmResult<T>::type;
  const T *lhs = getMemRefData<T>(a), *rhs = getMemRefData<T>(b);
  Result *out = getMemRefData<Result>(c);
  // Cut along the longer of M and N; the pieces depend on the shape and the
  // thread count only, never on which thread runs them.
  bool splitRows = m >= n;
  int64_t length = splitRows ? m : n;
  auto ceilDiv = [](int64_t x, int64_t y) { return (x + y - 1) / y; };
  int64_t pieces = m * n * k < kMinSplitWork
                       ? 1
                       : std::min<int64_t>(getCpuThreads(),
                                           ceilDiv(length, kPieceAlignment));
  int64_t pieceLength =
      ceilDiv(ceilDiv(length, pieces), kPieceAlignment) * kPieceAlignment;
  int64_t lda = transposedA ? m : k, ldb = transposedB ? k : n;
#pragma omp parallel for schedule(static) if (batch * pieces > 1)
  for (int64_t item = 0; item < batch * pieces; ++item) {
    int64_t s = item / pieces, begin = item % pieces * pieceLength;
    int64_t size = std::min(pieceLength, length - begin);
    if (size <= 0)
      continue;
    const T *lhsPiece = lhs + s * strideA, *rhsPiece = rhs + s * strideB;
    Result *outPiece = out + s * m * n;
    if (splitRows) {
      lhsPiece += transposedA ? begin : begin * k;
      outPiece += begin * n;
    } else {
      rhsPiece += transposedB ? begin * k : begin;
      outPiece += begin;
    }
    gemm(lhsPiece, lda, rhsPiece, ldb, outPiece, n, splitRows ? size : m,
         splitRows ? n : size, k, transposedA, transposedB);
  }
}

#define CKPT_DEFINE_BLAS_GEMM(T)                                               \
  template void ckpt::runtime::blasGemm<T>(                                    \
      int64_t, void *, int64_t, void *, int64_t, void *, int64_t, int64_t,     \
      int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);
CKPT_DEFINE_BLAS_GEMM(float)
CKPT_DEFINE_BLAS_GEMM(double)
CKPT_DEFINE_BLAS_GEMM(ckpt::runtime::Half)
CKPT_DEFINE_BLAS_GEMM(ckpt::runtime::BFloat16)
