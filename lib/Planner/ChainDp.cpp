//===- ChainDp.cpp - exact single-level plans for a chain of stages -------===//
//
// A label-setting search over the chain's group boundaries. A partial plan
// (the groups of the stages before a boundary) matters to the rest only
// through the bytes its segments free; it is dropped when another frees as
// many with no more FLOPs and no higher peak. Every partial plan is also
// completed at once by keeping the stages after it: those plans make the
// front found so far, and a partial plan (or a run from it) that the front
// already beats on peak and FLOPs cannot lead anywhere better and is
// dropped too, so the search stays exact.
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

int64_t ChainModel::getLowestPeakFrom(size_t first, size_t last) const {
  int64_t lowest = std::numeric_limits<int64_t>::max();
  for (; last < getStageCount(); ++last) {
    llvm::SmallVector<ChainSegment, 2> options =
        getSegmentOptions(first, last);
    if (options.empty())
      break;
    for (const ChainSegment &segment : options)
      lowest = std::min(lowest, segment.peak);
  }
  return lowest;
}

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

/// The labels no other label dominates (freeing at least as much with no
/// more FLOPs and, `withPeak`, no higher peak: under a budget every label
/// fits, so the peak only breaks ties).
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

/// Complete plans no other beats on both peak and FLOPs, by peak: a label
/// and whether the stages after its boundary are kept.
class Front {
public:
  struct Entry {
    uint64_t flops;
    unsigned segments;
    size_t boundary, label;
  };
  /// Whether a plan of this peak and these FLOPs (or fewer segments on a
  /// tie) would join the front.
  bool improves(int64_t peak, uint64_t flops) const {
    auto at = plans.upper_bound(peak);
    return at == plans.begin() || std::prev(at)->second.flops > flops;
  }
  void insert(int64_t peak, const Entry &entry) {
    auto at = plans.upper_bound(peak);
    if (at != plans.begin()) {
      auto [belowPeak, below] = *std::prev(at);
      if (below.flops < entry.flops ||
          (below.flops == entry.flops &&
           (belowPeak < peak || below.segments <= entry.segments)))
        return;
    }
    at = plans.lower_bound(peak);
    while (at != plans.end() && at->second.flops >= entry.flops)
      at = plans.erase(at);
    plans[peak] = entry;
  }
  const std::map<int64_t, Entry> &get() const { return plans; }

private:
  std::map<int64_t, Entry> plans;
};

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
  if (stages == 0)
    return {ChainPlan{{}, 0, 0}};
  std::vector<std::vector<Label>> candidates(stages + 1), labels(stages + 1);
  candidates[0].push_back({0, kNoPeak, 0, 0, 0, kKept, 0});
  auto fits = [&](int64_t peak) { return !budget || peak <= *budget; };
  // The most bytes live at any stage from each on when it is kept, for
  // completing a partial plan by keeping the rest.
  std::vector<int64_t> keptFrom(stages + 1, kNoPeak);
  for (size_t stage = stages; stage-- > 0;)
    keptFrom[stage] = std::max(keptFrom[stage + 1], model.getKeptPeak(stage));
  // Under a budget, freeing more than keeping every later stage needs buys
  // nothing: such labels count as freeing just that, so they collapse into
  // one.
  std::vector<int64_t> enough(stages + 1, std::numeric_limits<int64_t>::min());
  if (budget)
    for (size_t stage = stages; stage-- > 0;)
      enough[stage] = std::max(enough[stage + 1],
                               model.getKeptPeak(stage) - *budget);
  Front front;
  // A label that the front beats cannot lead to a plan it does not beat;
  // under a budget, one no cheaper than a plan that fits (or as cheap and
  // no lower).
  auto worthExtending = [&](int64_t peak, uint64_t flops) {
    if (!budget)
      return front.improves(peak, flops);
    if (peak > *budget)
      return false;
    if (front.get().empty())
      return true;
    auto [cheapestPeak, cheapest] = *front.get().rbegin();
    return flops < cheapest.flops ||
           (flops == cheapest.flops && peak < cheapestPeak);
  };
  std::vector<size_t> trimAt(stages + 1, 256);
  for (size_t first = 0; first <= stages; ++first) {
    if (budget)
      for (Label &label : candidates[first])
        label.freed = std::min(label.freed, std::max<int64_t>(enough[first], 0));
    labels[first] = prune(std::move(candidates[first]), !budget);
    for (auto [index, label] : llvm::enumerate(labels[first])) {
      int64_t completed =
          std::max(label.peak, first < stages ? keptFrom[first] - label.freed
                                              : kNoPeak);
      if (fits(completed))
        front.insert(completed, {label.flops, label.segments, first, index});
    }
    if (first == stages)
      break;
    auto add = [&](size_t next, Label label) {
      if (!worthExtending(label.peak, label.flops))
        return;
      candidates[next].push_back(label);
      // Dominated candidates go early, so that they are not sorted again
      // and again: the sets stay near their Pareto size.
      if (candidates[next].size() > trimAt[next]) {
        candidates[next] = prune(std::move(candidates[next]), !budget);
        trimAt[next] = 2 * candidates[next].size() + 256;
      }
    };
    for (auto [index, label] : llvm::enumerate(labels[first])) {
      if (!worthExtending(label.peak, label.flops))
        continue;
      add(first + 1, {label.freed,
                      std::max(label.peak, model.getKeptPeak(first) - label.freed),
                      label.flops, first, index, kKept, label.segments});
      for (size_t last = first; last < stages; ++last) {
        // No longer run can do better: all of them peak at least this.
        int64_t lowest = model.getLowestPeakFrom(first, last);
        if (lowest == std::numeric_limits<int64_t>::max() ||
            !worthExtending(std::max(label.peak, lowest - label.freed),
                            label.flops))
          break;
        for (auto [option, segment] :
             llvm::enumerate(model.getSegmentOptions(first, last)))
          add(last + 1,
              {label.freed + segment.freed,
               std::max(label.peak, segment.peak - label.freed),
               label.flops + segment.flops, first, index,
               static_cast<unsigned>(option), label.segments + 1});
      }
    }
  }

  // The front by FLOPs (peaks fall as FLOPs rise); under a budget, only the
  // cheapest plan.
  llvm::SmallVector<ChainPlan> plans;
  for (auto it = front.get().rbegin(); it != front.get().rend(); ++it) {
    const Front::Entry &entry = it->second;
    ChainPlan plan{{}, it->first, entry.flops};
    size_t boundary = entry.boundary;
    for (const Label *label = &labels[boundary][entry.label]; boundary != 0;) {
      if (label->option != kKept)
        plan.segments.push_back({label->from, boundary - 1, label->option});
      boundary = label->from;
      label = &labels[boundary][label->parent];
    }
    std::reverse(plan.segments.begin(), plan.segments.end());
    // What it frees may have been capped: score it again.
    if (budget)
      plan.peak = evaluateChainPlan(model, plan.segments)->peak;
    plans.push_back(std::move(plan));
    if (budget)
      break;
  }
  return plans;
}

int64_t ckpt::findLowestChainPeak(const ChainModel &model) {
  size_t stages = model.getStageCount();
  if (stages == 0)
    return 0;
  std::vector<int64_t> keptFrom(stages + 1, kNoPeak);
  for (size_t stage = stages; stage-- > 0;)
    keptFrom[stage] = std::max(keptFrom[stage + 1], model.getKeptPeak(stage));
  // (freed, peak) of partial plans; the lowest peak of a plan completed by
  // keeping the stages after its boundary bounds what is worth extending.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> labels(stages + 1);
  labels[0].push_back({0, kNoPeak});
  int64_t lowest = keptFrom[0];
  for (size_t first = 0; first < stages; ++first) {
    // The labels no other frees as much at no higher peak.
    std::vector<std::pair<int64_t, int64_t>> &here = labels[first];
    llvm::sort(here, [](auto &a, auto &b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::vector<std::pair<int64_t, int64_t>> kept;
    for (auto [freed, peak] : here)
      if (peak < lowest && (kept.empty() || peak < kept.back().second)) {
        kept.push_back({freed, peak});
        lowest = std::min(lowest, std::max(peak, keptFrom[first] - freed));
      }
    here = std::move(kept);
    for (auto [freed, peak] : here) {
      if (peak >= lowest)
        continue;
      labels[first + 1].push_back(
          {freed, std::max(peak, model.getKeptPeak(first) - freed)});
      for (size_t last = first; last < stages; ++last) {
        int64_t bound = model.getLowestPeakFrom(first, last);
        if (bound == std::numeric_limits<int64_t>::max() ||
            std::max(peak, bound - freed) >= lowest)
          break;
        for (const ChainSegment &segment : model.getSegmentOptions(first, last))
          labels[last + 1].push_back({freed + segment.freed,
                                      std::max(peak, segment.peak - freed)});
      }
    }
  }
  for (auto [freed, peak] : labels[stages])
    lowest = std::min(lowest, peak);
  return lowest;
}
