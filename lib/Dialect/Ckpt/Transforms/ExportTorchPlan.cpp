//===- ExportTorchPlan.cpp - a planned step as a plan for PyTorch ---------===//
//
// Writes the plan of a training step imported from PyTorch as JSON for
// ckpt_torch: by default the outputs of PyTorch's op calls that the plan drops
// (ckpt_torch's executor reruns them), or regions (module calls) with per-op-
// call policies of PyTorch's selective activation checkpointing and the bytes
// PyTorch will hold after forward. Read-only.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Dialect/Ckpt/Transforms/TorchCalls.h"

#include "ckpt/Analysis/SavedTensors.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Planner/OpPlan.h"
#include "ckpt/Support/LocationName.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ToolOutputFile.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTEXPORTTORCHPLANPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace ckpt

using namespace mlir;
using namespace ckpt;

namespace {

/// The module calls that become regions: those matching one of `patterns`
/// (outermost first), or by default the calls left after going down from
/// the model into every call that holds more than half of the op calls.
FailureOr<SmallVector<int64_t>> chooseRegions(ModuleOp module,
                                              const TorchCalls &calls,
                                              ArrayRef<std::string> patterns) {
  SmallVector<int64_t> regions;
  auto size = [&](int64_t call) {
    return calls.modules[call].end - calls.modules[call].first;
  };
  // The module calls directly inside each (the model's own: -1, last).
  SmallVector<SmallVector<int64_t>> inside(calls.modules.size() + 1);
  for (auto [index, entry] : llvm::enumerate(calls.modules))
    inside[entry.parent == -1 ? calls.modules.size() : entry.parent].push_back(
        index);
  auto children = [&](int64_t call) -> ArrayRef<int64_t> {
    return inside[call == -1 ? calls.modules.size() : call];
  };
  // PyTorch's checkpoint holds a region's inputs for its recompute, and
  // refuses to recompute when one was written in place since.
  auto writtenInput = [&](int64_t call) -> std::optional<int64_t> {
    const ModuleCall &entry = calls.modules[call];
    for (auto [opCall, storage] : calls.writes)
      if (opCall >= entry.first && opCall < entry.end &&
          llvm::is_contained(entry.inputs, storage))
        return opCall;
    return std::nullopt;
  };
  if (patterns.empty()) {
    SmallVector<int64_t> pending(children(-1));
    int64_t total = calls.ops.size();
    while (!pending.empty()) {
      int64_t call = pending.pop_back_val();
      ArrayRef<int64_t> inner = children(call);
      bool valid = !writtenInput(call);
      if ((2 * size(call) > total || !valid) && !inner.empty())
        llvm::append_range(pending, inner);
      else if (valid && size(call) > 0 && calls.modules[call].parent != -1)
        regions.push_back(call);
    }
    llvm::sort(regions);
    if (regions.empty())
      return module.emitError()
             << "the model has no submodule call to make a checkpoint region "
                "of; name the regions with 'modules'";
    return regions;
  }
  SmallVector<llvm::GlobPattern> globs;
  for (const std::string &pattern : patterns) {
    llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(pattern);
    if (!glob)
      return module.emitError()
             << "'modules': '" << pattern
             << "' is not a glob pattern: " << llvm::toString(glob.takeError());
    globs.push_back(std::move(*glob));
  }
  SmallVector<bool> used(globs.size(), false);
  llvm::DenseSet<int64_t> chosen;
  for (auto [index, entry] : llvm::enumerate(calls.modules)) {
    bool inside = false;
    for (int64_t up = entry.parent; up != -1; up = calls.modules[up].parent)
      inside |= chosen.contains(up);
    for (auto [glob, isUsed] : llvm::zip(globs, used))
      if (glob.match(entry.path)) {
        isUsed = true;
        if (inside || entry.parent == -1 || !chosen.insert(index).second)
          continue;
        if (std::optional<int64_t> opCall = writtenInput(index))
          return module.emitError()
                 << "'modules': module '" << entry.path << "' writes its "
                 << "input in place (op call " << *opCall << ", "
                 << calls.ops[*opCall] << "), so PyTorch cannot checkpoint it";
        regions.push_back(index);
      }
  }
  for (auto [pattern, isUsed] : llvm::zip(patterns, used))
    if (!isUsed)
      return module.emitError()
             << "'modules': no submodule call matches '" << pattern << "'";
  return regions;
}

/// The plan as selective activation checkpointing: regions (module calls,
/// `patterns` or chosen where the forward splits) whose op calls are saved
/// when they make a kept value, and what PyTorch will hold after forward.
FailureOr<llvm::json::Object> exportRegions(ModuleOp module,
                                            const TorchCalls &calls,
                                            const SavedTensorAnalysis &saved,
                                            ArrayRef<std::string> patterns) {
  FailureOr<SmallVector<int64_t>> regions =
      chooseRegions(module, calls, patterns);
  if (failed(regions))
    return failure();

  // The region each op call and each module call runs in (-1: none).
  SmallVector<int64_t> callRegion(calls.ops.size(), -1);
  SmallVector<int64_t> moduleRegion(calls.modules.size(), -1);
  for (auto [position, region] : llvm::enumerate(*regions)) {
    const ModuleCall &entry = calls.modules[region];
    for (int64_t call = entry.first; call < entry.end; ++call)
      callRegion[call] = position;
  }
  for (auto [index, entry] : llvm::enumerate(calls.modules))
    for (int64_t up = index; up != -1 && moduleRegion[index] == -1;
         up = calls.modules[up].parent)
      if (const auto *it = llvm::find(*regions, up); it != regions->end())
        moduleRegion[index] = it - regions->begin();

  // Saving a call caches all its outputs, and PyTorch refuses to give
  // back a cached tensor that was written since (an in-place op's too:
  // autograd counts its write after the cache saw it).
  llvm::DenseMap<int64_t, int64_t> lastWrite; // storage -> op call
  for (auto [opCall, storage] : calls.writes)
    lastWrite[storage] = std::max(lastWrite.lookup(storage), opCall);
  auto cacheable = [&](int64_t call) {
    return llvm::none_of(calls.outputs[call], [&](int64_t storage) {
      auto it = lastWrite.find(storage);
      return it != lastWrite.end() && it->second >= call;
    });
  };
  llvm::DenseMap<int64_t, int64_t> storageMaker = getStorageMakers(calls);

  // The op calls to save, with the outputs the plan keeps, and the kept
  // values PyTorch cannot keep as planned.
  std::map<int64_t, std::set<int64_t>> savedCalls;
  llvm::json::Array notAsPlanned;
  for (const SavedTensor &tensor : saved.getSavedTensors()) {
    if (tensor.kind != ValueKind::Activation || !tensor.producer)
      continue;
    std::string name = getLocationName(tensor.producer->getLoc());
    auto reason = [&]() -> std::optional<StringRef> {
      auto found = findCallOutput(calls, tensor.value);
      if (!found)
        return StringRef("no op call of PyTorch's makes it");
      auto [call, output] = *found;
      if (callRegion[call] == -1)
        return StringRef("made outside every region, where autograd "
                         "decides");
      if (!cacheable(call))
        return StringRef("its op call makes a tensor written in place "
                         "(by it or later), which PyTorch cannot cache");
      savedCalls[call].insert(output);
      // A view's recompute would run the op that made its storage again
      // for nothing: that op is saved too, at no cost in memory.
      auto maker = storageMaker.find(calls.outputs[call][output]);
      if (maker != storageMaker.end() && maker->second != call &&
          callRegion[maker->second] == callRegion[call] &&
          cacheable(maker->second))
        savedCalls[maker->second];
      return std::nullopt;
    }();
    if (reason)
      notAsPlanned.push_back(
          llvm::json::Object{{"value", name.empty() ? "?" : name},
                             {"bytes", static_cast<int64_t>(tensor.bytes)},
                             {"reason", *reason}});
  }

  // What PyTorch holds after forward: storages, each counted once, that
  // the run made (not parameters, buffers or inputs).
  auto bytesOf = [&](const llvm::DenseSet<int64_t> &storages) {
    int64_t total = 0;
    for (int64_t id : storages)
      if (!calls.found.contains(id))
        total += calls.storageBytes[id];
    return total;
  };
  // A region in which autograd saves nothing is never recomputed, and
  // PyTorch drops what its checkpoint held (inputs, cached outputs,
  // random state) right after forward.
  llvm::DenseSet<int64_t> withoutPlan, outside, withPlan;
  SmallVector<bool> recomputes(regions->size(), false);
  for (auto [moduleCall, storage] : calls.packs) {
    withoutPlan.insert(storage);
    if (moduleCall == -1 || moduleRegion[moduleCall] == -1)
      outside.insert(storage);
    else
      recomputes[moduleRegion[moduleCall]] = true;
  }
  withPlan = outside;

  llvm::StringMap<int64_t> callsOfPath;
  SmallVector<int64_t> callNumber(calls.modules.size());
  for (auto [index, entry] : llvm::enumerate(calls.modules))
    callNumber[index] = callsOfPath[entry.path]++;

  llvm::json::Array regionsJson;
  for (auto [position, region] : llvm::enumerate(*regions)) {
    const ModuleCall &entry = calls.modules[region];
    llvm::DenseSet<int64_t> held(entry.inputs.begin(), entry.inputs.end());
    llvm::StringMap<int64_t> occurrences;
    llvm::json::Array ops;
    SmallVector<std::string> sequence;
    for (int64_t call = entry.first; call < entry.end; ++call) {
      const std::string &op = calls.ops[call];
      sequence.push_back(op);
      llvm::json::Object item{{"op", op}, {"occurrence", occurrences[op]++}};
      auto it = savedCalls.find(call);
      if (it == savedCalls.end()) {
        item["policy"] = "MUST_RECOMPUTE";
      } else {
        item["policy"] = "MUST_SAVE";
        item["outputs"] = llvm::json::Array(
            std::vector<int64_t>(it->second.begin(), it->second.end()));
        for (int64_t storage : calls.outputs[call])
          if (storage != -1)
            held.insert(storage);
      }
      ops.push_back(std::move(item));
    }
    if (!recomputes[position])
      held.clear();
    for (int64_t storage : held)
      withPlan.insert(storage);
    regionsJson.push_back(
        llvm::json::Object{{"module", entry.path},
                           {"call", callNumber[region]},
                           {"ops_sha256", sha256Hex(sequence)},
                           {"recomputes", recomputes[position]},
                           {"held_bytes", bytesOf(held)},
                           {"ops", std::move(ops)}});
  }

  return llvm::json::Object{
      {"executor", "regions"},
      {"regions", std::move(regionsJson)},
      {"held_bytes", llvm::json::Object{{"without_plan", bytesOf(withoutPlan)},
                                        {"with_plan", bytesOf(withPlan)},
                                        {"outside_regions", bytesOf(outside)}}},
      {"not_saved_as_planned", std::move(notAsPlanned)}};
}

struct CkptExportTorchPlanPass
    : public ckpt::impl::CkptExportTorchPlanPassBase<CkptExportTorchPlanPass> {
  using Base::Base;

  void runOnOperation() override {
    markAllAnalysesPreserved();
    ModuleOp module = getOperation();
    if (executor != "ops" && executor != "regions") {
      module.emitError() << "unknown executor '" << executor
                         << "'; expected ops or regions";
      return signalPassFailure();
    }
    if (executor == "ops" && !modules.empty()) {
      module.emitError() << "'modules' names the regions of "
                            "'executor=regions'; the ops executor has none";
      return signalPassFailure();
    }
    FailureOr<TorchCalls> calls = readTorchCalls(module);
    if (failed(calls))
      return signalPassFailure();
    FailureOr<func::FuncOp> found = findTorchStep(module, *calls);
    if (failed(found))
      return signalPassFailure();
    func::FuncOp step = *found;
    if (!step.getOps<CheckpointOp>().empty() || hasOpPlan(step)) {
      step.emitError() << "the plan is not materialised; run "
                          "ckpt-insert-recompute first";
      return signalPassFailure();
    }
    FailureOr<SavedTensorAnalysis> saved = SavedTensorAnalysis::compute(step);
    if (failed(saved))
      return signalPassFailure();
    FailureOr<llvm::json::Object> plan =
        executor == "ops" ? exportOpsPlan(step, *calls, *saved)
                          : exportRegions(module, *calls, *saved, modules);
    if (failed(plan))
      return signalPassFailure();
    for (auto &[field, value] : getTorchPlanHeader(step, *calls, *saved))
      plan->try_emplace(field, std::move(value));

    std::string message;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(output, &message);
    if (!file) {
      module.emitError() << "cannot write the plan to '" << output
                         << "': " << message;
      return signalPassFailure();
    }
    file->os() << llvm::formatv("{0:2}", llvm::json::Value(std::move(*plan)))
               << "\n";
    file->keep();
  }
};

} // namespace
