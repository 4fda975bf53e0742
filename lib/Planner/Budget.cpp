//===- Budget.cpp - byte sizes as users write them ------------------------===//
//
// Splits the text into a number and a unit; integers without a unit are
// read exactly, everything else through a double (exact for sizes below
// 2^53 bytes).
//
//===----------------------------------------------------------------------===//

#include "ckpt/Planner/Budget.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace ckpt;

std::optional<uint64_t> ckpt::parseByteSize(llvm::StringRef text,
                                            std::string &error) {
  llvm::StringRef trimmed = text.trim();
  size_t unitStart = trimmed.find_first_not_of("0123456789.eE+-");
  llvm::StringRef number = trimmed.substr(0, unitStart);
  llvm::StringRef unit = unitStart == llvm::StringRef::npos
                             ? ""
                             : trimmed.substr(unitStart).trim();
  auto bad = [&](const std::string &why) -> std::optional<uint64_t> {
    error = "invalid byte size '" + text.str() + "': " + why;
    return std::nullopt;
  };
  if (number.empty())
    return bad("expected a number followed by an optional unit (B, KB, MB, "
               "GB, TB, KiB, MiB, GiB, TiB), e.g. 24GiB or 1.5e9");
  std::optional<double> scale = llvm::StringSwitch<std::optional<double>>(unit)
                                    .Cases({"", "B"}, 1.0)
                                    .Case("KB", 1e3)
                                    .Case("MB", 1e6)
                                    .Case("GB", 1e9)
                                    .Case("TB", 1e12)
                                    .Case("KiB", 1024.0)
                                    .Case("MiB", 1024.0 * 1024)
                                    .Case("GiB", 1024.0 * 1024 * 1024)
                                    .Case("TiB", 1024.0 * 1024 * 1024 * 1024)
                                    .Default(std::nullopt);
  if (!scale)
    return bad("unknown unit '" + unit.str() +
               "'; expected B, KB, MB, GB, TB, KiB, MiB, GiB or TiB");
  uint64_t exact;
  if (*scale == 1.0 && !number.getAsInteger(10, exact)) {
    if (exact == 0)
      return bad("a budget must be at least 1 byte");
    return exact;
  }
  double value;
  if (number.getAsDouble(value) || !std::isfinite(value))
    return bad("'" + number.str() + "' is not a number");
  double bytes = std::floor(value * *scale);
  if (bytes < 1)
    return bad("a budget must be at least 1 byte");
  if (bytes >= 18446744073709551616.0)
    return bad("more than 2^64 - 1 bytes");
  return static_cast<uint64_t>(bytes);
}
