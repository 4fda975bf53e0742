//===- CbcSolve.h - what the planner's programs share about CBC ----------===//
//
// Owning a CBC model, solving it within the planners' limits, and the
// clock those limits are kept by. Private to lib/Planner.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_PLANNER_CBCSOLVE_H
#define CKPT_LIB_PLANNER_CBCSOLVE_H

#include "Cbc_C_Interface.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>

namespace ckpt {

struct CbcDeleter {
  void operator()(Cbc_Model *model) const { Cbc_deleteModel(model); }
};
using CbcModel = std::unique_ptr<Cbc_Model, CbcDeleter>;

/// Solves `model` quietly within `seconds` and (when positive) `nodes`
/// branch-and-bound nodes, to a gap below one: objectives of whole FLOPs.
inline void solveWithin(Cbc_Model *model, double seconds, int64_t nodes) {
  Cbc_setMaximumSeconds(model, std::max(seconds, 0.01));
  if (nodes > 0)
    Cbc_setMaximumNodes(model,
                        static_cast<int>(std::min<int64_t>(nodes, INT32_MAX)));
  Cbc_setAllowableGap(model, 0.5);
  Cbc_setAllowableFractionGap(model, 0);
  Cbc_solve(model);
}

inline double secondsSince(std::chrono::steady_clock::time_point begin) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
      .count();
}

} // namespace ckpt

#endif // CKPT_LIB_PLANNER_CBCSOLVE_H
