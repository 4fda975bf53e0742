//===- Budget.h - byte sizes as users write them --------------------------===//
//
// Memory budgets are given in bytes: `24GiB`, `512MiB`, `1.5e9`, `800MB`.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_PLANNER_BUDGET_H
#define CKPT_PLANNER_BUDGET_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ckpt {

/// Parses a positive byte count: a decimal number (fraction and exponent
/// allowed) with an optional unit, B, KB/MB/GB/TB (powers of 1000) or
/// KiB/MiB/GiB/TiB (powers of 1024); fractions of a byte are dropped. On a
/// bad string, returns nothing and says why in `error`.
std::optional<uint64_t> parseByteSize(llvm::StringRef text, std::string &error);

} // namespace ckpt

#endif // CKPT_PLANNER_BUDGET_H
