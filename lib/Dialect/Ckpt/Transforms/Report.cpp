//===- Report.cpp - saved tensors and simulated peak of training steps ----===//
//
// Prints, for every training step, the saved-tensor table and totals from
// SavedTensorAnalysis, the peak from the memory simulator, the FLOPs and the
// plan's recompute segments, as text or JSON, and optionally as remarks.
// Read-only.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/MemorySimulator.h"
#include "ckpt/Analysis/SavedTensors.h"
#include "ckpt/Analysis/StepCost.h"
#include "ckpt/Analysis/SvgChart.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/Recomputability.h"
#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Planner/OpPlan.h"
#include "ckpt/Planner/Recompute.h"
#include "ckpt/Planner/Segments.h"
#include "ckpt/Support/LocationName.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTREPORTPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace ckpt

using namespace mlir;
using namespace ckpt;

namespace {

/// "file.mlir:12:5" for file locations (through name and call-site
/// wrappers), "?" otherwise.
std::string locationText(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
            Twine(file.getLine()) + ":" + Twine(file.getColumn()))
        .str();
  if (auto name = dyn_cast<NameLoc>(loc))
    return locationText(name.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string text = locationText(inner); text != "?")
        return text;
  return "?";
}

std::string shapeText(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return "-";
  if (tensor.getRank() == 0)
    return "scalar";
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(tensor.getShape(), os, "x");
  return text;
}

std::string elementText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    os << tensor.getElementType();
  else
    os << type;
  return text;
}

/// A recompute region and what it brings back.
struct RecomputeSegment {
  mutable RecomputeOp op;
  uint64_t inputBytes = 0;
  uint64_t recomputedBytes = 0;
  size_t clonedOps = 0;
  uint64_t flops = 0;
};

/// The recompute regions of `step`, in program order.
FailureOr<SmallVector<RecomputeSegment>>
collectRecomputeSegments(func::FuncOp step) {
  SmallVector<RecomputeSegment> segments;
  for (auto op : step.getOps<RecomputeOp>()) {
    RecomputeSegment &segment = segments.emplace_back();
    segment.op = op;
    for (Value input : op.getInputs()) {
      FailureOr<uint64_t> bytes = getValueBytes(input, op);
      if (failed(bytes))
        return failure();
      segment.inputBytes += *bytes;
    }
    for (Value result : op.getResults()) {
      FailureOr<uint64_t> bytes = getValueBytes(result, op);
      if (failed(bytes))
        return failure();
      segment.recomputedBytes += *bytes;
    }
    segment.clonedOps = op.getBodyBlock().getOperations().size() - 1;
    op.walk([&](CostOpInterface inner) { segment.flops += inner.getFlops(); });
  }
  return segments;
}

/// One stage of the forward chain.
struct StageRow {
  Location loc;
  size_t ops;
  uint64_t flops = 0;
  /// Bytes of the stage's values that backward reads (constants aside).
  uint64_t savedBytes = 0;
  /// Bytes of the activation handed to the next stage.
  uint64_t boundaryBytes = 0;
};

/// The stage chain of `step` (found on a copy without segments).
FailureOr<SmallVector<StageRow>> collectStages(func::FuncOp step) {
  OwningOpRef<func::FuncOp> copy = step.clone();
  inlineAllSegments(*copy);
  SmallVector<StageRow> rows;
  for (const Stage &stage : findStages(*copy)) {
    StageRow &row = rows.emplace_back(
        StageRow{stage.ops.front()->getLoc(), stage.ops.size()});
    for (Operation *op : stage.ops) {
      if (auto cost = dyn_cast<CostOpInterface>(op)) {
        if (failed(verifyStaticSizes(cost)))
          return failure();
        row.flops += cost.getFlops();
      }
      // Constants are globals: saving one costs no heap bytes.
      if (op->hasTrait<OpTrait::ConstantLike>())
        continue;
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), isBackwardOp))
          row.savedBytes += getValueBytes(result, op).value_or(0);
    }
    for (Value value : stage.boundary)
      row.boundaryBytes += getValueBytes(value, *copy).value_or(0);
  }
  return rows;
}

/// The value a checkpoint segment's result stands for: what its body
/// yields, through nested segments; other values stand for themselves.
Value getSegmentSource(Value value) {
  while (auto segment = value.getDefiningOp<CheckpointOp>())
    value = segment.getBodyBlock().getTerminator()->getOperand(
        cast<OpResult>(value).getResultNumber());
  return value;
}

/// Why a saved tensor is kept, or which segment recomputes it, by the plan
/// rule (Planner/Segments.h) on the step as it is; `opLevelPlan`: the step
/// carries an op-level plan's marks.
std::string decideSavedTensor(const SavedTensor &tensor, bool opLevelPlan) {
  Value value = tensor.value;
  if (isa<BlockArgument>(value))
    return "kept: argument";
  Operation *producer = tensor.producer;
  auto segment = dyn_cast<CheckpointOp>(producer);
  if (!segment) {
    if (std::string why = whyNotRecomputable(producer); !why.empty())
      return "kept: cannot be recomputed: it " + why;
    if (auto marks = producer->getAttrOfType<ArrayAttr>(
            CkptDialect::kRecomputeAtAttrName)) {
      auto sites = dyn_cast<DenseI64ArrayAttr>(
          marks[cast<OpResult>(value).getResultNumber()]);
      if (!sites)
        return "kept: the op-level plan keeps it";
      if (sites.empty())
        return "kept for backward; recompute regions make their own copy";
      std::string text = "recomputed at site";
      text += sites.size() > 1 ? "s" : "";
      for (auto [index, id] : llvm::enumerate(sites.asArrayRef()))
        text += (index ? ", " : " ") + std::to_string(id);
      return text;
    }
    bool boundary = llvm::any_of(value.getUsers(), [](Operation *user) {
      return isa<CheckpointOp, RecomputeOp>(user);
    });
    if (boundary)
      return "kept: segment input, recomputation starts from it";
    return opLevelPlan ? "kept: the op-level plan keeps it"
                       : "kept: outside every segment";
  }
  Operation *maker = getSegmentSource(value).getDefiningOp();
  bool readAfter = llvm::any_of(value.getUsers(), [&](Operation *user) {
    return !isBackwardOp(user) && !isa<YieldOp>(user);
  });
  if (readAfter)
    return "kept: segment output, a later forward op reads it";
  if (maker && maker->hasAttr(CkptDialect::kKeepAttrName))
    return "kept: selected (ckpt.keep)";
  if (!maker)
    return "kept: segment input, recomputation starts from it";
  return "recomputed by the segment at " + locationText(segment.getLoc());
}

/// Everything the report says about one training step.
struct StepReport {
  mutable func::FuncOp step;
  SavedTensorAnalysis saved;
  MemoryPeak peak;
  StepCost cost;
  SmallVector<RecomputeSegment> recompute;
  SmallVector<StageRow> stages;
  /// While the plan is still checkpoint segments: the plan materialised
  /// on a copy.
  std::optional<PlanEvaluation> planned;
  /// Names of values as the printer would write them (%12, %arg0).
  std::function<std::string(Value)> name;

  /// The op that made the tensor (inside its segment, for a segment
  /// result), or "argument N".
  std::string producerText(const SavedTensor &tensor) const {
    Value source = getSegmentSource(tensor.value);
    if (auto arg = dyn_cast<BlockArgument>(source))
      return arg.getOwner()->isEntryBlock() &&
                     arg.getOwner()->getParentOp() == step
                 ? "argument " + std::to_string(arg.getArgNumber())
                 : "segment input";
    return source.getDefiningOp()->getName().getStringRef().str();
  }
  Location locationOf(const SavedTensor &tensor) const {
    Operation *source = getSegmentSource(tensor.value).getDefiningOp();
    return source ? source->getLoc() : step.getLoc();
  }
  std::string strategy() const {
    auto plan = step->getAttrOfType<StringAttr>(CkptDialect::kPlanAttrName);
    return plan ? plan.str() : "none (not planned)";
  }
  /// Recompute FLOPs in percent of one forward.
  double recomputePercent(const StepCost &of) const {
    return of.forward.flops ? 100.0 * of.recompute.flops / of.forward.flops
                            : 0.0;
  }
  double recomputePercent() const { return recomputePercent(cost); }
  /// The budget ckpt-plan was given, if any.
  std::optional<int64_t> budget() const {
    auto bytes = step->getAttrOfType<IntegerAttr>(CkptDialect::kBudgetAttrName);
    return bytes ? std::optional<int64_t>(bytes.getInt()) : std::nullopt;
  }
  /// The microbatches in flight ckpt-plan planned for (1 by default).
  unsigned microbatches() const {
    auto count = step->getAttrOfType<IntegerAttr>(
        CkptDialect::kMicrobatchesInFlightAttrName);
    return count ? static_cast<unsigned>(count.getInt()) : 1;
  }
};

constexpr ValueKind kSavedKinds[] = {ValueKind::Activation,
                                     ValueKind::Parameter, ValueKind::Constant};
constexpr ValueKind kAllKinds[] = {ValueKind::Parameter, ValueKind::Activation,
                                   ValueKind::Constant, ValueKind::Gradient,
                                   ValueKind::Temporary};

void printText(raw_ostream &os, const StepReport &report) {
  os << "training step @" << report.step.getSymName() << "\n";
  os << "saved tensors (forward values read by backward ops):\n";
  // Imported models give values long names (`%blocks.0.fc.weight`).
  ArrayRef<SavedTensor> saved = report.saved.getSavedTensors();
  SmallVector<std::string> names;
  int valueWidth = 10;
  for (const SavedTensor &tensor : saved) {
    names.push_back(report.name(tensor.value));
    valueWidth = std::max<int>(valueWidth, names.back().size());
  }
  bool opLevelPlan = hasOpPlan(report.step);
  os << llvm::format("  %-5s %-12s %-22s %-24s %-*s %-18s %-6s %-10s %s\n", "#",
                     "kind", "producer", "location", valueWidth, "value",
                     "shape", "dtype", "bytes", "decision");
  for (auto [index, tensor] : llvm::enumerate(saved))
    os << llvm::format("  %-5zu %-12s %-22s %-24s %-*s %-18s %-6s %-10llu %s\n",
                       index + 1, getValueKindName(tensor.kind).str().c_str(),
                       report.producerText(tensor).c_str(),
                       locationText(report.locationOf(tensor)).c_str(),
                       valueWidth, names[index].c_str(),
                       shapeText(tensor.value.getType()).c_str(),
                       elementText(tensor.value.getType()).c_str(),
                       static_cast<unsigned long long>(tensor.bytes),
                       decideSavedTensor(tensor, opLevelPlan).c_str());
  os << "totals:\n";
  for (ValueKind kind : kSavedKinds)
    os << "  saved " << getValueKindName(kind, /*plural=*/true) << ": "
       << report.saved.getCount(kind) << " tensors, "
       << formatBytes(report.saved.getBytes(kind)) << "\n";
  const MemoryPeak &peak = report.peak;
  os << "simulated peak: " << formatBytes(peak.bytes);
  if (peak.op)
    os << " while running " << peak.op->getName() << " at "
       << locationText(peak.op->getLoc());
  os << "\n";
  for (ValueKind kind : kAllKinds)
    os << "  " << getValueKindName(kind, /*plural=*/true) << ": "
       << formatBytes(peak.getBytes(kind)) << "\n";
  os << "  live values: " << peak.live.size() << "\n";
  os << "simulated peak without returned gradients: "
     << formatBytes(peak.bytesWithoutGradients) << "\n";
  os << "activations held from forward to backward: "
     << formatBytes(peak.activationBytesAtBackward) << "\n";
  if (unsigned microbatches = report.microbatches(); microbatches > 1)
    os << "simulated peak with " << microbatches << " microbatches in flight: "
       << formatBytes(peak.getPeakWithMicrobatches(microbatches)) << "\n";
  os << "stages (the forward split where one activation crosses):\n";
  os << llvm::format("  %-5s %-24s %-6s %-16s %-26s %s\n", "#", "location",
                     "ops", "forward FLOPs", "saved bytes", "boundary bytes");
  for (auto [index, stage] : llvm::enumerate(report.stages))
    os << llvm::format("  %-5zu %-24s %-6zu %-16llu %-26s %s\n", index + 1,
                       locationText(stage.loc).c_str(), stage.ops,
                       static_cast<unsigned long long>(stage.flops),
                       formatBytes(stage.savedBytes).c_str(),
                       formatBytes(stage.boundaryBytes).c_str());
  os << "compute:\n";
  for (auto [part, cost] : {std::pair{"forward", report.cost.forward},
                            std::pair{"backward", report.cost.backward},
                            std::pair{"recompute", report.cost.recompute}})
    os << "  " << part << ": " << cost.flops << " FLOPs, "
       << formatBytes(cost.bytesRead) << " read, "
       << formatBytes(cost.bytesWritten) << " written\n";
  uint64_t recomputedBytes = 0;
  for (const RecomputeSegment &segment : report.recompute)
    recomputedBytes += segment.recomputedBytes;
  os << "plan: " << report.strategy();
  if (std::optional<int64_t> budget = report.budget())
    os << " within a budget of " << formatBytes(*budget);
  os << ", " << report.recompute.size() << " recompute segments, "
     << formatBytes(recomputedBytes) << " recomputed, extra forward FLOPs "
     << llvm::format("%.1f%%", report.recomputePercent())
     << " of one forward\n";
  if (const std::optional<PlanEvaluation> &planned = report.planned) {
    os << "  planned as "
       << (hasOpPlan(report.step) ? "op-level marks" : "checkpoint segments")
       << " (not yet materialised; ckpt-insert-recompute does it): simulated "
          "peak "
       << formatBytes(planned->peak.bytes) << ", without returned gradients "
       << formatBytes(planned->peak.bytesWithoutGradients);
    if (unsigned microbatches = report.microbatches(); microbatches > 1)
      os << ", with " << microbatches << " microbatches in flight "
         << formatBytes(planned->peak.getPeakWithMicrobatches(microbatches));
    os << ", extra forward FLOPs "
       << llvm::format("%.1f%%", report.recomputePercent(planned->cost))
       << " of one forward\n";
  }
  if (report.recompute.empty())
    return;
  os << llvm::format("  %-5s %-24s %-8s %-26s %-8s %-26s %s\n", "#", "location",
                     "inputs", "input bytes", "values", "recomputed bytes",
                     "FLOPs");
  for (auto [index, segment] : llvm::enumerate(report.recompute))
    os << llvm::format("  %-5zu %-24s %-8u %-26s %-8u %-26s %llu\n", index + 1,
                       locationText(segment.op.getLoc()).c_str(),
                       segment.op.getInputs().size(),
                       formatBytes(segment.inputBytes).c_str(),
                       segment.op.getNumResults(),
                       formatBytes(segment.recomputedBytes).c_str(),
                       static_cast<unsigned long long>(segment.flops));
  os << "recomputed tensors (made again right before the backward ops that "
        "read them):\n";
  os << llvm::format("  %-5s %-8s %-22s %-24s %-10s %-18s %-6s %s\n", "#",
                     "segment", "producer", "location", "value", "shape",
                     "dtype", "bytes");
  size_t count = 0;
  for (auto [index, segment] : llvm::enumerate(report.recompute)) {
    auto yield = cast<YieldOp>(segment.op.getBodyBlock().getTerminator());
    for (Value value : yield.getValues()) {
      Operation *producer = value.getDefiningOp();
      os << llvm::format(
          "  %-5zu %-8zu %-22s %-24s %-10s %-18s %-6s %llu\n", ++count,
          index + 1, producer->getName().getStringRef().str().c_str(),
          locationText(producer->getLoc()).c_str(), report.name(value).c_str(),
          shapeText(value.getType()).c_str(),
          elementText(value.getType()).c_str(),
          static_cast<unsigned long long>(
              getValueBytes(value, producer).value_or(0)));
    }
  }
}

llvm::json::Object toJson(const Cost &cost) {
  return llvm::json::Object{
      {"flops", static_cast<int64_t>(cost.flops)},
      {"bytes_read", static_cast<int64_t>(cost.bytesRead)},
      {"bytes_written", static_cast<int64_t>(cost.bytesWritten)}};
}

llvm::json::Value toJson(const StepReport &report) {
  llvm::json::Array tensors;
  bool opLevelPlan = hasOpPlan(report.step);
  for (const SavedTensor &tensor : report.saved.getSavedTensors()) {
    llvm::json::Array consumers;
    for (Operation *consumer : tensor.consumers)
      consumers.push_back(consumer->getName().getStringRef());
    // A view's memory is its source's: an input's, for instance, which no
    // plan frees.
    llvm::json::Value views = nullptr;
    if (tensor.buffer != tensor.value) {
      auto arg = dyn_cast<BlockArgument>(tensor.buffer);
      views = arg ? "argument " + std::to_string(arg.getArgNumber())
                  : report.name(tensor.buffer);
    }
    tensors.push_back(llvm::json::Object{
        {"kind", getValueKindName(tensor.kind)},
        {"producer", report.producerText(tensor)},
        {"location", locationText(report.locationOf(tensor))},
        {"source_name", getLocationName(report.locationOf(tensor))},
        {"value", report.name(tensor.value)},
        {"shape", shapeText(tensor.value.getType())},
        {"dtype", elementText(tensor.value.getType())},
        {"bytes", static_cast<int64_t>(tensor.bytes)},
        {"consumers", std::move(consumers)},
        {"views", std::move(views)},
        {"decision", decideSavedTensor(tensor, opLevelPlan)},
    });
  }
  llvm::json::Object totals;
  for (ValueKind kind : kSavedKinds)
    totals[getValueKindName(kind, /*plural=*/true)] = llvm::json::Object{
        {"count", static_cast<int64_t>(report.saved.getCount(kind))},
        {"bytes", static_cast<int64_t>(report.saved.getBytes(kind))}};
  llvm::json::Object peak{
      {"bytes", static_cast<int64_t>(report.peak.bytes)},
      {"op", report.peak.op ? report.peak.op->getName().getStringRef().str()
                            : std::string()},
      {"location",
       report.peak.op ? locationText(report.peak.op->getLoc()) : "?"}};
  for (ValueKind kind : kAllKinds)
    peak[getValueKindName(kind, /*plural=*/true)] =
        static_cast<int64_t>(report.peak.getBytes(kind));
  peak["bytes_without_gradients"] =
      static_cast<int64_t>(report.peak.bytesWithoutGradients);
  peak["activation_bytes_at_backward"] =
      static_cast<int64_t>(report.peak.activationBytesAtBackward);
  llvm::json::Array segments;
  for (const RecomputeSegment &segment : report.recompute) {
    llvm::json::Array values;
    auto yield = cast<YieldOp>(segment.op.getBodyBlock().getTerminator());
    for (Value value : yield.getValues())
      values.push_back(llvm::json::Object{
          {"producer", value.getDefiningOp()->getName().getStringRef()},
          {"location", locationText(value.getDefiningOp()->getLoc())},
          {"value", report.name(value)},
          {"shape", shapeText(value.getType())},
          {"dtype", elementText(value.getType())},
          {"bytes", static_cast<int64_t>(
                        getValueBytes(value, segment.op).value_or(0))}});
    segments.push_back(llvm::json::Object{
        {"location", locationText(segment.op.getLoc())},
        {"inputs", static_cast<int64_t>(segment.op.getInputs().size())},
        {"input_bytes", static_cast<int64_t>(segment.inputBytes)},
        {"cloned_ops", static_cast<int64_t>(segment.clonedOps)},
        {"recomputed_bytes", static_cast<int64_t>(segment.recomputedBytes)},
        {"flops", static_cast<int64_t>(segment.flops)},
        {"recomputed", std::move(values)}});
  }
  llvm::json::Array stages;
  for (const StageRow &stage : report.stages)
    stages.push_back(llvm::json::Object{
        {"location", locationText(stage.loc)},
        {"ops", static_cast<int64_t>(stage.ops)},
        {"forward_flops", static_cast<int64_t>(stage.flops)},
        {"saved_bytes", static_cast<int64_t>(stage.savedBytes)},
        {"boundary_bytes", static_cast<int64_t>(stage.boundaryBytes)}});
  unsigned microbatches = report.microbatches();
  llvm::json::Object plan{
      {"strategy", report.strategy()},
      {"recompute_percent_of_forward", report.recomputePercent()},
      {"microbatches_in_flight", static_cast<int64_t>(microbatches)},
      {"peak_bytes_in_flight",
       static_cast<int64_t>(report.peak.getPeakWithMicrobatches(microbatches))},
      {"segments", std::move(segments)}};
  if (std::optional<int64_t> budget = report.budget())
    plan["budget_bytes"] = *budget;
  if (const std::optional<PlanEvaluation> &planned = report.planned)
    plan["planned"] = llvm::json::Object{
        {"peak_bytes", static_cast<int64_t>(planned->peak.bytes)},
        {"peak_bytes_without_gradients",
         static_cast<int64_t>(planned->peak.bytesWithoutGradients)},
        {"peak_bytes_in_flight",
         static_cast<int64_t>(
             planned->peak.getPeakWithMicrobatches(microbatches))},
        {"recompute_flops",
         static_cast<int64_t>(planned->cost.recompute.flops)},
        {"recompute_percent_of_forward",
         report.recomputePercent(planned->cost)}};
  return llvm::json::Object{
      {"function", report.step.getSymName()},
      {"stages", std::move(stages)},
      {"saved_tensors", std::move(tensors)},
      {"saved_totals", std::move(totals)},
      {"peak", std::move(peak)},
      {"compute",
       llvm::json::Object{{"forward", toJson(report.cost.forward)},
                          {"backward", toJson(report.cost.backward)},
                          {"recompute", toJson(report.cost.recompute)}}},
      {"plan", std::move(plan)}};
}

void emitRemarks(const StepReport &report) {
  for (const SavedTensor &tensor : report.saved.getSavedTensors())
    emitRemark(report.locationOf(tensor))
        << "saved " << getValueKindName(tensor.kind) << " "
        << report.name(tensor.value) << ": " << tensor.value.getType() << ", "
        << tensor.bytes << " bytes, read by " << tensor.consumers.size()
        << " backward op(s)";
  InFlightDiagnostic remark = emitRemark(report.step.getLoc());
  remark << "training step @" << report.step.getSymName() << ": saved";
  for (ValueKind kind : kSavedKinds)
    remark << " " << getValueKindName(kind, /*plural=*/true) << " "
           << report.saved.getBytes(kind) << " bytes in "
           << report.saved.getCount(kind) << " tensors;";
  remark << " simulated peak " << report.peak.bytes << " bytes (";
  llvm::interleaveComma(kAllKinds, remark, [&](ValueKind kind) {
    remark << getValueKindName(kind, /*plural=*/true) << " "
           << report.peak.getBytes(kind);
  });
  remark << "); forward " << report.cost.forward.flops << " FLOPs, backward "
         << report.cost.backward.flops << " FLOPs, recompute "
         << report.cost.recompute.flops << " FLOPs in "
         << report.recompute.size() << " segments";
}

/// The timelines of a step: the report's own simulation (the step as it
/// is, which keeps everything while the plan is still segments) and, in
/// that case, the plan materialised.
FailureOr<SmallVector<ChartSeries>> collectTimelines(const StepReport &report) {
  func::FuncOp step = report.step;
  std::string name = ("@" + step.getSymName()).str();
  if (!report.planned)
    return SmallVector<ChartSeries>{{name, report.peak.timeline}};
  auto strategy = step->getAttrOfType<StringAttr>(CkptDialect::kPlanAttrName);
  return SmallVector<ChartSeries>{
      {name + " keeping everything", report.peak.timeline},
      {name + " plan " + (strategy ? strategy.str() : std::string("manual")),
       report.planned->peak.timeline}};
}

struct CkptReportPass : public ckpt::impl::CkptReportPassBase<CkptReportPass> {
  using Base::Base;

  void runOnOperation() override {
    markAllAnalysesPreserved();
    ModuleOp module = getOperation();
    if (format != "text" && format != "json") {
      module.emitError() << "unknown report format '" << format
                         << "'; expected 'text' or 'json'";
      return signalPassFailure();
    }
    // Imported models name their ops' locations after the source's values
    // (ckpt-import-torch: the torch.fx node); the report uses those names.
    AsmState names(module, OpPrintingFlags().printNameLocAsPrefix());
    auto nameOf = [&names](Value value) {
      std::string text;
      llvm::raw_string_ostream os(text);
      value.printAsOperand(os, names);
      return text;
    };
    std::vector<StepReport> reports;
    for (auto step : module.getOps<func::FuncOp>()) {
      if (!step->hasAttr(CkptDialect::kTrainingStepAttrName))
        continue;
      FailureOr<SavedTensorAnalysis> saved = SavedTensorAnalysis::compute(step);
      if (failed(saved))
        return signalPassFailure();
      FailureOr<MemoryPeak> peak = simulateMemory(step);
      if (failed(peak))
        return signalPassFailure();
      FailureOr<StepCost> cost = computeStepCost(step);
      if (failed(cost))
        return signalPassFailure();
      FailureOr<SmallVector<RecomputeSegment>> recompute =
          collectRecomputeSegments(step);
      if (failed(recompute))
        return signalPassFailure();
      FailureOr<SmallVector<StageRow>> stages = collectStages(step);
      if (failed(stages))
        return signalPassFailure();
      std::optional<PlanEvaluation> planned;
      if (!step.getOps<CheckpointOp>().empty() || hasOpPlan(step)) {
        FailureOr<PlanEvaluation> evaluation = evaluatePlan(step);
        if (failed(evaluation))
          return signalPassFailure();
        planned = std::move(*evaluation);
      }
      reports.push_back({step, std::move(*saved), std::move(*peak), *cost,
                         std::move(*recompute), std::move(*stages),
                         std::move(planned), nameOf});
    }
    if (reports.empty()) {
      module.emitError("no training step to report on; run ckpt-autodiff "
                       "first");
      return signalPassFailure();
    }

    // Everything that can fail comes before the first file is kept, so a
    // failure leaves neither the report nor the timeline behind.
    SmallVector<ChartSeries> series;
    if (!timeline.empty())
      for (const StepReport &report : reports) {
        FailureOr<SmallVector<ChartSeries>> lines = collectTimelines(report);
        if (failed(lines))
          return signalPassFailure();
        llvm::append_range(series, *lines);
      }
    std::string message;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(output, &message);
    if (!file) {
      module.emitError() << "cannot write the report to '" << output
                         << "': " << message;
      return signalPassFailure();
    }
    std::unique_ptr<llvm::ToolOutputFile> chart;
    if (!timeline.empty()) {
      chart = openOutputFile(timeline, &message);
      if (!chart) {
        module.emitError() << "cannot write the memory timeline to '"
                           << timeline << "': " << message;
        return signalPassFailure();
      }
    }
    if (format == "json") {
      llvm::json::Array steps;
      for (const StepReport &report : reports)
        steps.push_back(toJson(report));
      file->os() << llvm::formatv("{0:2}", llvm::json::Value(std::move(steps)))
                 << "\n";
    } else {
      for (const StepReport &report : reports)
        printText(file->os(), report);
    }
    file->keep();
    if (chart) {
      writeByteChartSvg(chart->os(), "simulated live bytes per op",
                        "program point (ops in execution order)", series);
      chart->keep();
    }
    if (remarks)
      for (const StepReport &report : reports)
        emitRemarks(report);
  }
};

} // namespace
