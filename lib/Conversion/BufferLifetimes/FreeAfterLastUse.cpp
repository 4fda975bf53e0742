//===- FreeAfterLastUse.cpp - free buffers as soon as they are dead -------===//
//
// Moves every memref.dealloc of a block to just after the last op of that
// block that uses the freed buffer or a view of it, so buffers die where the
// memory simulator says they do instead of at the end of the step (and never
// before a use).
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/Passes.h"

#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTFREEAFTERLASTUSEPASS
#include "ckpt/Conversion/Passes.h.inc"
} // namespace ckpt

using namespace mlir;

/// The last op of `block` that uses `buffer` or a view of it (uses inside
/// nested regions count as uses by their ancestor in `block`).
static Operation *lastUser(Value buffer, Block &block, Operation *dealloc) {
  llvm::SetVector<Value> aliases;
  aliases.insert(buffer);
  Operation *last = buffer.getDefiningOp();
  for (size_t i = 0; i < aliases.size(); ++i) {
    for (Operation *user : aliases[i].getUsers()) {
      if (user == dealloc)
        continue;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == aliases[i])
          aliases.insert(user->getResults().begin(), user->getResults().end());
      Operation *ancestor = block.findAncestorOpInBlock(*user);
      if (ancestor && (!last || last->getBlock() != &block ||
                       last->isBeforeInBlock(ancestor)))
        last = ancestor;
    }
  }
  return last && last->getBlock() == &block ? last : nullptr;
}

namespace {

struct CkptFreeAfterLastUsePass
    : public ckpt::impl::CkptFreeAfterLastUsePassBase<CkptFreeAfterLastUsePass> {
  void runOnOperation() override {
    getOperation().walk([](Block *block) {
      SmallVector<memref::DeallocOp> deallocs;
      for (auto dealloc : block->getOps<memref::DeallocOp>())
        deallocs.push_back(dealloc);
      // Usually the last use comes before the free; after
      // ckpt-gpu-map-loops moves a load into a later kernel, it may follow
      // it, and the free moves down.
      for (memref::DeallocOp dealloc : deallocs)
        if (Operation *last = lastUser(dealloc.getMemref(), *block, dealloc))
          dealloc->moveAfter(last);
    });
  }
};

} // namespace
