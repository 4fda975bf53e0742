//===- ChainDp.cpp - exact single-level plans for a chain of stages -------===//
//
// A label-setting search over the chain's group boundaries. A partial plan
// (the groups of the stages before a boundary) matters to the rest only
// through the bytes its segments free; it is dropped when another frees as
// many with no more FLOPs and no higher peak, so every label left is on
// the Pareto front of its prefix and the search is exact.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Planner/ChainDp.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

using namespace ckpt;

ChainModel::~ChainModel() = default;

namespace {

constexpr int64_t kNoPeak = std::numeric_limits<int64_t>::min();
constexpr unsigned kKept = std::numeric_limits<unsigned>::max();

/// A partial plan ending at a group boundary.
struct Label {
  int64_t freed;
  int64_t peak;
  uint64_t flops;
  /// The boundary the last group starts at and that boundary's label.
  size_t from;
  size_t parent;
  /// The segment option of the last group, or kKept.
  unsigned option;
  /// Segments in the partial plan: fewer wins a tie.
  unsigned segments;
};

/// The labels no other label dominates. With a budget every label fits, so
/// the peak only breaks ties.
std::vector<Label> prune(std::vector<Label> labels, bool withPeak) {
  llvm::sort(labels, [](const Label &a, const Label &b) {
    if (a.freed != b.freed)
      return a.freed > b.freed;
    return std::tie(a.flops, a.peak, a.segments) <
           std::tie(b.flops, b.peak, b.segments);
  });
  std::vector<Label> kept;
  if (!withPeak) {
    uint64_t cheapest = std::numeric_limits<uint64_t>::max();
    for (const Label &label : labels)
      if (label.flops < cheapest) {
        cheapest = label.flops;
        kept.push_back(label);
      }
    return kept;
  }
  // Among the labels freeing at least as much (those seen), the (flops,
  // peak) staircase: peaks fall as flops rise.
  std::map<uint64_t, int64_t> staircase;
  for (const Label &label : labels) {
    auto after = staircase.upper_bound(label.flops);
    if (after != staircase.begin() && std::prev(after)->second <= label.peak)
      continue;
    while (after != staircase.end() && after->second >= label.peak)
      after = staircase.erase(after);
    staircase[label.flops] = label.peak;
    kept.push_back(label);
  }
  return kept;
}

} // namespace

std::optional<ChainPlan>
ckpt::evaluateChainPlan(const ChainModel &model,
                        llvm::ArrayRef<PlannedSegment> segments) {
  ChainPlan plan{llvm::SmallVector<PlannedSegment>(segments), kNoPeak, 0};
  int64_t freed = 0;
  const auto *next = segments.begin();
  for (size_t stage = 0; stage < model.getStageCount();) {
    if (next != segments.end() && next->first == stage) {
      llvm::SmallVector<ChainSegment, 2> options =
          model.getSegmentOptions(next->first, next->last);
      if (next->option >= options.size())
        return std::nullopt;
      const ChainSegment &segment = options[next->option];
      plan.peak = std::max(plan.peak, segment.peak - freed);
      plan.flops += segment.flops;
      freed += segment.freed;
      stage = next++->last + 1;
      continue;
    }
    plan.peak = std::max(plan.peak, model.getKeptPeak(stage) - freed);
    ++stage;
  }
  return plan;
}

llvm::SmallVector<ChainPlan>
ckpt::findChainPlans(const ChainModel &model, std::optional<int64_t> budget) {
  size_t stages = model.getStageCount();
  std::vector<std::vector<Label>> candidates(stages + 1), labels(stages + 1);
  candidates[0].push_back({0, kNoPeak, 0, 0, 0, kKept, 0});
  auto fits = [&](int64_t peak) { return !budget || peak <= *budget; };
  // Under a budget, freeing more than keeping every later stage needs buys
  // nothing: such labels count as freeing just that (keeping the rest is
  // then free), so they collapse into one.
  std::vector<int64_t> enough(stages + 1, std::numeric_limits<int64_t>::min());
  for (size_t stage = stages; stage-- > 0;)
    enough[stage] = std::max(enough[stage + 1],
                             budget ? model.getKeptPeak(stage) - *budget : 0);
  std::vector<size_t> trimAt(stages + 1, 256);
  for (size_t first = 0; first < stages; ++first) {
    if (budget)
      for (Label &label : candidates[first])
        label.freed = std::min(label.freed, std::max<int64_t>(enough[first], 0));
    labels[first] = prune(std::move(candidates[first]), !budget);
    llvm::SmallVector<llvm::SmallVector<ChainSegment, 2>> runs;
    for (size_t last = first; last < stages; ++last) {
      runs.push_back(model.getSegmentOptions(first, last));
      if (runs.back().empty()) {
        runs.pop_back();
        break;
      }
    }
    // A group fits after a label when its peak less what the label frees
    // is within the budget (every label fits already); labels come
    // most-freeing first, so the first that does not fit ends the scan.
    auto extend = [&](int64_t groupPeak, const ChainSegment *segment,
                      unsigned option, size_t next) {
      for (auto [index, label] : llvm::enumerate(labels[first])) {
        int64_t peak = std::max(label.peak, groupPeak - label.freed);
        if (!fits(peak))
          break;
        if (!segment) {
          candidates[next].push_back({label.freed, peak, label.flops, first,
                                      index, kKept, label.segments});
          continue;
        }
        candidates[next].push_back({label.freed + segment->freed, peak,
                                    label.flops + segment->flops, first, index,
                                    option, label.segments + 1});
      }
    };
    auto extendAndTrim = [&](int64_t groupPeak, const ChainSegment *segment,
                             unsigned option, size_t next) {
      extend(groupPeak, segment, option, next);
      // Dominated candidates go early, so that they are not sorted again
      // and again: the sets stay near their Pareto size.
      if (candidates[next].size() > trimAt[next]) {
        candidates[next] = prune(std::move(candidates[next]), !budget);
        trimAt[next] = 2 * candidates[next].size() + 256;
      }
    };
    extendAndTrim(model.getKeptPeak(first), nullptr, kKept, first + 1);
    for (auto [length, options] : llvm::enumerate(runs))
      for (auto [option, segment] : llvm::enumerate(options))
        extendAndTrim(segment.peak, &segment, option, first + length + 1);
  }

  // The front of complete plans (what they free no longer matters) by
  // FLOPs, then peak, then segments.
  std::vector<Label> &complete = labels[stages];
  complete = std::move(candidates[stages]);
  llvm::sort(complete, [](const Label &a, const Label &b) {
    return std::tie(a.flops, a.peak, a.segments) <
           std::tie(b.flops, b.peak, b.segments);
  });
  llvm::SmallVector<ChainPlan> front;
  int64_t lowest = std::numeric_limits<int64_t>::max();
  for (const Label &end : complete) {
    if (end.peak >= lowest)
      continue;
    lowest = end.peak;
    ChainPlan plan{{}, stages ? end.peak : 0, end.flops};
    size_t boundary = stages;
    for (const Label *label = &end; boundary != 0;) {
      if (label->option != kKept)
        plan.segments.push_back({label->from, boundary - 1, label->option});
      boundary = label->from;
      label = &labels[boundary][label->parent];
    }
    std::reverse(plan.segments.begin(), plan.segments.end());
    // What it frees may have been capped: score it again.
    if (budget)
      plan.peak = evaluateChainPlan(model, plan.segments)->peak;
    front.push_back(std::move(plan));
    if (budget)
      break;
  }
  return front;
}
