//===- ChainDp.cpp - exact single-level plans for a chain of stages -------===//
//
// A dynamic program from the chain's end. Whether the groups from a
// boundary on fit depends only on the slack there: the budget plus the
// bytes the segments before free. So each boundary gets a staircase, the
// fewest FLOPs that plan its later stages at each slack, built from the
// staircases of the boundaries after its first group. The first
// boundary's staircase is the Pareto front of peak against FLOPs; a budget
// reads it at one slack.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Planner/ChainDp.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <tuple>

using namespace ckpt;

ChainModel::~ChainModel() = default;

int64_t ChainModel::getLowestPeakFrom(size_t first, size_t last) const {
  int64_t lowest = std::numeric_limits<int64_t>::max();
  for (; last < getStageCount(); ++last) {
    llvm::SmallVector<ChainSegment, 2> options = getSegmentOptions(first, last);
    if (options.empty())
      break;
    for (const ChainSegment &segment : options)
      lowest = std::min(lowest, segment.peak);
  }
  return lowest;
}

namespace {

constexpr int64_t kNoPeak = std::numeric_limits<int64_t>::min();
constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();
constexpr unsigned kKept = std::numeric_limits<unsigned>::max();

/// `bytes` fewer, where kNoPeak stays kNoPeak.
int64_t less(int64_t bytes, int64_t fewer) {
  return bytes == kNoPeak ? kNoPeak : bytes - fewer;
}

/// `budget` plus `bytes`, held within int64 (a budget may be INT64_MAX).
int64_t plus(int64_t budget, int64_t bytes) {
  int64_t sum;
  if (!__builtin_add_overflow(budget, bytes, &sum))
    return sum;
  return bytes > 0 ? kNoLimit : kNoPeak + 1;
}

/// A step of a boundary's staircase: a plan of the stages from the
/// boundary on that fits whenever the slack there is at least `slack`.
struct Stair {
  /// The least slack it needs, raised to the least the boundary can have.
  int64_t slack;
  /// The least slack it needs: its peak, counted from the boundary.
  int64_t peak;
  uint64_t flops;
  unsigned segments;
  /// Its first group: the boundary after it, its segment option (or
  /// kKept), and the stair of that boundary the plan goes on with.
  size_t next;
  unsigned option;
  size_t stair;
};

/// A first group from a boundary followed by the stairs of the boundary
/// after it, from `at` on: the candidates of one run (or of keeping the
/// stage) for the boundary's staircase, by increasing slack and
/// decreasing FLOPs.
struct Follower {
  const std::vector<Stair> *after;
  size_t at;
  size_t next;
  unsigned option;
  int64_t peak, freed;
  uint64_t flops;
};

/// The candidate of `follower` at its stair, at least `least` slack.
Stair candidateOf(const Follower &follower, int64_t least) {
  const Stair &stair = (*follower.after)[follower.at];
  return {std::max({follower.peak, less(stair.slack, follower.freed), least}),
          std::max(follower.peak, less(stair.peak, follower.freed)),
          follower.flops + stair.flops,
          stair.segments + (follower.option != kKept),
          follower.next,
          follower.option,
          follower.at};
}

/// Whether candidate `a` goes first: less slack, then fewer FLOPs, a lower
/// peak, fewer segments, and the earlier follower.
bool precedes(const std::pair<Stair, size_t> &a,
              const std::pair<Stair, size_t> &b) {
  return std::tie(a.first.slack, a.first.flops, a.first.peak, a.first.segments,
                  a.second) < std::tie(b.first.slack, b.first.flops,
                                       b.first.peak, b.first.segments,
                                       b.second);
}

/// The candidates of `followers` no other beats (no more slack and fewer
/// FLOPs; on a tie, the lower peak and then fewer segments), up to
/// `highest` slack: a merge by slack that skips, in each follower, the
/// stairs that the staircase so far already beats (advancing `cursors`).
std::vector<Stair> mergeFollowers(std::vector<Follower> &cursors, int64_t least,
                                  int64_t highest) {
  // A min-heap of each follower's next candidate.
  std::vector<std::pair<Stair, size_t>> heap;
  auto later = [](const std::pair<Stair, size_t> &a,
                  const std::pair<Stair, size_t> &b) { return precedes(b, a); };
  auto push = [&](size_t index) {
    Stair candidate = candidateOf(cursors[index], least);
    if (candidate.slack > highest)
      return;
    heap.push_back({candidate, index});
    std::push_heap(heap.begin(), heap.end(), later);
  };
  for (size_t index = 0; index < cursors.size(); ++index)
    push(index);
  std::vector<Stair> staircase;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    auto [candidate, index] = heap.back();
    heap.pop_back();
    // A follower's next candidate may need no more slack than the last
    // stair (both raised to `least`) and beat it.
    if (!staircase.empty() && candidate.slack == staircase.back().slack) {
      const Stair &last = staircase.back();
      if (std::tie(candidate.flops, candidate.peak, candidate.segments) <
          std::tie(last.flops, last.peak, last.segments))
        staircase.back() = candidate;
    } else if (staircase.empty() || candidate.flops < staircase.back().flops) {
      staircase.push_back(candidate);
    }
    // The follower's later stairs need more slack; those dearer than the
    // staircase's last are beaten. Its FLOPs fall along the stairs.
    Follower &cursor = cursors[index];
    const std::vector<Stair> &after = *cursor.after;
    uint64_t cheapest = staircase.back().flops;
    auto next = std::partition_point(
        after.begin() + cursor.at + 1, after.end(), [&](const Stair &stair) {
          return cursor.flops + stair.flops > cheapest;
        });
    if (next == after.end())
      continue;
    cursor.at = static_cast<size_t>(next - after.begin());
    push(index);
  }
  return staircase;
}

/// Calls `each(last, segment, option)` for every way a run from `first`
/// may be one segment whose peak is at most `highest`.
template <typename Each>
void forEachRun(const ChainModel &model, size_t first, int64_t highest,
                Each each) {
  for (size_t last = first; last < model.getStageCount(); ++last) {
    // No longer run from `first` peaks lower (INT64_MAX: none may be one).
    int64_t lowest = model.getLowestPeakFrom(first, last);
    if (lowest == std::numeric_limits<int64_t>::max() || lowest > highest)
      return;
    for (auto [option, segment] :
         llvm::enumerate(model.getSegmentOptions(first, last)))
      if (segment.peak <= highest)
        each(last, segment, static_cast<unsigned>(option));
  }
}

/// The least and, under `budget`, the most a partial plan to each boundary
/// frees (the most among those that fit; INT64_MIN where none reaches it;
/// not computed without a budget).
struct FreedRange {
  std::vector<int64_t> least, most;
};

FreedRange getFreedRange(const ChainModel &model,
                         std::optional<int64_t> budget) {
  size_t stages = model.getStageCount();
  FreedRange range{std::vector<int64_t>(stages + 1, kNoLimit),
                   std::vector<int64_t>(stages + 1, kNoPeak)};
  range.least[0] = range.most[0] = 0;
  for (size_t first = 0; first < stages; ++first) {
    int64_t least = range.least[first];
    range.least[first + 1] = std::min(range.least[first + 1], least);
    forEachRun(model, first, kNoLimit,
               [&](size_t last, const ChainSegment &segment, unsigned) {
                 range.least[last + 1] =
                     std::min(range.least[last + 1], least + segment.freed);
               });
    // Freeing more only ever helps a plan fit; without a budget the most
    // is not needed.
    int64_t most = range.most[first];
    if (!budget || most == kNoPeak)
      continue;
    int64_t highest = plus(*budget, most);
    if (model.getKeptPeak(first) <= highest)
      range.most[first + 1] = std::max(range.most[first + 1], most);
    forEachRun(model, first, highest,
               [&](size_t last, const ChainSegment &segment, unsigned) {
                 range.most[last + 1] =
                     std::max(range.most[last + 1], most + segment.freed);
               });
  }
  return range;
}

/// The staircase of every boundary, for budgets of at least `lowest` (and
/// at most `budget`, when given).
std::vector<std::vector<Stair>> getStaircases(const ChainModel &model,
                                              int64_t lowest,
                                              std::optional<int64_t> budget) {
  size_t stages = model.getStageCount();
  FreedRange freed = getFreedRange(model, budget);
  std::vector<std::vector<Stair>> staircases(stages + 1);
  staircases[stages].push_back(
      {plus(lowest, freed.least[stages]), kNoPeak, 0, 0, stages, kKept, 0});
  std::vector<Follower> followers;
  for (size_t first = stages; first-- > 0;) {
    // The slack at `first` lies in [least, highest].
    int64_t least = plus(lowest, freed.least[first]);
    int64_t highest = kNoLimit;
    if (budget) {
      if (freed.most[first] == kNoPeak)
        continue;
      highest = plus(*budget, freed.most[first]);
    }
    followers.clear();
    // Following `next`'s stairs after a first group needing at least
    // `peak` and freeing `bytes`. The stairs up to the last needing no more
    // than the group are as good as that one, the cheapest of them.
    auto follow = [&](size_t next, int64_t peak, int64_t bytes, uint64_t flops,
                      unsigned option) {
      const std::vector<Stair> &after = staircases[next];
      if (after.empty())
        return;
      auto from = llvm::upper_bound(after, peak,
                                    [&](int64_t value, const Stair &stair) {
                                      return value < less(stair.slack, bytes);
                                    });
      if (from != after.begin())
        --from;
      followers.push_back({&after, static_cast<size_t>(from - after.begin()),
                           next, option, peak, bytes, flops});
    };
    follow(first + 1, model.getKeptPeak(first), 0, 0, kKept);
    forEachRun(model, first, highest,
               [&](size_t last, const ChainSegment &segment, unsigned option) {
                 follow(last + 1, segment.peak, segment.freed, segment.flops,
                        option);
               });
    staircases[first] = mergeFollowers(followers, least, highest);
  }
  return staircases;
}

/// The plan of `stair`, the first boundary's, with its peak and FLOPs.
ChainPlan getPlan(const std::vector<std::vector<Stair>> &staircases,
                  const Stair &stair) {
  ChainPlan plan{{}, stair.peak, stair.flops};
  size_t boundary = 0;
  for (const Stair *at = &stair; at->next != boundary;) {
    if (at->option != kKept)
      plan.segments.push_back({boundary, at->next - 1, at->option});
    boundary = at->next;
    at = &staircases[boundary][at->stair];
  }
  return plan;
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

int64_t ckpt::findLowestChainPeak(const ChainModel &model) {
  size_t stages = model.getStageCount();
  if (stages == 0)
    return 0;
  // lowest[first]: the least slack at `first` that plans the rest.
  std::vector<int64_t> lowest(stages + 1, kNoPeak);
  for (size_t first = stages; first-- > 0;) {
    int64_t best = std::max(model.getKeptPeak(first), lowest[first + 1]);
    forEachRun(model, first, best - 1,
               [&](size_t last, const ChainSegment &segment, unsigned) {
                 best = std::min(
                     best, std::max(segment.peak,
                                    less(lowest[last + 1], segment.freed)));
               });
    lowest[first] = best;
  }
  return lowest[0];
}

llvm::SmallVector<ChainPlan>
ckpt::findChainPlans(const ChainModel &model, std::optional<int64_t> budget) {
  if (model.getStageCount() == 0)
    return {ChainPlan{{}, 0, 0}};
  int64_t lowest = budget ? *budget : findLowestChainPeak(model);
  std::vector<std::vector<Stair>> staircases =
      getStaircases(model, lowest, budget);
  const std::vector<Stair> &front = staircases[0];
  llvm::SmallVector<ChainPlan> plans;
  if (budget) {
    if (!front.empty() && front.front().peak <= *budget)
      plans.push_back(getPlan(staircases, front.front()));
    return plans;
  }
  for (const Stair &stair : llvm::reverse(front))
    plans.push_back(getPlan(staircases, stair));
  return plans;
}

llvm::SmallVector<ChainPlan>
ckpt::thinChainPlans(llvm::ArrayRef<ChainPlan> front, size_t most) {
  assert(most != 1 && "thinning to one plan leaves no spread");
  if (most == 0 || front.size() <= most)
    return llvm::SmallVector<ChainPlan>(front);
  double highest = double(front.front().peak);
  double lowest = double(front.back().peak);
  llvm::SmallVector<ChainPlan> thinned;
  // The front's peaks fall as its FLOPs rise: the first plan within a peak
  // is the cheapest within it.
  size_t at = 0, taken = front.size();
  for (size_t step = 0; step < most; ++step) {
    double peak = highest - (highest - lowest) * double(step) / double(most - 1);
    while (at < front.size() && double(front[at].peak) > peak)
      ++at;
    if (at == front.size())
      break;
    if (at != taken)
      thinned.push_back(front[at]);
    taken = at;
  }
  return thinned;
}
