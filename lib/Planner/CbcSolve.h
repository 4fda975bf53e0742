//===- CbcSolve.h - what the planner's programs share about CBC ----------===//
//
// Owning a CBC model, loading a program into it at once, solving it within
// the planners' limits, and the clock those limits are kept by. Private to
// lib/Planner.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_PLANNER_CBCSOLVE_H
#define CKPT_LIB_PLANNER_CBCSOLVE_H

#include "Cbc_C_Interface.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/MapVector.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

namespace ckpt {

struct CbcDeleter {
  void operator()(Cbc_Model *model) const { Cbc_deleteModel(model); }
};
using CbcModel = std::unique_ptr<Cbc_Model, CbcDeleter>;

/// A program built column by column and row by row, then loaded into a
/// new CBC model at once: CBC copies its whole matrix on every row added to
/// a model one at a time, which made large programs quadratic to build.
class CbcProgram {
public:
  using Term = std::pair<int, double>;

  int addColumn(double lower, double upper, double objective,
                bool integer = false) {
    columnLower.push_back(lower);
    columnUpper.push_back(upper);
    objectives.push_back(objective);
    integers.push_back(integer);
    byColumn.emplace_back();
    return static_cast<int>(columnLower.size()) - 1;
  }
  /// sum(terms) `sense` rhs, with sense 'L' (<=), 'G' (>=) or 'E' (=).
  /// Terms of the same column are summed: the solver takes each column
  /// once per row.
  void addRow(llvm::ArrayRef<Term> terms, char sense, double rhs) {
    const double infinity = std::numeric_limits<double>::max();
    int row = static_cast<int>(rowLower.size());
    llvm::SmallMapVector<int, double, 8> summed;
    for (auto [column, coefficient] : terms)
      summed[column] += coefficient;
    for (auto [column, coefficient] : summed)
      if (coefficient != 0)
        byColumn[column].push_back({row, coefficient});
    rowLower.push_back(sense == 'L' ? -infinity : rhs);
    rowUpper.push_back(sense == 'G' ? infinity : rhs);
  }
  /// A quiet CBC model holding the program.
  CbcModel load() const {
    std::vector<CoinBigIndex> starts = {0};
    std::vector<int> indices;
    std::vector<double> values;
    for (const auto &entries : byColumn) {
      for (auto [row, value] : entries) {
        indices.push_back(row);
        values.push_back(value);
      }
      starts.push_back(static_cast<CoinBigIndex>(indices.size()));
    }
    CbcModel model(Cbc_newModel());
    Cbc_setLogLevel(model.get(), 0);
    Cbc_loadProblem(model.get(), static_cast<int>(columnLower.size()),
                    static_cast<int>(rowLower.size()), starts.data(),
                    indices.data(), values.data(), columnLower.data(),
                    columnUpper.data(), objectives.data(), rowLower.data(),
                    rowUpper.data());
    for (size_t column = 0; column < integers.size(); ++column)
      if (integers[column])
        Cbc_setInteger(model.get(), static_cast<int>(column));
    return model;
  }

private:
  std::vector<double> columnLower, columnUpper, objectives;
  std::vector<char> integers;
  std::vector<std::vector<Term>> byColumn;
  std::vector<double> rowLower, rowUpper;
};

/// Solves `model` quietly within `seconds` and (when positive) `nodes`
/// branch-and-bound nodes, to a gap below one (objectives of whole FLOPs) or
/// `gap` where larger, looking only for solutions below `cutoff` when given.
/// Seconds are wall-clock seconds: CBC counts processor time by default,
/// which on a busy machine runs slower than the clock.
/// Without the diving heuristics, and without the feasibility pump unless
/// `feasibilityPump`: on an op-level program of a MobileNet V2 step a dive's
/// simplex, and on small ones with microbatches in flight the pump's,
/// failed an assertion inside CLP (built with its assertions on), which
/// aborted the whole tool. Branching and the MIP start find the plans
/// instead.
inline void solveWithin(Cbc_Model *model, double seconds, int64_t nodes,
                        bool feasibilityPump = true, double gap = 0.5,
                        std::optional<double> cutoff = std::nullopt) {
  Cbc_setParameter(model, "timeMode", "elapsed");
  Cbc_setMaximumSeconds(model, std::max(seconds, 0.01));
  if (cutoff)
    Cbc_setCutoff(model, *cutoff);
  if (nodes > 0) {
    Cbc_setMaximumNodes(model,
                        static_cast<int>(std::min<int64_t>(nodes, INT32_MAX)));
    // A search stopped by the node limit left CglPreProcess::postProcess a
    // null pointer to read on a chain program of the GPT-2 stack
    // (ilp-presolve=0 ilp-nodes=1, under AddressSanitizer).
    Cbc_setParameter(model, "preprocess", "off");
  }
  Cbc_setAllowableGap(model, std::max(gap, 0.5));
  Cbc_setAllowableFractionGap(model, 0);
  for (const char *dive :
       {"DivingSome", "DivingCoefficient", "DivingFractional", "DivingGuided",
        "DivingLineSearch", "DivingPseudoCost", "DivingVectorLength"})
    Cbc_setParameter(model, dive, "off");
  if (!feasibilityPump)
    Cbc_setParameter(model, "feasibilityPump", "off");
  Cbc_solve(model);
}

/// Solves `model`'s linear relaxation alone (the root node, without cuts or
/// heuristics): a quick lower bound on its objective.
inline double solveRelaxation(Cbc_Model *model) {
  Cbc_setParameter(model, "timeMode", "elapsed");
  Cbc_setMaximumNodes(model, 1);
  Cbc_setParameter(model, "preprocess", "off");
  Cbc_setParameter(model, "cuts", "off");
  Cbc_setParameter(model, "heuristicsOnOff", "off");
  Cbc_solve(model);
  return Cbc_getBestPossibleObjValue(model);
}

inline double secondsSince(std::chrono::steady_clock::time_point begin) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
      .count();
}

} // namespace ckpt

#endif // CKPT_LIB_PLANNER_CBCSOLVE_H
