//===- TorchCalls.cpp - PyTorch's op calls recorded at import -------------===//
//
// Reads the record of PyTorch's op calls an import leaves on a module, and
// writes a materialised plan as the outputs of those calls it drops.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/Transforms/TorchCalls.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Support/LocationName.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

using namespace mlir;
using namespace ckpt;

namespace {

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
    if (Attribute entry = record.get("scratch")) {
      auto pairs = dyn_cast<DenseI64ArrayAttr>(entry);
      if (!pairs || pairs.size() % 2 != 0)
        return fail("scratch", "needs (op call, tensor argument) pairs");
      for (int64_t i = 0; i < pairs.size(); i += 2) {
        int64_t call = pairs[i], argument = pairs[i + 1];
        if (call < 0 || call >= opCalls || argument < 0 ||
            argument >= static_cast<int64_t>(calls.reads[call].size()))
          return fail("scratch", "needs (op call, tensor argument) pairs");
        calls.scratch.push_back({call, argument});
      }
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

} // namespace

FailureOr<TorchCalls> ckpt::readTorchCalls(ModuleOp module) {
  auto record =
      module->getAttrOfType<DictionaryAttr>(CkptDialect::kTorchCallsAttrName);
  if (!record)
    return module.emitError()
           << "no record of PyTorch's op calls: import the "
              "model with 'ckpt-import-torch --record-calls'";
  return CallsReader(module, record).read();
}

FailureOr<func::FuncOp> ckpt::findTorchStep(ModuleOp module,
                                            const TorchCalls &calls) {
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(CkptDialect::kTrainingStepAttrName) &&
        (func.getSymName() == calls.function ||
         func.getSymName() == calls.function + "_train"))
      return func;
  return module.emitError() << "no training step of '" << calls.function
                            << "' to export; run ckpt-autodiff (or "
                               "ckpt-pipeline) first";
}

std::string ckpt::sha256Hex(ArrayRef<std::string> ops) {
  llvm::SHA256 hash;
  for (auto [index, op] : llvm::enumerate(ops)) {
    if (index)
      hash.update("\n");
    hash.update(op);
  }
  std::array<uint8_t, 32> digest = hash.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

llvm::DenseMap<int64_t, int64_t>
ckpt::getStorageMakers(const TorchCalls &calls) {
  llvm::DenseMap<int64_t, int64_t> makers;
  for (auto [call, storages] : llvm::enumerate(calls.outputs))
    for (int64_t storage : storages)
      if (storage != -1)
        makers.try_emplace(storage, call);
  return makers;
}

std::optional<std::pair<int64_t, int64_t>>
ckpt::findCallOutput(const TorchCalls &calls, Value value) {
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
/// run found it (parameters, inputs), or when its maker's rerun would not
/// repeat its bits or would write what the run found (a rerun of a call
/// in `scratch` writes scratch copies instead). Of the storages autograd saves,
/// one that holds a value of the step and is not kept is dropped, and one
/// that holds none (a dropout mask) goes with its maker's other outputs:
/// dropped when the plan reruns the maker anyway. So are the storages their
/// reruns read that are not kept. A call whose rerun would read a storage
/// written after it (it would not see what forward saw) cannot rerun. Every
/// output in a dropped storage is dropped; `fixed` lists the outputs in
/// storages no plan may drop (found ones aside).
llvm::json::Object ckpt::exportOpsPlan(func::FuncOp step,
                                       const TorchCalls &calls,
                                       const SavedTensorAnalysis &saved) {
  llvm::DenseMap<int64_t, int64_t> maker = getStorageMakers(calls);
  // Calls no rerun may repeat: those whose bits may differ, and those that
  // write what the run found, but where the rerun writes a scratch copy (a
  // batch norm's running statistics).
  llvm::DenseSet<int64_t> unrepeatable(calls.nondeterministic.begin(),
                                       calls.nondeterministic.end());
  llvm::DenseSet<std::pair<int64_t, int64_t>> scratch;
  for (auto [call, argument] : calls.scratch)
    scratch.insert({call, calls.reads[call][argument]});
  llvm::DenseMap<int64_t, int64_t> lastWrite;            // storage -> call
  llvm::DenseMap<int64_t, SmallVector<int64_t>> writers; // storage -> calls
  for (auto [call, storage] : calls.writes) {
    if (calls.found.contains(storage) &&
        !scratch.contains(std::make_pair(call, storage)))
      unrepeatable.insert(call);
    lastWrite[storage] = std::max(lastWrite.lookup(storage), call);
    writers[storage].push_back(call);
  }
  // The storages no plan may drop: found ones, and those an unrepeatable
  // call makes or writes.
  llvm::DenseSet<int64_t> fixed(calls.found.begin(), calls.found.end());
  for (int64_t call : unrepeatable)
    for (int64_t storage : calls.outputs[call])
      if (storage != -1)
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
  // A storage comes back by its maker's rerun and, in order, those of the
  // calls that wrote it in place.
  auto rerunners = [&](int64_t storage) {
    SmallVector<int64_t> found = {maker.lookup(storage)};
    llvm::append_range(found, writers.lookup(storage));
    return found;
  };
  // The saved storages the plan drops: those holding a value of the step
  // that it does not keep, then those holding none (a dropout mask) whose
  // maker reruns for one of the first, then what their reruns read.
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
    for (int64_t call : rerunners(dropped[next]))
      for (int64_t storage : calls.reads[call])
        if (!kept.contains(storage))
          dropped.insert(storage);
  // A rerun that reads a kept storage written after its call would see the
  // later content: what it makes is kept instead, until no rerun does.
  for (bool changed = true; changed;) {
    changed = false;
    for (int64_t storage : dropped.takeVector()) {
      bool stale = llvm::any_of(rerunners(storage), [&](int64_t call) {
        return llvm::any_of(calls.reads[call], [&](int64_t read) {
          return kept.contains(read) && lastWrite.lookup(read) > call;
        });
      });
      if (stale) {
        kept.insert(storage);
        changed = true;
      } else {
        dropped.insert(storage);
      }
    }
  }
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
  llvm::json::Object plan = getTorchPlanHeader(step, calls, saved);
  plan["executor"] = "ops";
  plan["ops"] = llvm::json::Array(calls.ops);
  plan["ops_sha256"] = sha256Hex(calls.ops);
  plan["dropped"] = std::move(droppedOutputs);
  plan["fixed"] = std::move(fixedOutputs);
  llvm::json::Array scratchArguments;
  for (auto [call, argument] : calls.scratch)
    scratchArguments.push_back(llvm::json::Array{call, argument});
  plan["scratch"] = std::move(scratchArguments);
  plan["not_saved_as_planned"] = std::move(notAsPlanned);
  return plan;
}

llvm::json::Object ckpt::getTorchPlanHeader(func::FuncOp step,
                                            const TorchCalls &calls,
                                            const SavedTensorAnalysis &saved) {
  llvm::json::Object header{
      {"format", "ckpt-torch-plan"},
      {"version", 2},
      {"function", calls.function},
      {"step", step.getSymName()},
      {"ckpt_saved_bytes",
       static_cast<int64_t>(saved.getBytes(ValueKind::Activation))}};
  if (auto strategy =
          step->getAttrOfType<StringAttr>(CkptDialect::kPlanAttrName))
    header["plan"] = strategy.getValue();
  if (auto budget =
          step->getAttrOfType<IntegerAttr>(CkptDialect::kBudgetAttrName))
    header["budget"] = budget.getInt();
  return header;
}
