//===- MemorySimulator.cpp - live tensor bytes of a training step ---------===//
//
// Flattens the function into the sequence of ops that run (segment bodies
// inline), resolves aliases (segment block arguments and results stand for
// other values; a reshape is a view of its input's buffer, as bufferization
// makes it), computes each buffer's last use, then replays the sequence
// adding new buffers and removing dead ones. An op's scratch bytes (what its
// lowering allocates besides its results) count while it runs.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/MemorySimulator.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace ckpt;

namespace {

/// The ops of a function in execution order, with segment aliases resolved.
struct Schedule {
  SmallVector<Operation *> ops;
  /// How many ops run before the first backward op or recompute region:
  /// the forward.
  std::optional<size_t> forwardEnd;
  /// Values that name another value's buffer -> that value.
  DenseMap<Value, Value> aliases;

  Value resolve(Value value) const {
    while (Value target = aliases.lookup(value))
      value = target;
    return value;
  }

  void add(Block &block) {
    for (Operation &op : block) {
      if (!forwardEnd && (isa<RecomputeOp>(op) || isBackwardOp(&op)))
        forwardEnd = ops.size();
      if (isa<CheckpointOp, RecomputeOp>(op)) {
        Block &body = op.getRegion(0).front();
        for (auto [arg, input] :
             llvm::zip_equal(body.getArguments(), op.getOperands()))
          aliases[arg] = input;
        add(body);
        for (auto [result, value] : llvm::zip_equal(
                 op.getResults(), body.getTerminator()->getOperands()))
          aliases[result] = value;
        continue;
      }
      if (auto reshape = dyn_cast<ReshapeOp>(op))
        aliases[reshape.getResult()] = reshape.getInput();
      if (!isa<YieldOp, func::ReturnOp>(op))
        ops.push_back(&op);
    }
  }
};

} // namespace

FailureOr<MemoryPeak> ckpt::simulateMemory(func::FuncOp func,
                                           bool liveAtPeak) {
  if (failed(verifySingleBlock(func, "memory analysis")) ||
      failed(verifyStaticArguments(func)))
    return failure();
  Block &entry = func.getBody().front();
  Schedule schedule;
  schedule.add(entry);
  size_t end = schedule.ops.size();
  size_t forwardEnd = schedule.forwardEnd.value_or(end);

  // Last use of every value, by position in the schedule; returned values
  // and arguments are used at the end.
  DenseMap<Value, size_t> lastUse;
  for (auto [index, op] : llvm::enumerate(schedule.ops))
    for (Value operand : op->getOperands())
      lastUse[schedule.resolve(operand)] = index;
  llvm::DenseSet<Value> returned;
  for (Value value : entry.getTerminator()->getOperands()) {
    lastUse[schedule.resolve(value)] = end;
    returned.insert(schedule.resolve(value));
  }
  // A backward buffer the step returns (through views too) is a gradient.
  auto kindOf = [&](Value value) {
    ValueKind kind = classifyValue(func, value);
    return kind == ValueKind::Temporary && returned.contains(value)
               ? ValueKind::Gradient
               : kind;
  };

  // Replays the schedule, `until` the op index given (all of it when
  // none), calling `observe` with each op (null: the arguments alone) and
  // the live values while it runs.
  // Live values with the order they became live in (a MapVector's erase
  // would make the replay quadratic).
  MemoryPeak peak;
  DenseMap<Value, std::pair<size_t, LiveValue>> live;
  size_t made = 0;
  uint64_t liveBytes = 0, liveGradientBytes = 0, scratchBytes = 0;
  auto recordBackwardStart = [&] {
    peak.activationBytesAtBackward = 0;
    for (const auto &entry : llvm::make_second_range(live))
      if (const LiveValue &value = entry.second;
          value.kind == ValueKind::Activation)
        peak.activationBytesAtBackward = llvm::SaturatingAdd(
            peak.activationBytesAtBackward, value.bytes);
  };
  auto replay = [&](std::optional<size_t> until,
                    llvm::function_ref<void(Operation *)> observe)
      -> LogicalResult {
    live.clear();
    made = 0;
    liveBytes = liveGradientBytes = scratchBytes = 0;
    for (BlockArgument arg : entry.getArguments()) {
      FailureOr<uint64_t> bytes = getValueBytes(arg, func);
      if (failed(bytes))
        return failure();
      live[arg] = {made++, {arg, kindOf(arg), *bytes}};
      liveBytes = llvm::SaturatingAdd(liveBytes, *bytes);
    }
    observe(nullptr);
    if (forwardEnd == 0)
      recordBackwardStart();
    for (auto [index, op] : llvm::enumerate(schedule.ops)) {
      bool constant = isa<arith::ConstantOp>(op);
      for (Value result : op->getResults()) {
        if (schedule.aliases.contains(result))
          continue;
        FailureOr<uint64_t> bytes = getValueBytes(result, op);
        if (failed(bytes))
          return failure();
        uint64_t heapBytes = constant ? 0 : *bytes;
        ValueKind kind = kindOf(result);
        live[result] = {made++, {result, kind, heapBytes}};
        liveBytes = llvm::SaturatingAdd(liveBytes, heapBytes);
        if (kind == ValueKind::Gradient)
          liveGradientBytes += heapBytes;
      }
      auto costed = dyn_cast<CostOpInterface>(op);
      scratchBytes = costed ? costed.getScratchBytes() : 0;
      liveBytes = llvm::SaturatingAdd(liveBytes, scratchBytes);
      observe(op);
      if (until == index)
        return success();
      liveBytes -= scratchBytes;
      scratchBytes = 0;
      // Free what this op was the last to use, and results nobody uses.
      SmallVector<Value> dead;
      for (Value operand : op->getOperands()) {
        Value value = schedule.resolve(operand);
        if (!isa<BlockArgument>(value) && lastUse.lookup(value) == index)
          dead.push_back(value);
      }
      for (Value result : op->getResults())
        if (!lastUse.contains(schedule.resolve(result)))
          dead.push_back(schedule.resolve(result));
      for (Value value : dead) {
        auto it = live.find(value);
        if (it == live.end())
          continue;
        liveBytes -= it->second.second.bytes;
        if (it->second.second.kind == ValueKind::Gradient)
          liveGradientBytes -= it->second.second.bytes;
        live.erase(it);
      }
      if (index + 1 == forwardEnd)
        recordBackwardStart();
    }
    return success();
  };

  // The timeline and where the peak is (the first point with the most
  // bytes), then the live values there from a second replay.
  std::optional<size_t> peakIndex;
  size_t next = 0;
  if (failed(replay(std::nullopt, [&](Operation *op) {
        peak.timeline.push_back(liveBytes);
        peak.bytesWithoutGradients =
            std::max(peak.bytesWithoutGradients, liveBytes - liveGradientBytes);
        if (op && (liveBytes > peak.bytes ||
                   (!peak.op && liveBytes == peak.bytes))) {
          peak.bytes = liveBytes;
          peak.op = op;
          peakIndex = next;
        } else if (!op) {
          peak.bytes = liveBytes;
        }
        next += op != nullptr;
      })))
    return failure();
  if (!liveAtPeak)
    return peak;
  (void)replay(peakIndex, [&](Operation *op) {
    if (op != peak.op)
      return;
    SmallVector<std::pair<size_t, LiveValue>> ordered(
        llvm::make_second_range(live));
    llvm::sort(ordered, [](const auto &a, const auto &b) {
      return a.first < b.first;
    });
    for (const LiveValue &value : llvm::make_second_range(ordered)) {
      peak.live.push_back(value);
      peak.bytesByKind[static_cast<size_t>(value.kind)] += value.bytes;
    }
    peak.scratchBytes = scratchBytes;
    peak.bytesByKind[static_cast<size_t>(ValueKind::Temporary)] +=
        scratchBytes;
  });
  return peak;
}

uint64_t MemoryPeak::getPeakWithMicrobatches(unsigned microbatches) const {
  uint64_t others = microbatches > 0 ? microbatches - 1 : 0;
  return llvm::SaturatingAdd(
      bytes, llvm::SaturatingMultiply(others, activationBytesAtBackward));
}
