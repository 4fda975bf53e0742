//===- FormatBytes.h - byte counts for people -----------------------------===//
//
// Diagnostics of the compiler and messages of the runtime print byte counts
// the same way. Header-only and free of LLVM, so the runtime library (and a
// compiled step, which links no LLVM) can use it too.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_SUPPORT_FORMATBYTES_H
#define CKPT_SUPPORT_FORMATBYTES_H

#include <cstdint>
#include <cstdio>
#include <string>

namespace ckpt {

/// Renders a byte count for people: "8388608 B (8.000 MiB)".
inline std::string formatBytes(uint64_t bytes) {
  std::string text = std::to_string(bytes) + " B";
  static const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024.0 && unit < 3) {
    value /= 1024.0;
    ++unit;
  }
  if (unit >= 0) {
    char scaled[48];
    std::snprintf(scaled, sizeof(scaled), " (%.3f %s)", value, units[unit]);
    text += scaled;
  }
  return text;
}

} // namespace ckpt

#endif // CKPT_SUPPORT_FORMATBYTES_H
