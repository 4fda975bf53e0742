//===- CarryAccumulators.cpp - reductions accumulate in registers ---------===//
//
// An inner scf.for that loads, updates and stores back one element at
// fixed indices carries the element through iter_args instead: one load
// before the loop, one store after. LLVM keeps such an element in memory,
// a store-to-load round trip per iteration, unless it can prove the loop's
// other buffers distinct; here the buffers' allocations prove it.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTCARRYACCUMULATORSPASS
#include "ckpt/Conversion/Passes.h.inc"
} // namespace ckpt

using namespace mlir;

namespace {

/// The buffer a memref views: followed through view-like ops to an
/// allocation or a block argument.
Value getBuffer(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

bool isAllocation(Value buffer) {
  return isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(
      buffer.getDefiningOp());
}

/// Whether a memref is certainly not a view of the allocation `buffer`:
/// its own buffer is another allocation, or an argument of the function,
/// which an allocation made inside it cannot be.
bool isDistinctFrom(Value memref, Value buffer) {
  Value other = getBuffer(memref);
  if (other == buffer)
    return false;
  if (isAllocation(other))
    return true;
  auto argument = dyn_cast<BlockArgument>(other);
  return argument && argument.getOwner()->isEntryBlock() &&
         isa<FunctionOpInterface>(argument.getOwner()->getParentOp());
}

/// Whether every operation in `loop` other than `load` and `store` declares
/// its memory effects and none of them touches `buffer`.
bool isOnlyAccess(scf::ForOp loop, Value buffer, Operation *load,
                  Operation *store) {
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (op == load || op == store ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto effecting = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effecting)
      return WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> effects;
    effecting.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      Value value = effect.getValue();
      if (!value || !isDistinctFrom(value, buffer))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// The load of `store`'s element that comes before it in the same block,
/// if `loop` may carry the element instead.
memref::LoadOp findCarriedLoad(scf::ForOp loop, memref::StoreOp store) {
  Value buffer = getBuffer(store.getMemRef());
  if (!isAllocation(buffer) ||
      !llvm::all_of(store.getIndices(), [&](Value index) {
        return loop.isDefinedOutsideOfLoop(index);
      }))
    return nullptr;
  for (Operation *op = store->getPrevNode(); op; op = op->getPrevNode()) {
    auto load = dyn_cast<memref::LoadOp>(op);
    if (load && load.getMemRef() == store.getMemRef() &&
        load.getIndices() == store.getIndices())
      return isOnlyAccess(loop, buffer, load, store) ? load : nullptr;
  }
  return nullptr;
}

/// Carries one element `loop` updates in place, if any; returns the new
/// loop, or null.
scf::ForOp carryOneAccumulator(IRRewriter &rewriter, scf::ForOp loop) {
  for (auto store : loop.getBody()->getOps<memref::StoreOp>()) {
    memref::LoadOp load = findCarriedLoad(loop, store);
    if (!load)
      continue;
    rewriter.setInsertionPoint(loop);
    Value initial = memref::LoadOp::create(rewriter, load.getLoc(),
                                           load.getMemRef(), load.getIndices());
    FailureOr<LoopLikeOpInterface> carried = loop.replaceWithAdditionalYields(
        rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{store.getValueToStore()};
        });
    if (failed(carried))
      return nullptr;
    auto newLoop = cast<scf::ForOp>(carried->getOperation());
    rewriter.replaceOp(load, newLoop.getRegionIterArgs().back());
    rewriter.setInsertionPointAfter(newLoop);
    memref::StoreOp::create(rewriter, store.getLoc(),
                            newLoop.getResults().back(), store.getMemRef(),
                            store.getIndices());
    rewriter.eraseOp(store);
    return newLoop;
  }
  return nullptr;
}

struct CkptCarryAccumulatorsPass
    : public ckpt::impl::CkptCarryAccumulatorsPassBase<
          CkptCarryAccumulatorsPass> {
  void runOnOperation() override {
    // Inner loops first: what one carries out lands in its parent's body.
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (isa<LoopLikeOpInterface>(loop->getParentOp()))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops)
      while (scf::ForOp carried = carryOneAccumulator(rewriter, loop))
        loop = carried;
  }
};

} // namespace
