//===- TorchCalls.h - PyTorch's op calls recorded at import ---------------===//
//
// The record `ckpt-import-torch --record-calls` leaves on a module (PyTorch's
// op calls below autograd while the model ran forward, the storages they read
// and made, its module calls, what autograd saved and which call makes each
// op's value), read and checked, and a materialised plan as the outputs of
// those calls that PyTorch's executor drops.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_TORCHCALLS_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_TORCHCALLS_H

#include "ckpt/Analysis/SavedTensors.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace ckpt {

/// One call of a module while the model ran forward.
struct ModuleCall {
  std::string path;
  int64_t parent;     // the enclosing module call; -1 for the model's own
  int64_t first, end; // its op calls, [first, end)
  llvm::SmallVector<int64_t> inputs; // storages of its tensor arguments
};

/// The `ckpt.torch_calls` record of an import, checked.
struct TorchCalls {
  std::string function;
  /// Per op call: its op, the storages of its tensor arguments and outputs.
  llvm::SmallVector<std::string> ops;
  llvm::SmallVector<llvm::SmallVector<int64_t>> reads;
  llvm::SmallVector<llvm::SmallVector<int64_t>> outputs;
  llvm::SmallVector<int64_t> storageBytes;
  /// Storages the run found: parameters, buffers and inputs.
  llvm::DenseSet<int64_t> found;
  llvm::SmallVector<ModuleCall> modules;
  /// (module call, storage) that autograd saved; (op call, storage) that a
  /// call wrote in place.
  llvm::SmallVector<std::pair<int64_t, int64_t>> packs;
  llvm::SmallVector<std::pair<int64_t, int64_t>> writes;
  /// Op name -> (op call, output) that makes its value.
  llvm::StringMap<std::pair<int64_t, int64_t>> values;
  /// Calls whose rerun may not repeat their bits.
  llvm::DenseSet<int64_t> nondeterministic;
  /// (op call, tensor argument) the call writes where none of its outputs
  /// reads the old values (a batch norm's running statistics): a rerun
  /// writes a scratch copy instead.
  llvm::SmallVector<std::pair<int64_t, int64_t>> scratch;
};

/// The module's record, checked; fails with an error at the module when it
/// has none or it is damaged.
mlir::FailureOr<TorchCalls> readTorchCalls(mlir::ModuleOp module);

/// The training step of the recorded function, or an error at the module.
mlir::FailureOr<mlir::func::FuncOp> findTorchStep(mlir::ModuleOp module,
                                                  const TorchCalls &calls);

/// SHA-256 (hex) of the op names joined with newlines.
std::string sha256Hex(llvm::ArrayRef<std::string> ops);

/// The first op call to make each storage.
llvm::DenseMap<int64_t, int64_t> getStorageMakers(const TorchCalls &calls);

/// The op call output of PyTorch's run that holds `value` (made by an op
/// the import named after the node it came from), or none.
std::optional<std::pair<int64_t, int64_t>>
findCallOutput(const TorchCalls &calls, mlir::Value value);

/// What every plan file for PyTorch starts with (docs/ReportFormat.md):
/// `format`, `version`, `function`, `step`, `ckpt_saved_bytes`, and `plan`
/// and `budget` where the step has them.
llvm::json::Object getTorchPlanHeader(mlir::func::FuncOp step,
                                      const TorchCalls &calls,
                                      const SavedTensorAnalysis &saved);

/// The materialised plan of `step` (its saved tensors `saved`) as the
/// outputs of PyTorch's op calls that ckpt_torch's executor drops: the
/// header, `executor` (ops), `ops`, `ops_sha256`, `dropped`, `fixed` and
/// `not_saved_as_planned` (docs/ReportFormat.md).
llvm::json::Object exportOpsPlan(mlir::func::FuncOp step,
                                 const TorchCalls &calls,
                                 const SavedTensorAnalysis &saved);

} // namespace ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_TORCHCALLS_H
