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

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Threading.h"

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

  size_t count = chain->stages.size();
  if (count == 0)
    return chain;
  chain->keptPeaks.assign(count, std::numeric_limits<int64_t>::min());
  for (auto [point, stage] : llvm::enumerate(points.stageOf))
    chain->keptPeaks[stage] = std::max(
        chain->keptPeaks[stage], static_cast<int64_t>(none->timeline[point]));

  // Each run of stages as the step's only segment, simulated.
  auto measure = [&](size_t first, size_t last,
                     bool keepExpensive) -> FailureOr<ChainSegment> {
    // Written exactly as dp writes its plans.
    IRMapping mapping;
    OwningOpRef<func::FuncOp> copy = cast<func::FuncOp>(step->clone(mapping));
    PlannedSegment run{first, last,
                       keepExpensive ? kKeepExpensive : kRecomputeAll};
    writeChainPlan(mapStages(chain->stages, mapping), run,
                   expensiveFlopsPerElement, /*describe=*/false);
    if (failed(materializePlan(*copy)))
      return failure();
    FailureOr<MemoryPeak> peak = simulateMemory(*copy, /*liveAtPeak=*/false);
    FailureOr<StepCost> cost = computeStepCost(*copy);
    if (failed(peak) || failed(cost))
      return failure();
    auto live = [&](size_t point) {
      return static_cast<int64_t>(peak->timeline[point]);
    };
    auto mine = [&](size_t point) {
      size_t stage = points.stageOf[point];
      return first <= stage && stage <= last;
    };
    ChainSegment segment{std::numeric_limits<int64_t>::min(), 0,
                         cost->recompute.flops};
    // The copy's timeline is the step's with the recompute region's ops
    // inserted; those belong to the segment.
    if (mine(0))
      segment.peak = live(0);
    size_t original = 0, point = 1;
    std::optional<size_t> nextStart;
    if (last + 1 < count)
      nextStart = position.lookup(chain->stages[last + 1].ops.front()) + 1;
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
  };

  // Every run of stages that may be a segment, each way, measured in
  // parallel on copies of the step.
  struct Run {
    size_t first, last;
    bool keepExpensive;
    ChainSegment measured;
  };
  SmallVector<bool> segmentable, hasExpensive;
  for (const Stage &stage : chain->stages) {
    segmentable.push_back(llvm::all_of(stage.ops, [](Operation *op) {
      return whyNotSegmentable(op).empty();
    }));
    hasExpensive.push_back(llvm::any_of(stage.ops, [&](Operation *op) {
      return isExpensiveToRecompute(op, expensiveFlopsPerElement);
    }));
  }
  std::vector<Run> runs;
  for (size_t first = 0; first < count; ++first) {
    bool expensive = false;
    for (size_t last = first; last < count && segmentable[last]; ++last) {
      expensive |= hasExpensive[last];
      runs.push_back({first, last, false, {}});
      if (expensive)
        runs.push_back({first, last, true, {}});
    }
  }
  if (failed(failableParallelForEach(
          step.getContext(), runs, [&](Run &run) -> LogicalResult {
            FailureOr<ChainSegment> segment =
                measure(run.first, run.last, run.keepExpensive);
            if (failed(segment))
              return failure();
            run.measured = *segment;
            return success();
          })))
    return failure();
  chain->segments.resize(count);
  for (const Run &run : runs) {
    auto &fromFirst = chain->segments[run.first];
    if (!run.keepExpensive)
      fromFirst.emplace_back();
    fromFirst.back().push_back(run.measured);
  }
  return chain;
}

SmallVector<ChainSegment, 2> StepChain::getSegmentOptions(size_t first,
                                                         size_t last) const {
  if (last - first >= segments[first].size())
    return {};
  return segments[first][last - first];
}
