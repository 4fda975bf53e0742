//===- SavedTensors.h - forward values that backward reads ----------------===//
//
// The saved tensors of a training step: every forward value (function
// argument or result of a forward op) that a backward op (`ckpt.backward`)
// reads. These are what activation checkpointing trades against recompute.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_ANALYSIS_SAVEDTENSORS_H
#define CKPT_ANALYSIS_SAVEDTENSORS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace ckpt {

/// What a value is, for memory accounting.
enum class ValueKind {
  Parameter,  // a {ckpt.param} argument
  Activation, // another argument or a forward op's result
  Constant,   // a constant: lives in global memory, not on the heap
  Gradient,   // a backward value the step returns
  Temporary,  // any other backward value
};

/// "activation" (or "activations" when `plural`), ...
llvm::StringRef getValueKindName(ValueKind kind, bool plural = false);

/// Whether `op` belongs to the backward part of a training step.
bool isBackwardOp(mlir::Operation *op);

/// The kind of a top-level value of a training step.
ValueKind classifyValue(mlir::func::FuncOp step, mlir::Value value);

/// Fails with an error at `func` unless its body is one block: autodiff and
/// the analyses walk straight-line code, without branches, loops or
/// unreachable blocks. `user` (e.g. "ckpt-autodiff") says who needs it.
mlir::LogicalResult verifySingleBlock(mlir::func::FuncOp func,
                                      llvm::StringRef user);

/// Fails with an error at `func` naming the first argument dimension of
/// unknown size (by its `ckpt.dim_names` name when it has one) and how to
/// bind it: memory and cost need static shapes.
mlir::LogicalResult verifyStaticArguments(mlir::func::FuncOp func);

struct SavedTensor {
  mlir::Value value;
  /// The value whose memory holds this one: `value` itself, or the source of
  /// the reshapes (views) it was made by.
  mlir::Value buffer;
  /// The defining op; null for a function argument.
  mlir::Operation *producer;
  /// The backward ops that read the value, in program order.
  llvm::SmallVector<mlir::Operation *> consumers;
  ValueKind kind;
  uint64_t bytes;
};

class SavedTensorAnalysis {
public:
  /// Collects the saved tensors of `step`; fails with an error at the op
  /// when a saved tensor has an unknown or overflowing size.
  static mlir::FailureOr<SavedTensorAnalysis> compute(mlir::func::FuncOp step);

  /// Saved tensors in program order of their definition (arguments first).
  llvm::ArrayRef<SavedTensor> getSavedTensors() const { return saved; }

  /// Total bytes of the saved tensors of one kind, each buffer once (a
  /// tensor and a view of it saved together take the memory of one).
  uint64_t getBytes(ValueKind kind) const;
  /// Number of saved tensors of one kind.
  size_t getCount(ValueKind kind) const;

private:
  llvm::SmallVector<SavedTensor> saved;
};

} // namespace ckpt

#endif // CKPT_ANALYSIS_SAVEDTENSORS_H
