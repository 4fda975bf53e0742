//===- Recompute.cpp - materialise a plan's recompute regions -------------===//
//
// Writes an op-level plan (or the one a step's checkpoint segments mean) as
// ckpt.recompute regions: one per site, in program order, cloning what its
// values depend on; then points each backward read of a dropped value at
// the latest copy before it.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Planner/Recompute.h"

#include "ckpt/Analysis/SavedTensors.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Planner/OpPlan.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace ckpt;

void ckpt::materializeOpPlan(func::FuncOp step, const OpPlan &plan) {
  Block &entry = step.getBody().front();
  DenseMap<Operation *, unsigned> position;
  for (auto [index, op] : llvm::enumerate(entry))
    position[&op] = index;

  // Each site's values in program order, and the copies made so far.
  SmallVector<SmallVector<Value>> atSite(plan.sites.size());
  for (auto &[value, sites] : plan.dropped)
    for (unsigned site : sites)
      atSite[site].push_back(value);
  auto programOrder = [&](Value a, Value b) {
    Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
    return x == y ? cast<OpResult>(a).getResultNumber() <
                        cast<OpResult>(b).getResultNumber()
                  : position[x] < position[y];
  };
  DenseMap<Value, SmallVector<std::pair<unsigned, Value>, 1>> copies;
  auto latestCopy = [&](Value value, auto before) -> Value {
    auto it = copies.find(value);
    if (it == copies.end())
      return nullptr;
    for (auto [site, copy] : llvm::reverse(it->second))
      if (before(site))
        return copy;
    return nullptr;
  };

  // Plain loop variables: the lambdas below capture them.
  for (unsigned index = 0, end = plan.sites.size(); index < end; ++index) {
    const RecomputeSite &site = plan.sites[index];
    SmallVector<Value> &values = atSite[index];
    if (values.empty())
      continue;
    llvm::sort(values, programOrder);
    llvm::SmallDenseSet<Value, 8> listed(values.begin(), values.end());
    auto isEarlier = [&](unsigned other) { return other < index; };
    RecomputeSlice slice = getRecomputeSlice(entry, values, [&](Value value) {
      if (listed.contains(value))
        return true;
      if (site.scope) {
        Operation *producer = value.getDefiningOp();
        return producer && site.scope->contains(producer);
      }
      return plan.dropped.contains(value) && !latestCopy(value, isEarlier);
    });
    SmallVector<Value> sources =
        llvm::map_to_vector(slice.inputs, [&](Value v) {
          Value copy = latestCopy(v, isEarlier);
          return copy ? copy : v;
        });

    OpBuilder builder(site.before);
    auto region = RecomputeOp::create(
        builder, site.loc,
        llvm::map_to_vector(values, [](Value v) { return v.getType(); }),
        sources);
    region->setAttr(CkptDialect::kBackwardAttrName, builder.getUnitAttr());
    Block *body = builder.createBlock(&region.getBody());
    IRMapping mapping;
    for (Value input : slice.inputs)
      mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
    for (Operation *op : slice.ops)
      builder.clone(*op, mapping);
    YieldOp::create(builder, site.loc,
                    llvm::map_to_vector(
                        values, [&](Value v) { return mapping.lookup(v); }));
    for (auto [value, result] : llvm::zip_equal(values, region.getResults()))
      copies[value].push_back({index, result});
  }

  // Backward ops read the latest copy made before them; the regions made
  // above already read theirs.
  for (auto &[value, sites] : plan.dropped)
    for (OpOperand &use : llvm::make_early_inc_range(value.getUses())) {
      Operation *user = use.getOwner();
      auto it = position.find(user);
      if (it == position.end() || !isBackwardOp(user))
        continue;
      if (Value copy = latestCopy(value, [&](unsigned site) {
            return position[plan.sites[site].before] <= it->second;
          }))
        use.set(copy);
    }
}

LogicalResult ckpt::materializePlan(func::FuncOp step) {
  FailureOr<OpPlan> plan =
      hasOpPlan(step) || step.getOps<CheckpointOp>().empty()
          ? readOpPlan(step)
          : convertSegmentsToOpPlan(step);
  if (failed(plan))
    return failure();
  eraseOpPlan(step);
  materializeOpPlan(step, *plan);
  return success();
}

// The simulated memory (the peak and the timeline; callers do not read the
// live set) and the FLOPs.
FailureOr<PlanEvaluation> ckpt::evaluateMaterializedPlan(func::FuncOp copy) {
  FailureOr<MemoryPeak> peak = simulateMemory(copy, /*liveAtPeak=*/false);
  if (failed(peak))
    return failure();
  FailureOr<StepCost> cost = computeStepCost(copy);
  if (failed(cost))
    return failure();
  return PlanEvaluation{std::move(*peak), *cost};
}

FailureOr<PlanEvaluation> ckpt::evaluatePlan(func::FuncOp step) {
  OwningOpRef<func::FuncOp> copy = step.clone();
  if (failed(materializePlan(*copy)))
    return failure();
  return evaluateMaterializedPlan(*copy);
}

FailureOr<PlanEvaluation> ckpt::evaluateOpPlan(func::FuncOp step,
                                               const OpPlan &plan) {
  IRMapping mapping;
  OwningOpRef<func::FuncOp> copy = cast<func::FuncOp>(step->clone(mapping));
  OpPlan mapped;
  for (const RecomputeSite &site : plan.sites) {
    RecomputeSite &copied = mapped.sites.emplace_back(
        RecomputeSite{mapping.lookup(site.before), site.loc});
    if (site.scope) {
      copied.scope.emplace();
      for (Operation *op : *site.scope)
        copied.scope->insert(mapping.lookup(op));
    }
  }
  for (auto &[value, sites] : plan.dropped)
    mapped.dropped[mapping.lookup(value)] = sites;
  materializeOpPlan(*copy, mapped);
  return evaluateMaterializedPlan(*copy);
}
