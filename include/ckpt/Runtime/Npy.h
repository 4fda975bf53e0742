//===- Npy.h - NumPy .npy files -------------------------------------------===//
//
// Reading and writing the NumPy .npy format (versions 1.0 to 3.0 read, 1.0
// written) for the little-endian dtypes ckpt-run exchanges: f4, f8, i8, b1.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_RUNTIME_NPY_H
#define CKPT_RUNTIME_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt::runtime {

struct NpyArray {
  /// "f2", "f4", "f8", "i8", "b1", or "u2": uint16, which the runtime
  /// reads and writes as bf16 bits (NumPy has no bf16).
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<char> data;
};

/// Reads `path`; on failure returns false and says why in `error`.
bool readNpy(const std::string &path, NpyArray &array, std::string &error);

/// Writes a C-ordered array; on failure returns false and says why.
bool writeNpy(const std::string &path, const std::string &dtype,
              const std::vector<int64_t> &shape, const void *data,
              size_t bytes, std::string &error);

} // namespace ckpt::runtime

#endif // CKPT_RUNTIME_NPY_H
