//===- OpPlan.h - the plan representation at tensor granularity ----------===//
//
// A plan says, for each result of a forward op on its own, whether it is
// kept or dropped, and where each dropped value is recomputed: at sites,
// points right before backward ops. Checkpoint segments (and `ckpt.keep`)
// are one way to write such a plan and convert into it; op-level planners
// write it directly as attributes. ckpt-insert-recompute materialises it.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_PLANNER_OPPLAN_H
#define CKPT_PLANNER_OPPLAN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace ckpt {

/// A place where one ckpt.recompute region runs: right before the
/// backward op `before`, after the sites placed there earlier.
struct RecomputeSite {
  mlir::Operation *before;
  mlir::Location loc;
  /// A checkpoint segment's site recomputes what its values need from its
  /// segment's ops that are not kept, and takes everything else as it is
  /// (or from an earlier site's copy), whether dropped or not.
  std::optional<llvm::DenseSet<mlir::Operation *>> scope = std::nullopt;
};

/// What a plan does with the values a training step's forward ops make.
///
/// A value absent from `dropped` is kept: backward reads it, and recompute
/// regions take it as an input. A dropped value is recomputed by every
/// region that needs it, and made by the regions of its sites for backward:
/// a backward op reads the copy of the latest site at or before it (or the
/// value itself when no site is), and a region takes a value it does not
/// recompute from the latest earlier site that made it. A dropped value
/// with no sites is recomputed only inside regions (an intermediate).
struct OpPlan {
  /// In program order.
  llvm::SmallVector<RecomputeSite> sites;
  /// Dropped values (results of top-level forward ops), in program order,
  /// each with the indices of its sites into `sites`, ascending.
  llvm::MapVector<mlir::Value, llvm::SmallVector<unsigned, 1>> dropped;
};

/// The plan written on `step` as attributes: `ckpt.recompute_at` on forward
/// ops (per result: `unit` when kept, else the ids of its sites) and
/// `ckpt.sites` on the backward ops the sites precede. Fails with an error
/// at the op whose marks are inconsistent or that may not be recomputed.
mlir::FailureOr<OpPlan> readOpPlan(mlir::func::FuncOp step);

/// Writes `plan` (whose sites have no scope) on `step` as the attributes
/// readOpPlan reads, replacing any there; site ids are the sites' indices.
void writeOpPlan(mlir::func::FuncOp step, const OpPlan &plan);

/// Removes the attributes of an op-level plan from `step`.
void eraseOpPlan(mlir::func::FuncOp step);

/// Whether `step` carries an op-level plan's attributes.
bool hasOpPlan(mlir::func::FuncOp step);

/// Converts the checkpoint segments of `step` (and their `ckpt.keep` marks)
/// into the plan they mean, removing them: for each segment, innermost
/// first, the values it makes that backward (or an inner segment's region)
/// reads and that no forward op outside it uses are recomputed at one site
/// before their first reader, scoped to the segment's other ops that are
/// not kept. Fails with errors at the ops that may not be recomputed,
/// leaving `step` unchanged.
mlir::FailureOr<OpPlan> convertSegmentsToOpPlan(mlir::func::FuncOp step);

/// What a region that recomputes `values` clones: the top-level ops of the
/// step they depend on through values `isRecomputed` accepts, in program
/// order, and the values from outside those ops that the copies read.
struct RecomputeSlice {
  llvm::SmallVector<mlir::Operation *> ops;
  llvm::SetVector<mlir::Value> inputs;
};
RecomputeSlice
getRecomputeSlice(mlir::Block &entry, llvm::ArrayRef<mlir::Value> values,
                  llvm::function_ref<bool(mlir::Value)> isRecomputed);

} // namespace ckpt

#endif // CKPT_PLANNER_OPPLAN_H
