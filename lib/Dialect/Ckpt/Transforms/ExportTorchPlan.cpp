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

/// One call of a module while the model ran forward.
struct ModuleCall {
  std::string path;
  int64_t parent;     // the enclosing module call; -1 for the model's own
  int64_t first, end; // its op calls, [first, end)
  SmallVector<int64_t> inputs; // storages of its tensor arguments
};

/// The `ckpt.torch_calls` record of an import, checked.
struct TorchCalls {
  std::string function;
  SmallVector<std::string> ops;              // per op call
  SmallVector<SmallVector<int64_t>> reads;   // per op call: argument storages
  SmallVector<SmallVector<int64_t>> outputs; // per op call: output storages
  SmallVector<int64_t> storageBytes;
  llvm::DenseSet<int64_t> found; // parameters, buffers and inputs
  SmallVector<ModuleCall> modules;
  SmallVector<std::pair<int64_t, int64_t>> packs;      // (module call, storage)
  SmallVector<std::pair<int64_t, int64_t>> writes;     // (op call, storage)
  llvm::StringMap<std::pair<int64_t, int64_t>> values; // op name -> call
  llvm::DenseSet<int64_t> nondeterministic; // calls a rerun may not repeat
};

class CallsReader {
public:
  CallsReader(ModuleOp module, DictionaryAttr record)
      : module(module), record(record) {}

  FailureOr<TorchCalls> read() {
    TorchCalls calls;
    auto function = get<StringAttr>("function", "a string");
    auto ops = get<ArrayAttr>("ops", "an array of strings");
    auto outputs = get<ArrayAttr>("outputs", "an array of array<i64>");
    auto reads = get<ArrayAttr>("reads", "an array of array<i64>");
    auto bytes = get<DenseI64ArrayAttr>("storage_bytes", "an array<i64>");
    auto found = get<DenseI64ArrayAttr>("found_storages", "an array<i64>");
    auto modules = get<ArrayAttr>("modules", "an array of dictionaries");
    auto packs = get<DenseI64ArrayAttr>("packs", "an array<i64>");
    auto writes = get<DenseI64ArrayAttr>("writes", "an array<i64>");
    auto values = get<DictionaryAttr>("values", "a dictionary");
    if (failed(status))
      return failure();
    calls.function = function.getValue().str();
    llvm::append_range(calls.storageBytes, bytes.asArrayRef());
    int64_t storages = bytes.size();
    auto isStorage = [&](int64_t id) { return id >= 0 && id < storages; };
    for (int64_t id : found.asArrayRef()) {
      if (!isStorage(id))
        return fail("found_storages", "names a storage it does not have");
      calls.found.insert(id);
    }
    if (ops.size() != outputs.size())
      return fail("outputs", "needs one entry per op call");
    for (auto [op, out] : llvm::zip(ops, outputs)) {
      auto name = dyn_cast<StringAttr>(op);
      auto ids = dyn_cast<DenseI64ArrayAttr>(out);
      if (!name || !ids)
        return fail("ops", "and outputs need a string and an array<i64> per "
                           "op call");
      if (llvm::any_of(ids.asArrayRef(),
                       [&](int64_t id) { return id != -1 && !isStorage(id); }))
        return fail("outputs", "names a storage it does not have");
      calls.ops.push_back(name.getValue().str());
      calls.outputs.emplace_back(ids.asArrayRef());
    }
    int64_t opCalls = calls.ops.size();
    if (static_cast<int64_t>(reads.size()) != opCalls)
      return fail("reads", "needs one entry per op call");
    for (Attribute entry : reads) {
      auto ids = dyn_cast<DenseI64ArrayAttr>(entry);
      if (!ids || !llvm::all_of(ids.asArrayRef(), isStorage))
        return fail("reads", "needs an array<i64> of storages per op call");
      calls.reads.emplace_back(ids.asArrayRef());
    }
    for (Attribute entry : modules) {
      auto dictionary = dyn_cast<DictionaryAttr>(entry);
      auto path = dictionary ? dictionary.getAs<StringAttr>("path") : nullptr;
      auto parent =
          dictionary ? dictionary.getAs<IntegerAttr>("parent") : nullptr;
      auto range =
          dictionary ? dictionary.getAs<DenseI64ArrayAttr>("calls") : nullptr;
      auto inputs =
          dictionary ? dictionary.getAs<DenseI64ArrayAttr>("inputs") : nullptr;
      int64_t index = calls.modules.size();
      if (!path || !parent || !range || range.size() != 2 || !inputs ||
          parent.getInt() < -1 || parent.getInt() >= index || range[0] < 0 ||
          range[0] > range[1] || range[1] > opCalls ||
          !llvm::all_of(inputs.asArrayRef(), isStorage))
        return fail("modules", "needs {path, parent (an earlier entry or -1), "
                               "calls = array<i64: first, end>, inputs} per "
                               "module call");
      calls.modules.push_back({path.getValue().str(), parent.getInt(), range[0],
                               range[1],
                               SmallVector<int64_t>(inputs.asArrayRef())});
    }
    int64_t moduleCalls = calls.modules.size();
    if (packs.size() % 2 != 0 || writes.size() % 2 != 0)
      return fail("packs", "and writes hold pairs");
    for (int64_t i = 0; i < packs.size(); i += 2) {
      if (packs[i] < -1 || packs[i] >= moduleCalls || !isStorage(packs[i + 1]))
        return fail("packs", "needs (module call, storage) pairs");
      calls.packs.push_back({packs[i], packs[i + 1]});
    }
    for (int64_t i = 0; i < writes.size(); i += 2) {
      if (writes[i] < 0 || writes[i] >= opCalls || !isStorage(writes[i + 1]))
        return fail("writes", "needs (op call, storage) pairs");
      calls.writes.push_back({writes[i], writes[i + 1]});
    }
    if (Attribute entry = record.get("nondeterministic")) {
      auto calls_ = dyn_cast<DenseI64ArrayAttr>(entry);
      if (!calls_ || !llvm::all_of(calls_.asArrayRef(), [&](int64_t call) {
            return call >= 0 && call < opCalls;
          }))
        return fail("nondeterministic", "is an array<i64> of op calls");
      calls.nondeterministic.insert(calls_.asArrayRef().begin(),
                                    calls_.asArrayRef().end());
    }
    for (NamedAttribute value : values) {
      auto where = dyn_cast<DenseI64ArrayAttr>(value.getValue());
      if (!where || where.size() != 2 || where[0] < 0 || where[0] >= opCalls ||
          where[1] < 0 ||
          where[1] >= static_cast<int64_t>(calls.outputs[where[0]].size()))
        return fail("values", "maps op names to array<i64: op call, output>");
      calls.values[value.getName().getValue()] = {where[0], where[1]};
    }
    return calls;
  }

private:
  template <typename T> T get(StringRef field, StringRef what) {
    auto value = record.getAs<T>(field);
    if (!value && succeeded(status)) {
      module.emitError() << "'" << CkptDialect::kTorchCallsAttrName
                         << "' needs '" << field << "', " << what;
      status = failure();
    }
    return value;
  }
  LogicalResult fail(StringRef field, StringRef what) {
    return module.emitError() << "'" << CkptDialect::kTorchCallsAttrName
                              << "': '" << field << "' " << what;
  }

  ModuleOp module;
  DictionaryAttr record;
  LogicalResult status = success();
};

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

std::string sha256Hex(ArrayRef<std::string> ops) {
  llvm::SHA256 hash;
  for (auto [index, op] : llvm::enumerate(ops)) {
    if (index)
      hash.update("\n");
    hash.update(op);
  }
  std::array<uint8_t, 32> digest = hash.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

/// The first op call to make each storage.
llvm::DenseMap<int64_t, int64_t> getStorageMakers(const TorchCalls &calls) {
  llvm::DenseMap<int64_t, int64_t> makers;
  for (auto [call, storages] : llvm::enumerate(calls.outputs))
    for (int64_t storage : storages)
      if (storage != -1)
        makers.try_emplace(storage, call);
  return makers;
}

/// The op call output of PyTorch's run that holds `value` (made by an op
/// the import named after the node it came from), or none.
std::optional<std::pair<int64_t, int64_t>>
findCallOutput(const TorchCalls &calls, Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return std::nullopt;
  auto it = calls.values.find(getLocationName(result.getOwner()->getLoc()));
  if (it == calls.values.end())
    return std::nullopt;
  auto [call, first] = it->second;
  int64_t output = first + result.getResultNumber();
  if (output >= static_cast<int64_t>(calls.outputs[call].size()))
    output = first;
  return std::make_pair(call, output);
}

/// The plan as the outputs of PyTorch's op calls it drops, decided per
/// storage. A storage is kept when the plan keeps a value in it, when the
/// run found it (parameters, inputs), when a call writes it in place or its
/// maker's rerun would not repeat its bits. Of the storages autograd saves,
/// one that holds a value of the step and is not kept is dropped, and one
/// that holds none (a dropout mask) goes with its maker's other outputs:
/// dropped when the plan reruns the maker anyway. So are the storages their
/// reruns read that are not kept. A call whose rerun would read a storage
/// written after it (it would not see what forward saw) cannot rerun. Every
/// output in a dropped storage is dropped; `fixed` lists the outputs in
/// storages no plan may drop (found ones aside).
llvm::json::Object exportOps(func::FuncOp step, const TorchCalls &calls,
                             const SavedTensorAnalysis &saved) {
  llvm::DenseMap<int64_t, int64_t> maker = getStorageMakers(calls);
  // The storages no plan may drop.
  llvm::DenseSet<int64_t> fixed(calls.found.begin(), calls.found.end());
  llvm::DenseSet<int64_t> unrepeatable(calls.nondeterministic.begin(),
                                       calls.nondeterministic.end());
  llvm::DenseMap<int64_t, int64_t> lastWrite; // storage -> op call
  for (auto [call, storage] : calls.writes) {
    fixed.insert(storage);
    unrepeatable.insert(call);
    lastWrite[storage] = std::max(lastWrite.lookup(storage), call);
  }
  for (auto [call, reads] : llvm::enumerate(calls.reads))
    if (llvm::any_of(reads, [&](int64_t storage) {
          auto it = lastWrite.find(storage);
          return it != lastWrite.end() && it->second > int64_t(call);
        }))
      unrepeatable.insert(call);
  for (auto [storage, call] : maker)
    if (unrepeatable.contains(call))
      fixed.insert(storage);
  llvm::DenseSet<int64_t> kept = fixed;
  llvm::json::Array notAsPlanned;
  for (const SavedTensor &tensor : saved.getSavedTensors()) {
    if (tensor.kind != ValueKind::Activation || !tensor.producer)
      continue;
    if (auto output = findCallOutput(calls, tensor.value))
      kept.insert(calls.outputs[output->first][output->second]);
    else
      notAsPlanned.push_back(llvm::json::Object{
          {"value", getLocationName(tensor.producer->getLoc())},
          {"bytes", static_cast<int64_t>(tensor.bytes)},
          {"reason", "no op call of PyTorch's makes it"}});
  }
  llvm::DenseSet<int64_t> matched;
  step.walk([&](Operation *op) {
    if (!isBackwardOp(op))
      for (Value result : op->getResults())
        if (auto output = findCallOutput(calls, result))
          matched.insert(calls.outputs[output->first][output->second]);
  });
  // The saved storages the plan drops: those holding a value of the step
  // that it does not keep, then those holding none whose maker reruns for
  // one of the first, then what their reruns read.
  llvm::SetVector<int64_t> dropped;
  for (auto [moduleCall, storage] : calls.packs)
    if (!kept.contains(storage) && matched.contains(storage))
      dropped.insert(storage);
  llvm::DenseSet<int64_t> rerun;
  for (int64_t storage : dropped)
    rerun.insert(maker.lookup(storage));
  for (auto [moduleCall, storage] : calls.packs)
    if (!kept.contains(storage) && !matched.contains(storage) &&
        rerun.contains(maker.lookup(storage)))
      dropped.insert(storage);
  for (size_t next = 0; next < dropped.size(); ++next)
    for (int64_t storage : calls.reads[maker.lookup(dropped[next])])
      if (!kept.contains(storage))
        dropped.insert(storage);
  llvm::json::Array droppedOutputs, fixedOutputs;
  for (auto [call, storages] : llvm::enumerate(calls.outputs))
    for (auto [output, storage] : llvm::enumerate(storages)) {
      llvm::json::Array entry{static_cast<int64_t>(call),
                              static_cast<int64_t>(output)};
      if (storage != -1 && dropped.contains(storage))
        droppedOutputs.push_back(std::move(entry));
      else if (fixed.contains(storage) && !calls.found.contains(storage))
        fixedOutputs.push_back(std::move(entry));
    }
  return llvm::json::Object{{"executor", "ops"},
                            {"ops", llvm::json::Array(calls.ops)},
                            {"ops_sha256", sha256Hex(calls.ops)},
                            {"dropped", std::move(droppedOutputs)},
                            {"fixed", std::move(fixedOutputs)},
                            {"not_saved_as_planned", std::move(notAsPlanned)}};
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
    auto record =
        module->getAttrOfType<DictionaryAttr>(CkptDialect::kTorchCallsAttrName);
    if (!record) {
      module.emitError() << "no record of PyTorch's op calls: import the "
                            "model with 'ckpt-import-torch --record-calls'";
      return signalPassFailure();
    }
    FailureOr<TorchCalls> calls = CallsReader(module, record).read();
    if (failed(calls))
      return signalPassFailure();
    func::FuncOp step;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(CkptDialect::kTrainingStepAttrName) &&
          (func.getSymName() == calls->function ||
           func.getSymName() == calls->function + "_train"))
        step = func;
    if (!step) {
      module.emitError() << "no training step of '" << calls->function
                         << "' to export; run ckpt-autodiff (or "
                            "ckpt-pipeline) first";
      return signalPassFailure();
    }
    if (!step.getOps<CheckpointOp>().empty() || hasOpPlan(step)) {
      step.emitError() << "the plan is not materialised; run "
                          "ckpt-insert-recompute first";
      return signalPassFailure();
    }
    FailureOr<SavedTensorAnalysis> saved = SavedTensorAnalysis::compute(step);
    if (failed(saved))
      return signalPassFailure();
    FailureOr<llvm::json::Object> plan =
        executor == "ops" ? exportOps(step, *calls, *saved)
                          : exportRegions(module, *calls, *saved, modules);
    if (failed(plan))
      return signalPassFailure();
    plan->insert({"format", "ckpt-torch-plan"});
    plan->insert({"version", 2});
    plan->insert({"function", calls->function});
    plan->insert({"step", step.getSymName()});
    plan->insert({"ckpt_saved_bytes", static_cast<int64_t>(saved->getBytes(
                                          ValueKind::Activation))});
    if (auto strategy =
            step->getAttrOfType<StringAttr>(CkptDialect::kPlanAttrName))
      plan->insert({"plan", strategy.getValue()});
    if (auto budget =
            step->getAttrOfType<IntegerAttr>(CkptDialect::kBudgetAttrName))
      plan->insert({"budget", budget.getInt()});

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
