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

/// Range maxima of a sequence in O(1) after O(n log n) (a sparse table).
class RangeMax {
public:
  explicit RangeMax(ArrayRef<int64_t> values) {
    levels.emplace_back(values.begin(), values.end());
    for (size_t width = 1; 2 * width <= values.size(); width *= 2) {
      const std::vector<int64_t> &half = levels.back();
      std::vector<int64_t> next(half.size() - width);
      for (size_t i = 0; i < next.size(); ++i)
        next[i] = std::max(half[i], half[i + width]);
      levels.push_back(std::move(next));
    }
  }
  /// The largest of values first..last (inclusive, first <= last).
  int64_t get(size_t first, size_t last) const {
    unsigned level = llvm::Log2_64(last - first + 1);
    return std::max(levels[level][first],
                    levels[level][last + 1 - (size_t(1) << level)]);
  }

private:
  std::vector<std::vector<int64_t>> levels;
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
    bool view = false, expensive = false;
    uint64_t flops = 0;
    int64_t scratch = 0, allocated = 0;
  };

  StepLifetimes(func::FuncOp step, ArrayRef<Stage> stages,
                ArrayRef<size_t> pointStages, const MemoryPeak &none,
                unsigned expensiveFlopsPerElement);

  /// Stages first..last as the only segment, keeping the results of
  /// expensive ops or not.
  ChainSegment evaluate(size_t first, size_t last, bool keepExpensive) const;

private:
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
  std::optional<RangeMax> liveMax;
};

StepLifetimes::StepLifetimes(func::FuncOp step, ArrayRef<Stage> stages,
                             ArrayRef<size_t> pointStages,
                             const MemoryPeak &none,
                             unsigned expensiveFlopsPerElement) {
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
    info.expensive = isExpensiveToRecompute(&op, expensiveFlopsPerElement);
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
  if (opCount)
    liveMax.emplace(live);
}

ChainSegment StepLifetimes::evaluate(size_t first, size_t last,
                                     bool keepExpensive) const {
  const int32_t opCount = ops.size();
  auto inRun = [&](int32_t op) {
    return ops[op].stage >= static_cast<int32_t>(first) &&
           ops[op].stage <= static_cast<int32_t>(last);
  };
  auto kept = [&](int32_t op) { return keepExpensive && ops[op].expensive; };

  // The values recomputed: made in the run by an op not kept, read by
  // backward and by no forward op after the run; the region goes right
  // before the first backward op reading one of them.
  SmallVector<int32_t> recomputed;
  llvm::SmallDenseSet<int32_t, 32> isRecomputed;
  int32_t regionAt = opCount;
  for (size_t stage = first; stage <= last; ++stage)
    for (int32_t op : stageOps[stage]) {
      if (kept(op))
        continue;
      for (int32_t value : ops[op].results) {
        const ValueInfo &info = values[value];
        if (info.firstBackwardUse < 0 ||
            info.lastForwardStage > static_cast<int32_t>(last))
          continue;
        recomputed.push_back(value);
        isRecomputed.insert(value);
        regionAt = std::min(regionAt, info.firstBackwardUse);
      }
    }

  // The region's ops: what the recomputed values depend on within the run,
  // from the kept results and the run's inputs, in program order.
  llvm::SmallDenseMap<int32_t, int32_t, 32> regionIndex;
  SmallVector<int32_t> region;
  if (!recomputed.empty()) {
    llvm::SmallDenseSet<int32_t, 32> needed;
    SmallVector<int32_t> worklist(recomputed);
    while (!worklist.empty()) {
      int32_t producer = values[worklist.pop_back_val()].producer;
      if (producer < 0 || !inRun(producer) || kept(producer) ||
          !needed.insert(producer).second)
        continue;
      llvm::append_range(worklist, ops[producer].operands);
    }
    for (size_t stage = first; stage <= last; ++stage)
      for (int32_t op : stageOps[stage])
        if (needed.contains(op)) {
          regionIndex[op] = region.size();
          region.push_back(op);
        }
  }
  const int32_t regionOps = region.size();
  // Positions in the planned step: ops before the region keep theirs.
  auto planned = [&](int32_t op) {
    return op < regionAt ? op : op + regionOps;
  };

  // The buffers whose lifetimes the plan changes, with their lifetimes
  // without it (ops) and with it (positions in the planned step).
  struct Changed {
    int64_t bytes;
    int32_t def, last;
    int32_t plannedDef, plannedLast;
    bool copy;
  };
  SmallVector<Changed> changed;
  llvm::SmallDenseMap<int32_t, int32_t, 32> changedOriginal;
  auto original = [&](int32_t buffer) -> int32_t {
    const BufferInfo &info = buffers[buffer];
    if (info.def < 0)
      return -1; // An argument, live throughout.
    auto [it, inserted] = changedOriginal.try_emplace(buffer, changed.size());
    if (!inserted)
      return it->second;
    int32_t plannedLast = info.def;
    for (int32_t member : info.members) {
      const ValueInfo &value = values[member];
      // Backward reads of a recomputed value, through views too, read its
      // copy.
      if (value.backwardViewOf >= 0 &&
          isRecomputed.contains(value.backwardViewOf))
        continue;
      int32_t use = isRecomputed.contains(member) ? value.lastForwardUse
                                                  : value.lastUse;
      if (use >= 0)
        plannedLast = std::max(plannedLast, planned(use));
    }
    changed.push_back(
        {info.bytes, info.def, info.last, info.def, plannedLast, false});
    return it->second;
  };
  // The buffer a value of the region lives in: a copy, or (for a view of
  // an input) the input's.
  llvm::SmallDenseMap<int32_t, int32_t, 32> copyOf;
  auto regionBuffer = [&](int32_t value) {
    auto it = copyOf.find(value);
    return it != copyOf.end() ? it->second : original(values[value].buffer);
  };
  for (auto [index, op] : llvm::enumerate(region)) {
    int32_t at = regionAt + index;
    const OpInfo &info = ops[op];
    for (int32_t operand : info.operands)
      if (int32_t buffer = regionBuffer(operand); buffer >= 0)
        changed[buffer].plannedLast = std::max(changed[buffer].plannedLast, at);
    for (int32_t value : info.results) {
      if (info.view) {
        copyOf[value] = regionBuffer(info.operands[0]);
        continue;
      }
      copyOf[value] = changed.size();
      changed.push_back({buffers[values[value].buffer].bytes, -1, -1, at, at,
                         true});
    }
  }
  for (int32_t value : recomputed) {
    original(values[value].buffer);
    int32_t buffer = regionBuffer(value);
    if (buffer >= 0)
      changed[buffer].plannedLast =
          std::max(changed[buffer].plannedLast,
                   planned(values[value].lastBackwardUse));
  }

  // The difference the plan makes at each of the step's ops, as ranges of
  // ops (inclusive) where a buffer is live with the plan and not without,
  // or the other way round.
  SmallVector<std::pair<int32_t, int64_t>> events;
  auto addRange = [&](int32_t from, int32_t to, int64_t bytes) {
    to = std::min(to, opCount - 1);
    if (from > to || bytes == 0)
      return;
    events.push_back({from, bytes});
    events.push_back({to + 1, -bytes});
  };
  // The ops a lifetime in planned positions covers.
  auto plannedRange = [&](int32_t from, int32_t to) {
    std::pair<int32_t, int32_t> ops{from, to};
    if (from >= regionAt)
      ops.first = std::max(regionAt, from - regionOps);
    if (to >= regionAt + regionOps)
      ops.second = to - regionOps;
    else if (to >= regionAt)
      ops.second = regionAt - 1;
    if (from >= regionAt && to < regionAt + regionOps)
      ops = {1, 0};
    return ops;
  };
  for (const Changed &buffer : changed) {
    if (!buffer.copy && planned(buffer.last) == buffer.plannedLast)
      continue;
    if (!buffer.copy)
      addRange(buffer.def, buffer.last, -buffer.bytes);
    auto [from, to] = plannedRange(buffer.plannedDef, buffer.plannedLast);
    addRange(from, to, buffer.bytes);
  }
  llvm::sort(events);

  // The most live bytes at the run's ops: the unplanned timeline's maxima
  // between the points where the difference changes.
  ChainSegment segment{std::numeric_limits<int64_t>::min(), 0, 0};
  if (first == 0)
    segment.peak = argumentsAlone;
  SmallVector<std::pair<int32_t, int32_t>> own;
  for (size_t stage = first; stage <= last; ++stage)
    llvm::append_range(own, stageRanges[stage]);
  llvm::sort(own);
  size_t next = 0;
  int64_t difference = 0;
  auto advanceTo = [&](int32_t op) {
    for (; next < events.size() && events[next].first <= op; ++next)
      difference += events[next].second;
  };
  for (auto [from, to] : own) {
    advanceTo(from);
    for (int32_t at = from; at <= to;) {
      int32_t end = next < events.size() ? std::min(to, events[next].first - 1)
                                         : to;
      segment.peak = std::max(segment.peak, liveMax->get(at, end) + difference);
      at = end + 1;
      advanceTo(at);
    }
  }

  // The region's ops: what is live across its place, less the changed
  // buffers as they were there, plus the changed buffers as they are.
  if (regionOps) {
    int64_t across = live[regionAt] - ops[regionAt].allocated -
                     ops[regionAt].scratch;
    SmallVector<int64_t> regionLive(regionOps + 1, 0);
    for (const Changed &buffer : changed) {
      if (!buffer.copy && buffer.def < regionAt && buffer.last >= regionAt)
        across -= buffer.bytes;
      int32_t from = std::max(buffer.plannedDef, regionAt) - regionAt;
      int32_t to = std::min(buffer.plannedLast, regionAt + regionOps - 1) -
                   regionAt;
      if (from <= to) {
        regionLive[from] += buffer.bytes;
        regionLive[to + 1] -= buffer.bytes;
      }
    }
    int64_t copies = 0;
    for (auto [index, op] : llvm::enumerate(region)) {
      copies += regionLive[index];
      segment.peak =
          std::max(segment.peak, across + copies + ops[op].scratch);
      segment.flops += ops[op].flops;
    }
  }

  // Bytes fewer at the next stage's first op.
  if (last + 1 < stageOps.size()) {
    int32_t at = stageOps[last + 1].front();
    for (auto [op, bytes] : events)
      if (op <= at)
        segment.freed -= bytes;
  }
  return segment;
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
  chain->stages = isolateUnsegmentable(findStages(step, maxCrossing));
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
  StepLifetimes lifetimes(step, chain->stages, chain->pointStages, *none,
                          expensiveFlopsPerElement);
  SmallVector<bool> segmentable, hasExpensive;
  for (const Stage &stage : chain->stages) {
    segmentable.push_back(llvm::all_of(stage.ops, [](Operation *op) {
      return whyNotSegmentable(op).empty();
    }));
    hasExpensive.push_back(llvm::any_of(stage.ops, [&](Operation *op) {
      return isExpensiveToRecompute(op, expensiveFlopsPerElement);
    }));
  }
  chain->segments.resize(count);
  for (size_t first = 0; first < count; ++first) {
    bool expensive = false;
    for (size_t last = first; last < count && segmentable[last]; ++last) {
      expensive |= hasExpensive[last];
      auto &options = chain->segments[first].emplace_back();
      options.push_back(lifetimes.evaluate(first, last, false));
      if (expensive)
        options.push_back(lifetimes.evaluate(first, last, true));
    }
  }
  return chain;
}

SmallVector<ChainSegment, 2> StepChain::getSegmentOptions(size_t first,
                                                         size_t last) const {
  if (last - first >= segments[first].size())
    return {};
  return segments[first][last - first];
}

FailureOr<ChainSegment>
ckpt::simulateChainRun(func::FuncOp step, const StepChain &chain, size_t first,
                       size_t last, unsigned option,
                       unsigned expensiveFlopsPerElement) {
  Block &entry = step.getBody().front();
  DenseMap<Operation *, size_t> position;
  for (Operation &op : entry.without_terminator())
    position[&op] = position.size();
  FailureOr<MemoryPeak> none = simulateMemory(step, /*liveAtPeak=*/false);
  if (failed(none))
    return failure();
  IRMapping mapping;
  OwningOpRef<func::FuncOp> copy = cast<func::FuncOp>(step->clone(mapping));
  writeChainPlan(mapStages(chain.getStages(), mapping),
                 PlannedSegment{first, last, option}, expensiveFlopsPerElement,
                 /*describe=*/false);
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
