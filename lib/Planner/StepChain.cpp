//===- StepChain.cpp - a training step as the dp planner's chain ----------===//
//
// Ops that may not be recomputed are stages of their own, always kept.
// Program points go to stages: a forward op to its own, a backward op to
// the lowest stage whose values backward has read by then (reading a
// stage's boundary activation touches the stage after it). Stages are
// merged until every stage above a backward op's has had its last read,
// so that at each point the segments of lower stages still hold nothing
// and those of higher stages hold nothing any more.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Planner/StepChain.h"

#include "ckpt/Analysis/MemorySimulator.h"
#include "ckpt/Analysis/StepCost.h"
#include "ckpt/Planner/Recompute.h"
#include "ckpt/Planner/Strategies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <set>

using namespace mlir;
using namespace ckpt;

namespace {

constexpr int64_t kNever = -1;

/// The stage of each point of the step's timeline (0 is the arguments
/// alone, i + 1 the op at position i), or the first two stages that must
/// merge.
struct PointStages {
  SmallVector<size_t> stageOf;
  std::optional<std::pair<size_t, size_t>> merge;
};

PointStages assignPoints(ArrayRef<Operation *> schedule,
                         const DenseMap<Operation *, size_t> &position,
                         ArrayRef<Stage> stages) {
  size_t count = stages.size();
  PointStages points;
  points.stageOf.assign(schedule.size() + 1, 0);
  if (count == 0)
    return points;
  // When backward first touches each stage and last reads its values.
  SmallVector<int64_t> firstTouch(count, std::numeric_limits<int64_t>::max());
  SmallVector<int64_t> lastRead(count, kNever);
  // Constants take no heap bytes, so backward reading one (a forward
  // scale factor, say) touches no stage.
  for (auto [index, stage] : llvm::enumerate(stages))
    for (Operation *op : stage.ops) {
      if (op->hasTrait<OpTrait::ConstantLike>())
        continue;
      for (Value result : op->getResults()) {
        bool boundary = llvm::is_contained(stage.boundary, result);
        size_t touched = boundary ? index + 1 : index;
        for (Operation *user : result.getUsers()) {
          Operation *reader = op->getBlock()->findAncestorOpInBlock(*user);
          if (!reader || !isBackwardOp(reader))
            continue;
          int64_t at = position.lookup(reader);
          if (touched < count)
            firstTouch[touched] = std::min(firstTouch[touched], at);
          lastRead[index] = std::max(lastRead[index], at);
        }
      }
    }
  // The latest read of any stage above each stage.
  SmallVector<int64_t> lastReadAbove(count, kNever);
  for (size_t stage = count - 1; stage > 0; --stage)
    lastReadAbove[stage - 1] = std::max(lastReadAbove[stage], lastRead[stage]);

  for (auto [index, stage] : llvm::enumerate(stages))
    for (Operation *op : stage.ops)
      points.stageOf[position.lookup(op) + 1] = index;
  // Stages 0..s touched by now: prefixTouch[s] has passed.
  SmallVector<int64_t> prefixTouch(firstTouch);
  for (size_t stage = 1; stage < count; ++stage)
    prefixTouch[stage] = std::min(prefixTouch[stage], prefixTouch[stage - 1]);
  size_t lowestTouched = count - 1;
  for (auto [at, op] : llvm::enumerate(schedule)) {
    if (!isBackwardOp(op))
      continue;
    while (lowestTouched > 0 &&
           prefixTouch[lowestTouched - 1] <= static_cast<int64_t>(at))
      --lowestTouched;
    points.stageOf[at + 1] = lowestTouched;
    if (lastReadAbove[lowestTouched] >= static_cast<int64_t>(at)) {
      size_t last = lowestTouched + 1;
      for (size_t stage = lowestTouched + 1; stage < count; ++stage)
        if (lastRead[stage] >= static_cast<int64_t>(at))
          last = stage;
      points.merge = {lowestTouched, last};
      return points;
    }
  }
  return points;
}

/// `stages` with every op that may not be in a segment made a stage of its
/// own, so that the ops around it can still be recomputed; the activations
/// crossing the new cuts are their boundary.
SmallVector<Stage> isolateUnsegmentable(ArrayRef<Stage> stages) {
  SmallVector<Stage> split;
  for (const Stage &stage : stages) {
    SmallVector<bool> alone = llvm::map_to_vector(stage.ops, [](Operation *op) {
      return !whyNotSegmentable(op).empty();
    });
    if (llvm::none_of(alone, [](bool isAlone) { return isAlone; })) {
      split.push_back(stage);
      continue;
    }
    SmallVector<SmallVector<Operation *>> parts;
    bool afterAlone = true;
    for (auto [op, isAlone] : llvm::zip_equal(stage.ops, alone)) {
      if (isAlone || afterAlone)
        parts.emplace_back();
      parts.back().push_back(op);
      afterAlone = isAlone;
    }
    for (ArrayRef<Operation *> part : parts) {
      Stage &cut = split.emplace_back(Stage{SmallVector<Operation *>(part), {}});
      llvm::SmallPtrSet<Operation *, 8> inside(part.begin(), part.end());
      for (Operation *op : part)
        for (Value result : op->getResults())
          if (llvm::any_of(result.getUsers(), [&](Operation *user) {
                return !inside.contains(user) && !isBackwardOp(user);
              }))
            cut.boundary.push_back(result);
    }
    split.back().boundary = stage.boundary;
  }
  return split;
}

/// The keep thresholds of a chain: `base`, then, ascending, the FLOPs per
/// element of the ops in `stages` above it (each keeps the ops costlier
/// than itself, so the costliest ops' own is left out: it keeps nothing),
/// spread over the sorted costs when there are more than fit.
SmallVector<unsigned> findKeepThresholds(ArrayRef<Stage> stages,
                                         unsigned base) {
  std::set<uint64_t> costs;
  for (const Stage &stage : stages)
    for (Operation *op : stage.ops)
      if (std::optional<uint64_t> perElement = getFlopsPerElement(op);
          perElement && *perElement > base &&
          *perElement <= std::numeric_limits<unsigned>::max())
        costs.insert(*perElement);
  SmallVector<uint64_t> higher(costs.begin(), costs.end());
  if (!higher.empty())
    higher.pop_back();
  SmallVector<unsigned> thresholds = {base};
  size_t count = std::min(higher.size(), StepChain::kMaxKeepThresholds - 1);
  for (size_t index = 0; index < count; ++index)
    thresholds.push_back(
        static_cast<unsigned>(higher[index * higher.size() / count]));
  return thresholds;
}

/// How many of `thresholds` (ascending) `op`'s FLOPs per element exceed.
uint8_t getKeepLevel(Operation *op, ArrayRef<unsigned> thresholds) {
  std::optional<uint64_t> perElement = getFlopsPerElement(op);
  uint8_t level = 0;
  while (perElement && level < thresholds.size() &&
         *perElement > thresholds[level])
    ++level;
  return level;
}

/// Range additions and range maxima over a sequence, each in O(log n): a
/// segment tree whose inner nodes hold the largest value below them and
/// what was added to all of their range.
class MaxTree {
public:
  void reset(ArrayRef<int64_t> leaves) {
    size = leaves.size();
    width = llvm::PowerOf2Ceil(std::max<size_t>(size, 1));
    height = llvm::Log2_64(width);
    top.assign(2 * width, kNone);
    pending.assign(width, 0);
    llvm::copy(leaves, top.begin() + width);
    for (size_t node = width - 1; node > 0; --node)
      top[node] = std::max(top[2 * node], top[2 * node + 1]);
  }
  /// Adds `delta` to values from..to (inclusive; nothing when from > to).
  void add(int64_t from, int64_t to, int64_t delta) {
    to = std::min<int64_t>(to, size - 1);
    if (from > to || delta == 0)
      return;
    size_t low = from + width, high = to + width + 1;
    size_t firstLeaf = low, lastLeaf = high - 1;
    for (; low < high; low /= 2, high /= 2) {
      if (low & 1)
        addTo(low++, delta);
      if (high & 1)
        addTo(--high, delta);
    }
    raise(firstLeaf);
    raise(lastLeaf);
  }
  /// The largest of values from..to (from <= to).
  int64_t get(int64_t from, int64_t to) {
    size_t low = from + width, high = to + width + 1;
    settle(low);
    settle(high - 1);
    int64_t best = kNone;
    for (; low < high; low /= 2, high /= 2) {
      if (low & 1)
        best = std::max(best, top[low++]);
      if (high & 1)
        best = std::max(best, top[--high]);
    }
    return best;
  }
  /// The largest value.
  int64_t get() const { return top[1]; }

private:
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::min() / 2;
  void addTo(size_t node, int64_t delta) {
    top[node] += delta;
    if (node < width)
      pending[node] += delta;
  }
  /// Recomputes the nodes above `node`.
  void raise(size_t node) {
    for (node /= 2; node > 0; node /= 2)
      top[node] = std::max(top[2 * node], top[2 * node + 1]) + pending[node];
  }
  /// Moves what was added above `node` down to it.
  void settle(size_t node) {
    for (unsigned shift = height; shift > 0; --shift) {
      size_t above = node >> shift;
      if (pending[above] == 0)
        continue;
      addTo(2 * above, pending[above]);
      addTo(2 * above + 1, pending[above]);
      pending[above] = 0;
    }
  }

  size_t size = 0, width = 1;
  unsigned height = 0;
  std::vector<int64_t> top, pending;
};

/// Point additions and suffix sums, each in O(log n).
class SuffixSums {
public:
  void reset(size_t count) { sums.assign(count + 1, 0); }
  void add(size_t index, int64_t delta) {
    for (size_t i = sums.size() - 1 - index; i < sums.size(); i |= i + 1)
      sums[i] += delta;
  }
  /// The sum of the values at `index` and after.
  int64_t from(size_t index) const {
    int64_t total = 0;
    for (int64_t i = static_cast<int64_t>(sums.size()) - 1 - index; i >= 0;
         i = (i & (i + 1)) - 1)
      total += sums[i];
    return total;
  }

private:
  std::vector<int64_t> sums;
};

/// The training step as the run model reads it: ops in program order
/// (numbered from 0; `opCount` stands for the end of the step, where
/// returned values are used), values (arguments and results), the buffers
/// they live in (a reshape's result is a view of its input's) with their
/// lifetimes without a plan, and the simulated timeline.
///
/// A run of stages as a segment moves the backward reads of the values it
/// recomputes onto copies a recompute region makes right before the first
/// of those reads, and the region reads its inputs there. Only those
/// buffers (the recomputed values', the region's inputs', and the copies)
/// change lifetime; every other buffer is live exactly as without the plan.
/// So the run's live bytes at each of the step's ops are the unplanned
/// timeline plus the difference those few lifetimes make, and at the
/// region's ops the bytes live across the region's place plus the copies.
class StepLifetimes {
public:
  struct ValueInfo {
    int32_t buffer = -1;
    /// The op that makes it; -1 for an argument.
    int32_t producer = -1;
    /// Last use of any kind and last use by a forward op (opCount: it is
    /// returned); -1 for none.
    int32_t lastUse = -1, lastForwardUse = -1;
    /// First backward op reading it, and last reading it or a backward
    /// view of it; -1 for none.
    int32_t firstBackwardUse = -1, lastBackwardUse = -1;
    /// For a view made by a backward op: the forward value it views
    /// (through other such views), whose replacement it follows; else -1.
    int32_t backwardViewOf = -1;
    /// The highest stage of a forward op reading it (INT32_MAX when it is
    /// returned); -1 for none.
    int32_t lastForwardStage = -1;
  };
  struct BufferInfo {
    int64_t bytes = 0;
    /// The op allocating it (-1: an argument, live throughout) and the op
    /// after which it is freed (opCount: returned).
    int32_t def = -1, last = -1;
    llvm::SmallVector<int32_t, 1> members;
  };
  struct OpInfo {
    llvm::SmallVector<int32_t, 4> operands, results;
    /// The forward stage, or -1 for a backward op.
    int32_t stage = -1;
    bool view = false;
    /// How many keep thresholds its FLOPs per result element exceed.
    uint8_t keepLevel = 0;
    uint64_t flops = 0;
    int64_t scratch = 0, allocated = 0;
  };

  StepLifetimes(func::FuncOp step, ArrayRef<Stage> stages,
                ArrayRef<size_t> pointStages, const MemoryPeak &none,
                ArrayRef<unsigned> keepThresholds);

  /// Each run of stages from `first` up to before `end` as the only
  /// segment, keeping the results of the ops above the first `keepLevel`
  /// thresholds (none at 0), to `record` with
  /// its last stage. Each longer run changes what the shorter one did by the
  /// values it recomputes besides, so the runs from one stage cost about
  /// the run's ops and their uses, each in O(log ops), all together.
  void sweepRuns(size_t first, size_t end, unsigned keepLevel,
                 llvm::function_ref<void(size_t, const ChainSegment &)> record);

private:
  /// A lifetime with the plan: to the step's op `at`, or to the region's
  /// copy of the forward op at position `at`.
  struct Lifetime {
    bool inRegion;
    int32_t at;
    bool operator==(const Lifetime &other) const {
      return inRegion == other.inRegion && at == other.at;
    }
  };
  /// A buffer of the step a run changes: its last use by the step's ops
  /// (as the plan leaves them, and by the backward reads moved to it from
  /// a view the region makes of it) and by the region's ops (a forward
  /// position; -1 for none), and the lifetime its contribution was added
  /// with (keyed by its last use by the step's ops).
  struct Original {
    int32_t ownUse, redirectedUse, regionUse;
    Lifetime applied;
    int32_t appliedKey;
  };
  /// A buffer the region makes: where (a forward position), its bytes, its
  /// last reads by the region and by backward (-1 for none), and the
  /// lifetime its contribution was added with.
  struct Copy {
    int64_t bytes = 0;
    int32_t position = 0, regionUse = -1, redirectedUse = -1;
    Lifetime applied;
  };


  SmallVector<OpInfo> ops;
  SmallVector<ValueInfo> values;
  SmallVector<BufferInfo> buffers;
  /// Each stage's forward ops, and the op ranges (inclusive) its points
  /// cover.
  SmallVector<SmallVector<int32_t>> stageOps;
  SmallVector<SmallVector<std::pair<int32_t, int32_t>, 2>> stageRanges;
  /// Live bytes while each op runs without a plan, and with the arguments
  /// alone.
  SmallVector<int64_t> live;
  int64_t argumentsAlone = 0;
  /// The forward ops in order, each op's place among them, and the values
  /// backward reads, by the stage of the last forward op reading or making
  /// them: a run recomputes them from that stage on.
  SmallVector<int32_t> forwardOps, forwardPosition;
  SmallVector<SmallVector<int32_t>> recomputableAt;

  // State of one sweep: marks of the current sweep (`stamp`) on recomputed
  // values, region ops, values with a region copy and tracked buffers;
  // live bytes with the plan at the step's ops and (relative to what is
  // live across the region's place) at the region's ops, by forward
  // position; per op, the bytes of tracked buffers freed after it less
  // those it would free without the plan; the tracked buffers dying in
  // the region, by their last use by the step's ops.
  unsigned stamp = 0;
  SmallVector<unsigned> recomputedStamp, sliceStamp, copyStamp, originalStamp;
  SmallVector<std::pair<int32_t, int32_t>> copyOf;
  SmallVector<Original> originals;
  SmallVector<Copy> copies;
  MaxTree atOps, regionTree;
  SuffixSums dying;
  std::set<std::pair<int32_t, int32_t>> regionOriginals;
};

StepLifetimes::StepLifetimes(func::FuncOp step, ArrayRef<Stage> stages,
                             ArrayRef<size_t> pointStages,
                             const MemoryPeak &none,
                             ArrayRef<unsigned> keepThresholds) {
  Block &entry = step.getBody().front();
  DenseMap<Value, int32_t> valueIndex;
  DenseMap<Operation *, int32_t> opIndex;
  auto addValue = [&](Value value, int32_t producer) {
    valueIndex[value] = values.size();
    values.push_back({});
    values.back().producer = producer;
  };
  for (BlockArgument arg : entry.getArguments())
    addValue(arg, -1);
  for (Operation &op : entry.without_terminator()) {
    int32_t index = ops.size();
    opIndex[&op] = index;
    OpInfo &info = ops.emplace_back();
    info.view = isa<ReshapeOp>(op);
    if (auto costed = dyn_cast<CostOpInterface>(op)) {
      info.flops = costed.getFlops();
      info.scratch = static_cast<int64_t>(costed.getScratchBytes());
    }
    info.keepLevel = getKeepLevel(&op, keepThresholds);
    for (Value operand : op.getOperands())
      info.operands.push_back(valueIndex.lookup(operand));
    for (Value result : op.getResults()) {
      info.results.push_back(values.size());
      addValue(result, index);
    }
  }
  int32_t opCount = ops.size();
  stageOps.resize(stages.size());
  for (auto [index, stage] : llvm::enumerate(stages))
    for (Operation *op : stage.ops) {
      ops[opIndex.lookup(op)].stage = index;
      stageOps[index].push_back(opIndex.lookup(op));
    }
  stageRanges.resize(stages.size());
  for (int32_t op = 0; op < opCount; ++op) {
    auto &ranges = stageRanges[pointStages[op + 1]];
    if (!ranges.empty() && ranges.back().second + 1 == op)
      ranges.back().second = op;
    else
      ranges.push_back({op, op});
  }

  // Uses: the ops reading each value, and the end for returned values.
  auto addUse = [&](int32_t value, int32_t user) {
    ValueInfo &info = values[value];
    info.lastUse = std::max(info.lastUse, user);
    bool backward = user < opCount && ops[user].stage < 0;
    if (backward) {
      if (info.firstBackwardUse < 0)
        info.firstBackwardUse = user;
      info.lastBackwardUse = user;
      return;
    }
    info.lastForwardUse = std::max(info.lastForwardUse, user);
    info.lastForwardStage = std::max(
        info.lastForwardStage, user < opCount ? ops[user].stage : INT32_MAX);
  };
  for (auto [index, op] : llvm::enumerate(ops))
    for (int32_t operand : op.operands)
      addUse(operand, index);
  for (Value value : entry.getTerminator()->getOperands())
    addUse(valueIndex.lookup(value), opCount);

  for (auto [index, value] : llvm::enumerate(values)) {
    if (value.producer < 0 || ops[value.producer].stage >= 0 ||
        !ops[value.producer].view)
      continue;
    int32_t source = ops[value.producer].operands[0];
    value.backwardViewOf = values[source].backwardViewOf >= 0
                               ? values[source].backwardViewOf
                               : source;
    ValueInfo &viewed = values[value.backwardViewOf];
    viewed.lastBackwardUse = std::max(viewed.lastBackwardUse, value.lastUse);
  }

  // Buffers: a view joins its input's; an unused buffer is freed right
  // after it is made; constants take no heap bytes.
  for (auto [index, value] : llvm::enumerate(values)) {
    bool view = value.producer >= 0 && ops[value.producer].view;
    if (view) {
      value.buffer = values[ops[value.producer].operands[0]].buffer;
    } else {
      value.buffer = buffers.size();
      BufferInfo &buffer = buffers.emplace_back();
      buffer.def = value.producer;
      buffer.last = value.producer;
    }
    BufferInfo &buffer = buffers[value.buffer];
    buffer.members.push_back(index);
    buffer.last = std::max(buffer.last, value.lastUse);
  }
  for (auto [index, arg] : llvm::enumerate(entry.getArguments()))
    buffers[values[index].buffer].bytes =
        static_cast<int64_t>(*getValueBytes(arg, step));
  for (auto [index, op] : llvm::enumerate(entry.without_terminator())) {
    bool constant = isa<arith::ConstantOp>(op);
    OpInfo &info = ops[index];
    if (info.view)
      continue;
    for (auto [value, result] : llvm::zip_equal(info.results, op.getResults())) {
      int64_t bytes =
          constant ? 0 : static_cast<int64_t>(*getValueBytes(result, &op));
      buffers[values[value].buffer].bytes = bytes;
      info.allocated += bytes;
    }
  }

  argumentsAlone = static_cast<int64_t>(none.timeline[0]);
  for (int32_t op = 0; op < opCount; ++op)
    live.push_back(static_cast<int64_t>(none.timeline[op + 1]));
  for (auto [index, op] : llvm::enumerate(ops)) {
    forwardPosition.push_back(op.stage >= 0 ? forwardOps.size() : -1);
    if (op.stage >= 0)
      forwardOps.push_back(index);
  }
  recomputableAt.resize(stages.size());
  for (auto [index, value] : llvm::enumerate(values)) {
    if (value.producer < 0 || ops[value.producer].stage < 0 ||
        value.firstBackwardUse < 0 || value.lastForwardStage == INT32_MAX)
      continue;
    recomputableAt[std::max(ops[value.producer].stage, value.lastForwardStage)]
        .push_back(index);
  }
  recomputedStamp.assign(values.size(), 0);
  copyStamp.assign(values.size(), 0);
  copyOf.resize(values.size());
  sliceStamp.assign(ops.size(), 0);
  originalStamp.assign(buffers.size(), 0);
  originals.resize(buffers.size());
}

void StepLifetimes::sweepRuns(
    size_t first, size_t end, unsigned keepLevel,
    llvm::function_ref<void(size_t, const ChainSegment &)> record) {
  const int32_t opCount = ops.size();
  const int64_t kInactive = std::numeric_limits<int64_t>::min() / 4;
  auto kept = [&](int32_t op) {
    return keepLevel > 0 && ops[op].keepLevel >= keepLevel;
  };
  ++stamp;
  atOps.reset(live);
  regionTree.reset(SmallVector<int64_t>(forwardOps.size(), kInactive));
  dying.reset(opCount);
  regionOriginals.clear();
  copies.clear();
  int32_t regionAt = opCount;
  uint64_t flops = 0;
  bool region = false;
  // Bytes of buffers that live from the region's place on (copies read
  // after it) less those of buffers freed in it, added to the step's ops
  // from the region's place, as added now.
  int64_t fromRegion = 0, addedFromRegion = 0;
  int32_t addedAt = opCount;

  auto originalLifetime = [&](const Original &buffer) {
    int32_t last = std::max(buffer.ownUse, buffer.redirectedUse);
    if (last >= regionAt || buffer.regionUse < 0)
      return Lifetime{false, last};
    return Lifetime{true, buffer.regionUse};
  };
  auto copyLifetime = [&](const Copy &copy) {
    if (copy.redirectedUse >= 0)
      return Lifetime{false, copy.redirectedUse};
    return Lifetime{true, std::max(copy.regionUse, copy.position)};
  };
  // What a lifetime adds to the trees and sums (sign -1 takes it back).
  // The trees start from the unplanned timeline, so a buffer of the step
  // starts with its unplanned lifetime as if added, and changing it takes
  // that back first; `dying` counts whether each is live through the
  // region's place, with the plan less without it.
  auto applyOriginal = [&](int32_t id, const Lifetime &lifetime, int32_t key,
                           int64_t sign) {
    const BufferInfo &info = buffers[id];
    int64_t bytes = sign * info.bytes;
    if (!lifetime.inRegion) {
      atOps.add(info.def, lifetime.at, bytes);
      dying.add(lifetime.at, bytes);
      return;
    }
    atOps.add(info.def, opCount - 1, bytes);
    fromRegion -= bytes;
    regionTree.add(0, lifetime.at, bytes);
    if (sign > 0)
      regionOriginals.insert({key, id});
    else
      regionOriginals.erase({key, id});
  };
  auto applyCopy = [&](const Copy &copy, const Lifetime &lifetime,
                       int64_t sign) {
    int64_t bytes = sign * copy.bytes;
    if (!lifetime.inRegion) {
      atOps.add(lifetime.at + 1, opCount - 1, -bytes);
      fromRegion += bytes;
      regionTree.add(copy.position, forwardOps.size() - 1, bytes);
      return;
    }
    regionTree.add(copy.position, lifetime.at, bytes);
  };
  // Brings a buffer's contribution up to date with its uses.
  auto updateOriginal = [&](int32_t id) {
    Original &buffer = originals[id];
    Lifetime now = originalLifetime(buffer);
    if (now == buffer.applied)
      return;
    // Buffers dying in the region are found again by their last use in
    // the step, should the region move before it.
    int32_t key = std::max(buffer.ownUse, buffer.redirectedUse);
    applyOriginal(id, buffer.applied, buffer.appliedKey, -1);
    applyOriginal(id, now, key, +1);
    buffer.applied = now;
    buffer.appliedKey = key;
  };
  auto updateCopy = [&](Copy &copy) {
    Lifetime now = copyLifetime(copy);
    if (now == copy.applied)
      return;
    applyCopy(copy, copy.applied, -1);
    applyCopy(copy, now, +1);
    copy.applied = now;
  };
  auto isRecomputed = [&](int32_t value) {
    return recomputedStamp[value] == stamp;
  };
  // The last use of a buffer by the step's ops once the plan moves the
  // backward reads of its recomputed members (through backward views too)
  // to their copies.
  auto ownUse = [&](int32_t id) {
    const BufferInfo &info = buffers[id];
    int32_t last = info.def;
    for (int32_t member : info.members) {
      const ValueInfo &value = values[member];
      if (value.backwardViewOf >= 0 && isRecomputed(value.backwardViewOf))
        continue;
      last = std::max(last, isRecomputed(member) ? value.lastForwardUse
                                                 : value.lastUse);
    }
    return last;
  };
  // Starts tracking a buffer of the step (its plan lifetime is then the
  // unplanned one, which adds nothing); nothing for an argument.
  auto touch = [&](int32_t id) -> Original * {
    const BufferInfo &info = buffers[id];
    if (info.def < 0)
      return nullptr;
    Original &buffer = originals[id];
    if (originalStamp[id] != stamp) {
      originalStamp[id] = stamp;
      buffer.ownUse = buffer.appliedKey = info.last;
      buffer.redirectedUse = buffer.regionUse = -1;
      buffer.applied = Lifetime{false, info.last};
    }
    return &buffer;
  };
  // Where the region's copy of a value lives: its own copy, or, for a view
  // of a region input, the input's buffer. {-1, id}: buffer id of the step;
  // {copy, -1}: a copy; {-1, -1}: an argument.
  auto regionBuffer = [&](int32_t value) -> std::pair<int32_t, int32_t> {
    if (copyStamp[value] == stamp)
      return copyOf[value];
    return {-1, buffers[values[value].buffer].def < 0 ? -1
                                                      : values[value].buffer};
  };

  SmallVector<int32_t> newValues, newOps, worklist, changedOriginals;
  // Records a use (as the region's reads or the moved backward reads) of
  // the buffer the region's `value` lives in.
  auto addUse = [&](int32_t value, int32_t Copy::*copyUse,
                    int32_t Original::*originalUse, int32_t use) {
    auto [copy, id] = regionBuffer(value);
    if (copy >= 0) {
      copies[copy].*copyUse = std::max(copies[copy].*copyUse, use);
      updateCopy(copies[copy]);
    } else if (Original *buffer = id >= 0 ? touch(id) : nullptr) {
      buffer->*originalUse = std::max(buffer->*originalUse, use);
      changedOriginals.push_back(id);
    }
  };
  SmallVector<std::pair<int32_t, int32_t>, 4> own;
  for (size_t last = first; last < end; ++last) {
    newValues.clear();
    newOps.clear();
    changedOriginals.clear();
    // The values the longer run recomputes too: made in it by an op not
    // kept, and read by no forward op after it.
    for (int32_t value : recomputableAt[last]) {
      int32_t producer = values[value].producer;
      if (ops[producer].stage < static_cast<int32_t>(first) ||
          kept(producer))
        continue;
      recomputedStamp[value] = stamp;
      newValues.push_back(value);
      regionAt = std::min(regionAt, values[value].firstBackwardUse);
      region = true;
    }
    // The region's new ops: what the new values depend on within the run.
    worklist.assign(newValues.begin(), newValues.end());
    while (!worklist.empty()) {
      int32_t producer = values[worklist.pop_back_val()].producer;
      if (producer < 0 || ops[producer].stage < static_cast<int32_t>(first) ||
          kept(producer) || sliceStamp[producer] == stamp)
        continue;
      sliceStamp[producer] = stamp;
      newOps.push_back(producer);
      llvm::append_range(worklist, ops[producer].operands);
    }
    llvm::sort(newOps);
    for (int32_t op : newOps) {
      const OpInfo &info = ops[op];
      int32_t position = forwardPosition[op];
      flops += info.flops;
      regionTree.add(position, position, info.scratch - kInactive);
      for (int32_t operand : info.operands)
        addUse(operand, &Copy::regionUse, &Original::regionUse, position);
      for (int32_t value : info.results) {
        copyStamp[value] = stamp;
        if (info.view) {
          copyOf[value] = regionBuffer(info.operands[0]);
          continue;
        }
        copyOf[value] = {static_cast<int32_t>(copies.size()), -1};
        Copy &copy = copies.emplace_back();
        copy.bytes = buffers[values[value].buffer].bytes;
        copy.position = position;
        copy.applied = copyLifetime(copy);
        applyCopy(copy, copy.applied, +1);
      }
    }
    // The new values' buffers lose their backward reads, which go to the
    // copies.
    for (int32_t value : newValues) {
      if (Original *buffer = touch(values[value].buffer)) {
        buffer->ownUse = ownUse(values[value].buffer);
        changedOriginals.push_back(values[value].buffer);
      }
      addUse(value, &Copy::redirectedUse, &Original::redirectedUse,
             values[value].lastBackwardUse);
    }
    // A region placed earlier leaves buffers read by the step after it
    // live through it.
    for (auto it = regionOriginals.lower_bound({regionAt, INT32_MIN});
         it != regionOriginals.end(); ++it)
      changedOriginals.push_back(it->second);
    for (int32_t id : changedOriginals)
      updateOriginal(id);
    if (fromRegion != addedFromRegion || regionAt != addedAt) {
      atOps.add(addedAt, opCount - 1, -addedFromRegion);
      atOps.add(regionAt, opCount - 1, fromRegion);
      addedFromRegion = fromRegion;
      addedAt = regionAt;
    }

    // The run's points: the step's ops that belong to its stages (and the
    // arguments alone for the first stage), and the region's ops.
    for (auto range : stageRanges[last]) {
      auto at = llvm::find_if(own, [&](auto &known) {
        return known.second + 1 == range.first ||
               range.second + 1 == known.first;
      });
      if (at == own.end()) {
        own.push_back(range);
        continue;
      }
      at->first = std::min(at->first, range.first);
      at->second = std::max(at->second, range.second);
    }
    ChainSegment segment{std::numeric_limits<int64_t>::min(), 0, flops};
    if (first == 0)
      segment.peak = argumentsAlone;
    for (auto [from, to] : own)
      segment.peak = std::max(segment.peak, atOps.get(from, to));
    if (region) {
      int64_t across = live[regionAt] - ops[regionAt].allocated -
                       ops[regionAt].scratch + dying.from(regionAt);
      segment.peak = std::max(segment.peak, across + regionTree.get());
    }
    if (last + 1 < stageOps.size()) {
      int32_t at = stageOps[last + 1].front();
      segment.freed = live[at] - atOps.get(at, at);
    }
    record(last, segment);
  }
}

} // namespace

FailureOr<std::unique_ptr<StepChain>>
StepChain::build(func::FuncOp step, unsigned expensiveFlopsPerElement,
                 unsigned maxCrossing) {
  if (failed(verifyNotMaterialized(step)))
    return failure();
  Block &entry = step.getBody().front();
  SmallVector<Operation *> schedule;
  DenseMap<Operation *, size_t> position;
  for (Operation &op : entry.without_terminator()) {
    position[&op] = schedule.size();
    schedule.push_back(&op);
  }
  FailureOr<MemoryPeak> none = simulateMemory(step, /*liveAtPeak=*/false);
  if (failed(none) || failed(computeStepCost(step)))
    return failure();

  std::unique_ptr<StepChain> chain(new StepChain);
  chain->stages = isolateUnsegmentable(
      findStages(step, maxCrossing, /*inputsCross=*/false));
  PointStages points;
  for (;;) {
    points = assignPoints(schedule, position, chain->stages);
    if (!points.merge)
      break;
    auto [first, last] = *points.merge;
    Stage &merged = chain->stages[first];
    for (size_t stage = first + 1; stage <= last; ++stage)
      llvm::append_range(merged.ops, chain->stages[stage].ops);
    merged.boundary = chain->stages[last].boundary;
    chain->stages.erase(chain->stages.begin() + first + 1,
                        chain->stages.begin() + last + 1);
  }
  chain->pointStages = std::move(points.stageOf);

  size_t count = chain->stages.size();
  if (count == 0)
    return chain;
  chain->keptPeaks.assign(count, std::numeric_limits<int64_t>::min());
  for (auto [point, stage] : llvm::enumerate(chain->pointStages))
    chain->keptPeaks[stage] = std::max(
        chain->keptPeaks[stage], static_cast<int64_t>(none->timeline[point]));

  // Every run of stages that may be a segment, each way it may be one: a
  // run stops at the first stage with an op that may not be in a segment.
  // Keeping above a threshold is a way of its own for a run only when the
  // run has an op that the next threshold would not keep (no threshold
  // after the last).
  chain->thresholds = findKeepThresholds(chain->stages, expensiveFlopsPerElement);
  StepLifetimes lifetimes(step, chain->stages, chain->pointStages, *none,
                          chain->thresholds);
  size_t levels = chain->thresholds.size();
  SmallVector<bool> segmentable;
  SmallVector<SmallVector<bool>> hasLevel;
  for (const Stage &stage : chain->stages) {
    segmentable.push_back(llvm::all_of(stage.ops, [](Operation *op) {
      return whyNotSegmentable(op).empty();
    }));
    SmallVector<bool> &present = hasLevel.emplace_back(levels + 1, false);
    for (Operation *op : stage.ops)
      present[getKeepLevel(op, chain->thresholds)] = true;
  }
  chain->segments.resize(count);
  chain->keepLevels.resize(count);
  for (size_t first = 0; first < count; ++first) {
    size_t end = first;
    while (end < count && segmentable[end])
      ++end;
    auto &fromFirst = chain->segments[first];
    auto &levelsFromFirst = chain->keepLevels[first];
    fromFirst.resize(end - first);
    levelsFromFirst.resize(end - first);
    for (unsigned level = 0; level <= levels; ++level) {
      size_t firstWithLevel = first;
      while (level > 0 && firstWithLevel < end &&
             !hasLevel[firstWithLevel][level])
        ++firstWithLevel;
      if (firstWithLevel == end)
        continue;
      lifetimes.sweepRuns(first, end, level,
                          [&](size_t last, const ChainSegment &segment) {
                            if (last < firstWithLevel)
                              return;
                            fromFirst[last - first].push_back(segment);
                            levelsFromFirst[last - first].push_back(level);
                          });
    }
  }
  chain->lowestPeaks.resize(count);
  for (auto [fromFirst, lowest] :
       llvm::zip_equal(chain->segments, chain->lowestPeaks)) {
    lowest.resize(fromFirst.size());
    int64_t below = std::numeric_limits<int64_t>::max();
    for (size_t length = fromFirst.size(); length-- > 0;) {
      for (const ChainSegment &segment : fromFirst[length])
        below = std::min(below, segment.peak);
      lowest[length] = below;
    }
  }
  return chain;
}

int64_t StepChain::getLowestPeakFrom(size_t first, size_t last) const {
  if (last - first >= lowestPeaks[first].size())
    return std::numeric_limits<int64_t>::max();
  return lowestPeaks[first][last - first];
}

SmallVector<ChainSegment, 2> StepChain::getSegmentOptions(size_t first,
                                                         size_t last) const {
  if (last - first >= segments[first].size())
    return {};
  return segments[first][last - first];
}

std::optional<unsigned>
StepChain::getKeepThreshold(const PlannedSegment &segment) const {
  unsigned level =
      keepLevels[segment.first][segment.last - segment.first][segment.option];
  if (level == 0)
    return std::nullopt;
  return thresholds[level - 1];
}

FailureOr<ChainSegment>
ckpt::simulateChainRun(func::FuncOp step, const StepChain &chain, size_t first,
                       size_t last, unsigned option) {
  Block &entry = step.getBody().front();
  DenseMap<Operation *, size_t> position;
  for (Operation &op : entry.without_terminator())
    position[&op] = position.size();
  FailureOr<MemoryPeak> none = simulateMemory(step, /*liveAtPeak=*/false);
  if (failed(none))
    return failure();
  IRMapping mapping;
  OwningOpRef<func::FuncOp> copy = cast<func::FuncOp>(step->clone(mapping));
  writeChainPlan(chain, mapStages(chain.getStages(), mapping),
                 PlannedSegment{first, last, option}, /*describe=*/false);
  if (failed(materializePlan(*copy)))
    return failure();
  FailureOr<MemoryPeak> peak = simulateMemory(*copy, /*liveAtPeak=*/false);
  FailureOr<StepCost> cost = computeStepCost(*copy);
  if (failed(peak) || failed(cost))
    return failure();
  ArrayRef<size_t> pointStages = chain.getPointStages();
  auto live = [&](size_t point) {
    return static_cast<int64_t>(peak->timeline[point]);
  };
  auto mine = [&](size_t point) {
    return first <= pointStages[point] && pointStages[point] <= last;
  };
  ChainSegment segment{std::numeric_limits<int64_t>::min(), 0,
                       cost->recompute.flops};
  // The copy's timeline is the step's with the recompute region's ops
  // inserted; those belong to the segment.
  if (mine(0))
    segment.peak = live(0);
  size_t original = 0, point = 1;
  std::optional<size_t> nextStart;
  if (last + 1 < chain.getStageCount())
    nextStart = position.lookup(chain.getStages()[last + 1].ops.front()) + 1;
  for (Operation &op : copy->getBody().front().without_terminator()) {
    if (auto region = dyn_cast<RecomputeOp>(op)) {
      size_t regionOps = region.getBody().front().getOperations().size() - 1;
      for (size_t i = 0; i < regionOps; ++i)
        segment.peak = std::max(segment.peak, live(point++));
      continue;
    }
    ++original;
    if (mine(original))
      segment.peak = std::max(segment.peak, live(point));
    if (nextStart == original)
      segment.freed =
          static_cast<int64_t>(none->timeline[original]) - live(point);
    ++point;
  }
  return segment;
}
