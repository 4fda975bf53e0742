//===- OpPlan.cpp - the plan representation at tensor granularity --------===//
//
// Reads and writes an op-level plan as attributes on a training step, and
// converts checkpoint segments into the plan they mean.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Planner/OpPlan.h"

#include "ckpt/Analysis/SavedTensors.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/Recomputability.h"
#include "ckpt/Planner/Segments.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace ckpt;

RecomputeSlice ckpt::getRecomputeSlice(Block &entry, ArrayRef<Value> values,
                                       function_ref<bool(Value)> isRecomputed) {
  llvm::SmallPtrSet<Operation *, 32> needed;
  SmallVector<Operation *> worklist;
  auto need = [&](Value value) {
    if (Operation *producer = value.getDefiningOp())
      if (Operation *top = entry.findAncestorOpInBlock(*producer))
        if (needed.insert(top).second)
          worklist.push_back(top);
  };
  // Values defined inside `op` (in its regions) belong to its copy.
  auto isInside = [](Operation *op, Value value) {
    Operation *owner = value.getParentBlock()->getParentOp();
    return op->isAncestor(owner);
  };
  for (Value value : values)
    need(value);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (!isInside(op, operand) && isRecomputed(operand))
          need(operand);
    });
  }
  RecomputeSlice slice;
  for (Operation &op : entry)
    if (needed.contains(&op))
      slice.ops.push_back(&op);
  for (Operation *op : slice.ops)
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        if (isInside(op, operand))
          continue;
        Operation *producer = operand.getDefiningOp();
        Operation *top = producer ? entry.findAncestorOpInBlock(*producer)
                                  : nullptr;
        if (!top || !needed.contains(top))
          slice.inputs.insert(operand);
      }
    });
  return slice;
}

FailureOr<OpPlan> ckpt::readOpPlan(func::FuncOp step) {
  if (!step.getOps<CheckpointOp>().empty() && hasOpPlan(step))
    return step.emitOpError()
           << "has both checkpoint segments and an op-level plan ('"
           << CkptDialect::kRecomputeAtAttrName << "'); write one of them";
  Block &entry = step.getBody().front();
  OpPlan plan;
  bool valid = true;
  DenseMap<int64_t, unsigned> siteIndex;
  for (Operation &op : entry) {
    auto ids = op.getAttrOfType<DenseI64ArrayAttr>(CkptDialect::kSitesAttrName);
    if (!ids)
      continue;
    for (int64_t id : ids.asArrayRef()) {
      auto [it, inserted] = siteIndex.try_emplace(id, plan.sites.size());
      if (!inserted) {
        op.emitOpError() << "places recompute site " << id
                         << ", which an earlier backward op places already";
        valid = false;
        continue;
      }
      plan.sites.push_back({&op, op.getLoc()});
    }
  }
  SmallVector<bool> located(plan.sites.size(), false);
  for (Operation &op : entry) {
    auto marks =
        op.getAttrOfType<ArrayAttr>(CkptDialect::kRecomputeAtAttrName);
    if (!marks)
      continue;
    std::string reason = whyNotRecomputable(&op);
    if (!reason.empty()) {
      op.emitOpError() << "cannot be recomputed: it " << reason
                       << "; keep its results (unit in '"
                       << CkptDialect::kRecomputeAtAttrName << "')";
      valid = false;
      continue;
    }
    for (auto [result, mark] : llvm::zip_equal(op.getResults(), marks)) {
      auto ids = dyn_cast<DenseI64ArrayAttr>(mark);
      if (!ids)
        continue;
      SmallVector<unsigned, 1> &sites = plan.dropped[result];
      for (int64_t id : ids.asArrayRef()) {
        auto it = siteIndex.find(id);
        if (it == siteIndex.end()) {
          op.emitOpError() << "recomputes result #"
                           << result.getResultNumber() << " at site " << id
                           << ", which no backward op places";
          valid = false;
          continue;
        }
        if (!op.isBeforeInBlock(plan.sites[it->second].before)) {
          op.emitOpError() << "recomputes result #"
                           << result.getResultNumber() << " at site " << id
                           << ", which runs before the op";
          valid = false;
          continue;
        }
        sites.push_back(it->second);
        // A region is named after the first value it brings back.
        if (!located[it->second]) {
          plan.sites[it->second].loc = op.getLoc();
          located[it->second] = true;
        }
      }
      llvm::sort(sites);
      sites.erase(llvm::unique(sites), sites.end());
    }
  }
  if (!valid)
    return failure();
  return plan;
}

void ckpt::eraseOpPlan(func::FuncOp step) {
  step.walk([](Operation *op) {
    op->removeAttr(CkptDialect::kRecomputeAtAttrName);
    op->removeAttr(CkptDialect::kSitesAttrName);
  });
}

bool ckpt::hasOpPlan(func::FuncOp step) {
  return step
      .walk([](Operation *op) {
        return op->hasAttr(CkptDialect::kRecomputeAtAttrName) ||
                       op->hasAttr(CkptDialect::kSitesAttrName)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

void ckpt::writeOpPlan(func::FuncOp step, const OpPlan &plan) {
  assert(llvm::none_of(plan.sites,
                       [](const RecomputeSite &site) { return site.scope; }) &&
         "marks have no scope; segments stay segments");
  eraseOpPlan(step);
  Builder builder(step.getContext());
  llvm::MapVector<Operation *, SmallVector<int64_t>> sitesAt;
  for (auto [index, site] : llvm::enumerate(plan.sites))
    sitesAt[site.before].push_back(index);
  for (auto &[op, ids] : sitesAt)
    op->setAttr(CkptDialect::kSitesAttrName, builder.getDenseI64ArrayAttr(ids));
  llvm::SetVector<Operation *> recomputedOps;
  for (Value value : llvm::make_first_range(plan.dropped))
    recomputedOps.insert(value.getDefiningOp());
  for (Operation *op : recomputedOps) {
    SmallVector<Attribute> marks;
    for (Value result : op->getResults()) {
      auto it = plan.dropped.find(result);
      if (it == plan.dropped.end()) {
        marks.push_back(builder.getUnitAttr());
        continue;
      }
      marks.push_back(builder.getDenseI64ArrayAttr(llvm::map_to_vector(
          it->second, [](unsigned site) { return int64_t(site); })));
    }
    op->setAttr(CkptDialect::kRecomputeAtAttrName, builder.getArrayAttr(marks));
  }
}

namespace {

/// A segment after flattening: where it was and every op it contained,
/// nested segments' ops included.
struct FlatSegment {
  Location loc;
  llvm::SmallPtrSet<Operation *, 16> ops;
  /// The ops that flattening puts in the step's block, in program order.
  SmallVector<Operation *> topLevel;
  /// The ops among `ops` marked `ckpt.keep`: their results are kept, and
  /// recomputation starts from them.
  llvm::SmallPtrSet<Operation *, 4> kept;
};

/// Records the segments of `step` innermost first, then removes them.
SmallVector<FlatSegment, 4> flattenSegments(func::FuncOp step) {
  SmallVector<FlatSegment, 4> segments;
  step.walk([&](CheckpointOp segment) {
    FlatSegment &flat =
        segments.emplace_back(FlatSegment{segment.getLoc(), {}, {}, {}});
    segment.getBody().walk([&](Operation *op) {
      if (isa<CheckpointOp, YieldOp>(op))
        return;
      flat.ops.insert(op);
      if (isa<CheckpointOp>(op->getParentOp()))
        flat.topLevel.push_back(op);
      if (op->hasAttr(CkptDialect::kKeepAttrName))
        flat.kept.insert(op);
    });
  });
  // The marks belong to the plan, which the conversion replaces.
  for (const FlatSegment &segment : segments)
    for (Operation *op : segment.kept)
      op->removeAttr(CkptDialect::kKeepAttrName);
  inlineAllSegments(step);
  return segments;
}

} // namespace

FailureOr<OpPlan> ckpt::convertSegmentsToOpPlan(func::FuncOp step) {
  bool recomputable = true;
  step.walk([&](CheckpointOp segment) {
    if (!segment->getParentOfType<CheckpointOp>())
      recomputable &= succeeded(verifyRecomputable(segment));
  });
  if (!recomputable)
    return failure();
  Block &entry = step.getBody().front();
  SmallVector<FlatSegment, 4> segments = flattenSegments(step);
  DenseMap<Operation *, unsigned> position;
  for (auto [index, op] : llvm::enumerate(entry))
    position[&op] = index;

  // Sites by id, in the order they run before each backward op; the values
  // each site's region reads from outside its segment; the values a site
  // already brings back for backward.
  SmallVector<Location> siteLocs;
  SmallVector<llvm::DenseSet<Operation *>> scopes;
  DenseMap<Operation *, SmallVector<unsigned, 1>> sitesAt;
  SmallVector<Operation *> siteOp;
  DenseMap<Value, SmallVector<unsigned, 1>> regionReaders;
  DenseMap<Value, SmallVector<unsigned, 1>> dropped;
  llvm::DenseSet<Value> served;
  // Where a reader runs: before its op, and among the sites there.
  using Point = std::pair<unsigned, unsigned>;
  auto sitePoint = [&](unsigned site) {
    ArrayRef<unsigned> order = sitesAt[siteOp[site]];
    return Point{position[siteOp[site]],
                 unsigned(llvm::find(order, site) - order.begin())};
  };

  for (const FlatSegment &segment : segments) {
    auto isOutsideForwardUse = [&](OpOperand &use) {
      Operation *user = entry.findAncestorOpInBlock(*use.getOwner());
      return !isBackwardOp(user) && !segment.ops.contains(user);
    };
    SmallVector<Value> recomputed;
    std::optional<Point> first;
    Operation *firstOp = nullptr;
    for (Operation *op : segment.topLevel) {
      if (segment.kept.contains(op))
        continue;
      for (Value result : op->getResults()) {
        if (served.contains(result) ||
            llvm::any_of(result.getUses(), isOutsideForwardUse))
          continue;
        std::optional<Point> earliest;
        Operation *earliestOp = nullptr;
        auto reads = [&](Point point, Operation *at) {
          if (!earliest || point < *earliest) {
            earliest = point;
            earliestOp = at;
          }
        };
        for (Operation *user : result.getUsers())
          if (user->getBlock() == &entry && isBackwardOp(user))
            reads({position[user], ~0u}, user);
        for (unsigned site : regionReaders.lookup(result))
          reads(sitePoint(site), siteOp[site]);
        if (!earliest)
          continue;
        recomputed.push_back(result);
        if (!first || *earliest < *first) {
          first = earliest;
          firstOp = earliestOp;
        }
      }
    }
    if (recomputed.empty())
      continue;

    unsigned site = siteLocs.size();
    siteLocs.push_back(segment.loc);
    llvm::DenseSet<Operation *> &scope = scopes.emplace_back();
    for (Operation *op : segment.topLevel)
      if (!segment.kept.contains(op))
        scope.insert(op);
    siteOp.push_back(firstOp);
    SmallVector<unsigned, 1> &order = sitesAt[firstOp];
    order.insert(order.begin() + std::min<size_t>(first->second, order.size()),
                 site);
    for (Value value : recomputed) {
      dropped[value].push_back(site);
      served.insert(value);
    }
    RecomputeSlice slice =
        getRecomputeSlice(entry, recomputed, [&](Value value) {
          Operation *producer = value.getDefiningOp();
          return producer && scope.contains(producer);
        });
    for (Value input : slice.inputs)
      regionReaders[input].push_back(site);
  }

  // Sites renumbered in program order.
  OpPlan plan;
  SmallVector<unsigned> renumbered(siteLocs.size());
  for (Operation &op : entry)
    for (unsigned site : sitesAt.lookup(&op)) {
      renumbered[site] = plan.sites.size();
      plan.sites.push_back({&op, siteLocs[site], std::move(scopes[site])});
    }
  for (Operation &op : entry)
    for (Value result : op.getResults()) {
      auto it = dropped.find(result);
      if (it == dropped.end())
        continue;
      SmallVector<unsigned, 1> &planned = plan.dropped[result];
      for (unsigned site : it->second)
        planned.push_back(renumbered[site]);
      llvm::sort(planned);
    }
  return plan;
}
