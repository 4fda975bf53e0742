//===- ThreadRng.cpp - implicit randomness -> explicit Philox offsets -----===//
//
// Gives each function with implicit random ops a !ckpt.rng argument, passes
// it into the segments that need it, and assigns every implicit random op
// the next free range of counters, after the explicit ranges (which must
// not overlap). Records the total as `ckpt.rng_counters`.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTTHREADRNGPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace ckpt

using namespace mlir;
using namespace ckpt;

namespace {

/// Finds or creates the random state visible in a block: the function's
/// !ckpt.rng argument, or a segment block argument bound to the state of
/// the enclosing block.
class RngThreader {
public:
  explicit RngThreader(func::FuncOp func) : func(func) {}

  Value stateFor(Block *block) {
    if (block == &func.getBody().front())
      return functionState();
    auto segment = cast<CheckpointOp>(block->getParentOp());
    Value outer = stateFor(segment->getBlock());
    for (auto [input, arg] :
         llvm::zip_equal(segment.getInputs(), block->getArguments()))
      if (input == outer)
        return arg;
    segment->insertOperands(segment->getNumOperands(), outer);
    return block->addArgument(outer.getType(), segment.getLoc());
  }

private:
  Value functionState() {
    for (BlockArgument arg : func.getArguments())
      if (isa<RngType>(arg.getType()))
        return arg;
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(index, RngType::get(func.getContext()),
                                   DictionaryAttr(), func.getLoc())))
      llvm_unreachable("appending an argument to a function cannot fail");
    return func.getArgument(index);
  }

  func::FuncOp func;
};

struct CkptThreadRngPass
    : public ckpt::impl::CkptThreadRngPassBase<CkptThreadRngPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(thread(func)))
        return signalPassFailure();
  }

  LogicalResult thread(func::FuncOp func) {
    // Implicit ops are those that touch the hidden generator (attention
    // without dropout draws nothing).
    SmallVector<RandomOpInterface> implicit, explicitOps;
    func.walk([&](RandomOpInterface op) {
      if (op.getRandomState())
        explicitOps.push_back(op);
      else if (!isMemoryEffectFree(op))
        implicit.push_back(op);
    });
    if (implicit.empty() && explicitOps.empty())
      return success();

    // Explicit ranges must be disjoint; new ranges start after all of them.
    llvm::sort(explicitOps, [](RandomOpInterface a, RandomOpInterface b) {
      return *a.getCounterOffset() < *b.getCounterOffset();
    });
    uint64_t next = 0;
    RandomOpInterface previous;
    for (RandomOpInterface op : explicitOps) {
      uint64_t begin = *op.getCounterOffset();
      if (previous && begin < next) {
        InFlightDiagnostic diag = op->emitOpError()
                                  << "draws counters [" << begin << ", "
                                  << begin + op.getNumCounters()
                                  << ") that overlap another random op's";
        diag.attachNote(previous.getLoc())
            << "the other op draws counters [" << *previous.getCounterOffset()
            << ", " << next << ")";
        return diag;
      }
      next = std::max(next, begin + op.getNumCounters());
      previous = op;
    }

    RngThreader threader(func);
    for (RandomOpInterface op : implicit) {
      op.setRandomState(threader.stateFor(op->getBlock()), next);
      next += op.getNumCounters();
    }
    Builder builder(func.getContext());
    func->setAttr(CkptDialect::kRngCountersAttrName,
                  builder.getI64IntegerAttr(next));
    return success();
  }
};

} // namespace
