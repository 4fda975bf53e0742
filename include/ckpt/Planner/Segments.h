//===- Segments.h - the plan representation: checkpoint segments ----------===//
//
// A plan is written on the training step as `ckpt.checkpoint` segments
// around forward ops: a forward value that backward reads is recomputed
// when it is made inside a segment by an op not marked `ckpt.keep` and no
// forward op outside that segment uses it; every other saved value
// (segment inputs and outputs, results of kept ops) is kept. Strategies write segments with these helpers; ckpt-insert-
// recompute is the one consumer.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_PLANNER_SEGMENTS_H
#define CKPT_PLANNER_SEGMENTS_H

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

namespace ckpt {

/// Fails with an error at every op in `segment` (nested ones included) that
/// may not be recomputed, each with a note at the segment.
mlir::LogicalResult verifyRecomputable(CheckpointOp segment);

/// Fails with an error at `step` when its plan is already materialised
/// (it has recompute regions): plans are made before that.
mlir::LogicalResult verifyNotMaterialized(mlir::func::FuncOp step);

/// Whether an automatic strategy may put `op` in a segment: it may be
/// recomputed and exchanges only tensors and random state with the rest of
/// the step. Empty when it may, else why not.
std::string whyNotSegmentable(mlir::Operation *op);

/// `op`'s FLOPs per result element, rounded up; none when it has no cost
/// or no static result elements.
std::optional<uint64_t> getFlopsPerElement(mlir::Operation *op);

/// Whether recomputing `op` costs more than `flopsPerElement` FLOPs per
/// result element (matrix products at the default 64): the ops whose
/// results selective planning keeps. Sizes must be static.
bool isExpensiveToRecompute(mlir::Operation *op, unsigned flopsPerElement);

/// Wraps `ops` — consecutive ops of one block, none of them a terminator —
/// in a new segment: values they use from outside become its inputs, and
/// their results used outside become its results.
CheckpointOp wrapInSegment(llvm::ArrayRef<mlir::Operation *> ops);

/// Removes every checkpoint segment of `func`, nested ones too, leaving
/// their ops in place.
void inlineAllSegments(mlir::func::FuncOp func);

/// A run of consecutive forward ops and what it hands to the next stage.
struct Stage {
  llvm::SmallVector<mlir::Operation *> ops;
  /// The activations that carry everything later forward ops need from
  /// this stage and the ones before (none after the last stage, or when
  /// nothing crosses).
  llvm::SmallVector<mlir::Value, 1> boundary;
};

/// `stages` of a function, as the same stages of its copy made with
/// `mapping` (which the copy's clone filled).
llvm::SmallVector<Stage> mapStages(llvm::ArrayRef<Stage> stages,
                                   const mlir::IRMapping &mapping);

/// The forward ops of a training step (no segments in it) split into
/// stages: a stage ends where at most `maxCrossing` activations carry
/// everything later forward ops need from the ops so far (parameters,
/// integer and boolean inputs and constants aside). One makes the blocks of
/// a stack; more also cuts inside graphs whose skip connections stay alive
/// across blocks. With `inputsCross`, a float input counts from its first
/// read to its last, so that the stages of a stack are its blocks (uniform
/// and sqrt count stages); without, no argument counts: arguments are live
/// for the whole step whatever the plan, so cutting where they are read
/// costs nothing (dp and ilp, which choose among runs of stages, get the
/// finer chain).
llvm::SmallVector<Stage> findStages(mlir::func::FuncOp step,
                                    unsigned maxCrossing = 1,
                                    bool inputsCross = true);

} // namespace ckpt

#endif // CKPT_PLANNER_SEGMENTS_H
