//===- FusePointwise.cpp - pointwise chains -> ckpt.fused_pointwise -------===//
//
// A pointwise op whose only user is a pointwise op of its shape joins that
// user's chain when no point of the step can hold more live bytes for it;
// each chain becomes one ckpt.fused_pointwise where its last op stood.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "ckpt/Analysis/SavedTensors.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTFUSEPOINTWISEPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace ckpt

using namespace mlir;
using namespace ckpt;

namespace {

/// A chain being grown: its ops in block order (the last is its root, whose
/// result the chain yields) and the values it reads from outside.
struct Chain {
  SmallVector<Operation *> ops;
  llvm::SetVector<Value> inputs;
};

std::optional<uint64_t> staticBytes(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return getStaticTensorBytes(type);
}

/// Whether `value` stays allocated however the ops run: a step's argument
/// (its caller owns it) or a constant (no heap bytes).
bool neverFreed(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return isa<func::FuncOp>(arg.getOwner()->getParentOp());
  return isa_and_present<arith::ConstantOp>(value.getDefiningOp());
}

/// Whether running `producer` (a chain) inside `user` (whose own chain so
/// far is `users`) leaves every point of the step with at most the live
/// bytes it had. The producer's inputs then live until the user runs, and
/// its result is never stored.
bool keepsLiveBytes(const Chain &producer, Operation *user,
                    const Chain &users) {
  Operation *root = producer.ops.back();
  std::optional<uint64_t> result = staticBytes(root->getResult(0));
  std::optional<uint64_t> userResult = staticBytes(user->getResult(0));
  if (!result || !userResult)
    return false;
  // Inputs that might have been freed right after the producer.
  uint64_t extended = 0;
  for (Value input : producer.inputs) {
    if (neverFreed(input) || users.inputs.contains(input))
      continue;
    std::optional<uint64_t> bytes = staticBytes(input);
    if (!bytes)
      return false;
    extended += *bytes;
  }
  if (extended <= *result)
    return true;
  // Nothing runs between them: the fused op's live bytes are those while
  // the producer ran, with the user's result in place of the producer's.
  for (Operation *between = root->getNextNode(); between != user;
       between = between->getNextNode())
    if (!llvm::is_contained(users.ops, between))
      return false;
  return *userResult <= *result;
}

bool sameShape(Value a, Value b) {
  return cast<RankedTensorType>(a.getType()).getShape() ==
         cast<RankedTensorType>(b.getType()).getShape();
}

/// The chains of `block`'s pointwise ops, in the order of their roots.
SmallVector<Chain> findChains(Block &block) {
  // Chains by root; a chain that joins its user's is removed.
  llvm::MapVector<Operation *, Chain> chains;
  for (Operation &op : block) {
    if (!op.hasTrait<Pointwise>())
      continue;
    Chain chain;
    chain.ops.push_back(&op);
    chain.inputs.insert(op.operand_begin(), op.operand_end());
    for (Value operand : op.getOperands()) {
      Operation *producer = operand.getDefiningOp();
      auto found = producer ? chains.find(producer) : chains.end();
      if (found == chains.end() || !operand.hasOneUse() ||
          isBackwardOp(producer) != isBackwardOp(&op) ||
          !sameShape(operand, op.getResult(0)) ||
          !keepsLiveBytes(found->second, &op, chain))
        continue;
      Chain joined = std::move(found->second);
      chains.erase(found);
      chain.inputs.remove(operand);
      chain.inputs.insert(joined.inputs.begin(), joined.inputs.end());
      joined.ops.append(chain.ops.begin(), chain.ops.end());
      chain.ops = std::move(joined.ops);
    }
    llvm::sort(chain.ops, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    chains.insert({&op, std::move(chain)});
  }
  SmallVector<Chain> result;
  for (auto &entry : chains)
    if (entry.second.ops.size() > 1)
      result.push_back(std::move(entry.second));
  return result;
}

/// Replaces `chain` by one ckpt.fused_pointwise where its root stands. The
/// op takes the root's location and attributes (the backward mark, plan
/// marks), so reports name its result as they named the root's.
void fuse(const Chain &chain) {
  Operation *root = chain.ops.back();
  OpBuilder builder(root);
  // Read from the ops now: an input may be a chain's result fused before.
  llvm::SetVector<Value> inputs;
  for (Operation *op : chain.ops)
    for (Value operand : op->getOperands())
      if (!llvm::is_contained(chain.ops, operand.getDefiningOp()))
        inputs.insert(operand);
  auto fused = FusedPointwiseOp::create(builder, root->getLoc(),
                                        root->getResult(0).getType(),
                                        inputs.getArrayRef());
  fused->setDiscardableAttrs(root->getDiscardableAttrDictionary());
  Block *body = builder.createBlock(&fused.getBody());
  IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
  for (Operation *op : chain.ops)
    builder.clone(*op, mapping);
  YieldOp::create(builder, root->getLoc(), mapping.lookup(root->getResult(0)));
  root->getResult(0).replaceAllUsesWith(fused.getResult());
  for (Operation *op : llvm::reverse(chain.ops))
    op->erase();
}

struct CkptFusePointwisePass
    : public ckpt::impl::CkptFusePointwisePassBase<CkptFusePointwisePass> {
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation().walk([&](Operation *op) {
      if (isa<func::FuncOp, CheckpointOp, RecomputeOp>(op))
        for (Region &region : op->getRegions())
          for (Block &block : region)
            blocks.push_back(&block);
    });
    for (Block *block : blocks)
      for (const Chain &chain : findChains(*block))
        fuse(chain);
  }
};

} // namespace
