//===- ChainIlp.cpp - exact plans as a mixed-integer program --------------===//
//
// One binary y per segment option (a run of stages, one way); continuous
// F[t], the bytes freed by the chosen segments below stage t. Every group's
// peak less F at its first stage must fit, each stage is in at most one
// segment, and the recompute FLOPs are minimised. Plans whose measured peak
// does not fit are excluded by no-good cuts, one solve each. dp's optimum
// of the same model comes first: a lower bound, and the answer whenever its
// measured peak fits.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Planner/ChainIlp.h"

#include "CbcSolve.h"

#include "llvm/ADT/DenseMap.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <tuple>

using namespace ckpt;

namespace {

/// A segment option of the model: the program's binary `y[index]`.
struct Option {
  PlannedSegment segment;
  ChainSegment cost;
};

/// What a plan's chosen options are, for its no-good cut.
using Choice = std::vector<int>;

struct SolveOutcome {
  /// The best solution's segments, when the solver found one.
  std::optional<llvm::SmallVector<PlannedSegment>> segments;
  bool proven = false;
  double bound = 0;
};

class ChainProgram {
public:
  explicit ChainProgram(const ChainModel &model) : model(model) {
    for (size_t first = 0; first < model.getStageCount(); ++first)
      for (size_t last = first; last < model.getStageCount(); ++last) {
        llvm::SmallVector<ChainSegment, 2> ways =
            model.getSegmentOptions(first, last);
        if (ways.empty())
          break;
        for (auto [way, cost] : llvm::enumerate(ways)) {
          index[{first, last, static_cast<unsigned>(way)}] = options.size();
          options.push_back({{first, last, static_cast<unsigned>(way)}, cost});
        }
      }
  }

  /// Excludes the plan of `segments` from later solves.
  void cut(llvm::ArrayRef<PlannedSegment> segments) {
    Choice chosen;
    for (const PlannedSegment &segment : segments)
      chosen.push_back(index.at({segment.first, segment.last, segment.option}));
    cuts.push_back(std::move(chosen));
  }

  /// Minimises recompute FLOPs with every group within `budget`.
  SolveOutcome solve(int64_t budget, double seconds, int64_t nodes,
                     const std::optional<ChainPlan> &start);

private:
  const ChainModel &model;
  std::vector<Option> options;
  std::map<std::tuple<size_t, size_t, unsigned>, int> index;
  std::vector<Choice> cuts;
};

SolveOutcome ChainProgram::solve(int64_t budget, double seconds, int64_t nodes,
                                 const std::optional<ChainPlan> &start) {
  size_t stages = model.getStageCount();
  CbcProgram program;
  const double infinity = std::numeric_limits<double>::max();

  // Columns: y, then F[1..stages-1] (F[0] is 0).
  int optionCount = static_cast<int>(options.size());
  for (const Option &option : options)
    program.addColumn(0, 1, double(option.cost.flops), /*integer=*/true);
  auto freedColumn = [&](size_t stage) {
    return stage == 0 ? -1 : optionCount + static_cast<int>(stage) - 1;
  };
  for (size_t stage = 1; stage < stages; ++stage)
    program.addColumn(-infinity, infinity, 0);
  // Upper bounds of -F[t], as tight as the big-M rows want them: the most
  // bytes disjoint segments below t can hold beyond what they free.
  std::vector<double> mostHeld(stages + 1, 0);
  std::vector<std::vector<const Option *>> endingBefore(stages + 1);
  for (const Option &option : options)
    endingBefore[option.segment.last + 1].push_back(&option);
  for (size_t stage = 1; stage <= stages; ++stage) {
    mostHeld[stage] = mostHeld[stage - 1];
    for (const Option *option : endingBefore[stage])
      mostHeld[stage] = std::max(
          mostHeld[stage], mostHeld[option->segment.first] +
                               std::max(0.0, -double(option->cost.freed)));
  }
  double limit = double(budget);

  std::vector<std::vector<int>> covering(stages), endingAt(stages);
  for (auto [column, option] : llvm::enumerate(options)) {
    for (size_t stage = option.segment.first; stage <= option.segment.last;
         ++stage)
      covering[stage].push_back(static_cast<int>(column));
    endingAt[option.segment.last].push_back(static_cast<int>(column));
  }

  std::vector<CbcProgram::Term> terms;
  auto addRow = [&](char sense, double rhs) {
    program.addRow(terms, sense, rhs);
    terms.clear();
  };
  auto add = [&](int column, double coefficient) {
    terms.push_back({column, coefficient});
  };
  // A group's peak less what the segments below free fits the budget;
  // `relax` lifts the row when the group is not chosen.
  auto addPeakRow = [&](double peak, size_t first, double relax) {
    if (first)
      add(freedColumn(first), -1);
    addRow('L', limit - peak + relax);
  };
  for (size_t stage = 0; stage < stages; ++stage) {
    for (int column : covering[stage])
      add(column, 1);
    addRow('L', 1);
    if (stage + 1 < stages) {
      add(freedColumn(stage + 1), 1);
      if (stage)
        add(freedColumn(stage), -1);
      for (int column : endingAt[stage])
        add(column, -double(options[column].cost.freed));
      addRow('E', 0);
    }
    // Kept: lifted by any segment covering the stage.
    double kept = double(model.getKeptPeak(stage));
    double big = std::max(0.0, kept + mostHeld[stage] - limit);
    for (int column : covering[stage])
      add(column, -big);
    addPeakRow(kept, stage, 0);
  }
  for (auto [column, option] : llvm::enumerate(options)) {
    double peak = double(option.cost.peak);
    double big = std::max(0.0, peak + mostHeld[option.segment.first] - limit);
    add(static_cast<int>(column), big);
    addPeakRow(peak, option.segment.first, big);
  }
  for (const Choice &chosen : cuts) {
    std::vector<char> in(options.size(), 0);
    for (int column : chosen)
      in[column] = 1;
    for (int column = 0; column < optionCount; ++column)
      add(column, in[column] ? 1 : -1);
    addRow('L', double(chosen.size()) - 1);
  }

  CbcModel cbc = program.load();
  if (start) {
    std::vector<int> startColumns;
    std::vector<double> startValues;
    for (const PlannedSegment &segment : start->segments)
      startColumns.push_back(
          index.at({segment.first, segment.last, segment.option}));
    startValues.assign(startColumns.size(), 1);
    for (int column = 0; column < optionCount; ++column)
      if (!llvm::is_contained(startColumns, column)) {
        startColumns.push_back(column);
        startValues.push_back(0);
      }
    Cbc_setMIPStartI(cbc.get(), static_cast<int>(startColumns.size()),
                     startColumns.data(), startValues.data());
  }
  solveWithin(cbc.get(), seconds, nodes);

  SolveOutcome outcome;
  outcome.proven = Cbc_status(cbc.get()) == 0;
  outcome.bound = Cbc_getBestPossibleObjValue(cbc.get());
  if (const double *solution = Cbc_bestSolution(cbc.get())) {
    llvm::SmallVector<PlannedSegment> segments;
    for (int column = 0; column < optionCount; ++column)
      if (solution[column] > 0.5)
        segments.push_back(options[column].segment);
    llvm::sort(segments, [](const PlannedSegment &a, const PlannedSegment &b) {
      return a.first < b.first;
    });
    outcome.segments = std::move(segments);
  }
  return outcome;
}

} // namespace

IlpResult ckpt::findChainPlanIlp(const ChainModel &model,
                                 std::optional<int64_t> budget,
                                 const IlpLimits &limits, PeakMeasure measure,
                                 const std::optional<ChainPlan> &start) {
  IlpResult result;
  if (model.getStageCount() == 0) {
    result.plan = ChainPlan{};
    result.optimal = true;
    return result;
  }
  auto begin = std::chrono::steady_clock::now();
  ChainProgram program(model);
  std::optional<ChainPlan> incumbent = start;
  int64_t incumbentPeak = start ? measure(*start) : 0;

  if (!budget) {
    // The smallest model peak, which dp's front ends with, bounds what any
    // plan measures from below; the plan reaching it sets the budget for
    // the FLOPs.
    incumbent = findChainPlans(model).back();
    incumbentPeak = measure(*incumbent);
    budget = incumbentPeak;
  }
  // dp finds the model's optimum exactly, a lower bound of every fitting
  // plan's FLOPs; when its plan's measured peak fits, no solve is needed.
  uint64_t dpBound = 0;
  if (limits.dpPresolve) {
    llvm::SmallVector<ChainPlan> cheapest = findChainPlans(model, *budget);
    if (cheapest.empty()) {
      result.optimal = true;
      return result;
    }
    dpBound = cheapest.front().flops;
    int64_t measured = measure(cheapest.front());
    if (measured <= *budget) {
      incumbent = std::move(cheapest.front());
      incumbentPeak = measured;
      result.optimal = true;
    } else {
      program.cut(cheapest.front().segments);
    }
  }

  while (!result.optimal) {
    double left = limits.seconds - secondsSince(begin);
    if (left <= 0) {
      result.lowerBound = std::max(result.lowerBound, dpBound);
      break;
    }
    SolveOutcome outcome =
        program.solve(*budget, left, limits.nodes, incumbent);
    ++result.solves;
    // An infeasible program's bound is CBC's infinity (1e50), which no
    // integer holds: clamp it before converting.
    double bound = std::max(0.0, std::ceil(outcome.bound - 1e-6));
    result.lowerBound = std::max(
        dpBound, bound >= 0x1p64 ? UINT64_MAX : static_cast<uint64_t>(bound));
    if (!outcome.segments) {
      // Nothing fits the model (or none was found in time).
      result.optimal = outcome.proven && !incumbent;
      break;
    }
    std::optional<ChainPlan> plan = evaluateChainPlan(model, *outcome.segments);
    // The solver's tolerances may admit a plan the model does not.
    int64_t measured =
        plan && plan->peak <= *budget ? measure(*plan) : *budget + 1;
    if (measured > *budget) {
      program.cut(*outcome.segments);
      continue;
    }
    if (!incumbent || plan->flops <= incumbent->flops) {
      incumbent = std::move(plan);
      incumbentPeak = measured;
    }
    result.optimal = outcome.proven;
    break;
  }
  if (incumbent) {
    // Ties go to fewer segments, as in dp: drop segments that recompute
    // nothing while the plan still fits.
    for (size_t at = incumbent->segments.size(); at-- > 0;) {
      llvm::SmallVector<PlannedSegment> fewer = incumbent->segments;
      fewer.erase(fewer.begin() + at);
      std::optional<ChainPlan> candidate = evaluateChainPlan(model, fewer);
      if (!candidate || candidate->flops != incumbent->flops ||
          candidate->peak > *budget)
        continue;
      int64_t measured = measure(*candidate);
      if (measured > *budget)
        continue;
      incumbent = std::move(candidate);
      incumbentPeak = measured;
    }
    result.plan = std::move(incumbent);
    result.measuredPeak = incumbentPeak;
    if (result.optimal)
      result.lowerBound = result.plan->flops;
  }
  return result;
}
