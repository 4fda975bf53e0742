//===- MemorySimulator.h - live tensor bytes of a training step -----------===//
//
// The one source of truth for memory: walks a function in program order
// (checkpoint and recompute bodies inline, where they run), allocates each op's results when
// it runs, frees a value after its last use, and reports the peak of the
// summed live bytes, where it occurs and what is live there. Arguments are
// live throughout and returned values until the end; constants are globals
// and take no heap bytes; a reshape is a view of its input. An op's operands
// and results are live together while it runs, with the scratch bytes its
// lowering allocates besides its results (CostOpInterface::getScratchBytes:
// row statistics, pooling windows).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_ANALYSIS_MEMORYSIMULATOR_H
#define CKPT_ANALYSIS_MEMORYSIMULATOR_H

#include "ckpt/Analysis/SavedTensors.h"

#include <array>

namespace ckpt {

struct LiveValue {
  mlir::Value value;
  ValueKind kind;
  uint64_t bytes;
};

struct MemoryPeak {
  /// Live bytes at the peak.
  uint64_t bytes = 0;
  /// The op running at the peak; null when the peak is the arguments alone.
  mlir::Operation *op = nullptr;
  /// What is live at the peak, in program order of definition.
  llvm::SmallVector<LiveValue> live;
  /// Scratch bytes of the op running at the peak, part of `bytes`.
  uint64_t scratchBytes = 0;
  /// Live bytes at the peak per ValueKind; the scratch bytes count as
  /// temporaries.
  std::array<uint64_t, 5> bytesByKind = {};
  /// The most live bytes at any point not counting the gradients the step
  /// returns: the peak when gradients accumulate into buffers that exist
  /// before the step (PyTorch's `.grad`).
  uint64_t bytesWithoutGradients = 0;
  /// Live bytes while each op runs, in execution order, after the
  /// arguments alone: the memory timeline.
  llvm::SmallVector<uint64_t> timeline;
  /// Live activation bytes between the last forward op and the first
  /// backward or recompute op: what one microbatch holds from its forward
  /// to its backward (its inputs, the tensors backward reads, the forward
  /// values the step returns).
  uint64_t activationBytesAtBackward = 0;

  uint64_t getBytes(ValueKind kind) const {
    return bytesByKind[static_cast<size_t>(kind)];
  }

  /// The peak of a pipeline stage that holds `microbatches` in flight
  /// (1F1B): while one runs the step, the others each hold
  /// activationBytesAtBackward; parameters and gradients count once.
  /// Saturates at UINT64_MAX.
  uint64_t getPeakWithMicrobatches(unsigned microbatches) const;
};

/// Simulates `func`; fails with an error at the op when a value has an
/// unknown or overflowing size. Without `liveAtPeak`, `MemoryPeak::live` and
/// `bytesByKind` stay empty (they take a second replay).
mlir::FailureOr<MemoryPeak> simulateMemory(mlir::func::FuncOp func,
                                           bool liveAtPeak = true);

} // namespace ckpt

#endif // CKPT_ANALYSIS_MEMORYSIMULATOR_H
