//===- Recomputability.cpp - may an op run again during backward? ---------===//
//
// Asks MemoryEffectOpInterface (recursively, for ops with regions) for every
// effect and DeterminismOpInterface for nondeterminism; each of the
// dialect's resources names why it makes an op unrepeatable.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/Recomputability.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace ckpt;

/// What an effect on `resource` means, as a phrase after "it".
static std::string describeEffect(const MemoryEffects::EffectInstance &effect) {
  SideEffects::Resource *resource = effect.getResource();
  if (resource == RandomResource::get())
    return "draws from the implicit random generator (run --ckpt-thread-rng "
           "to give it explicit random state)";
  if (resource == IOResource::get())
    return "performs I/O, which must happen exactly once";
  if (resource == CommunicationResource::get())
    return "is a collective: every rank must issue it the same number of "
           "times";
  MemoryEffects::Effect *kind = effect.getEffect();
  StringRef verb = isa<MemoryEffects::Read>(kind)       ? "reads"
                   : isa<MemoryEffects::Write>(kind)    ? "writes"
                   : isa<MemoryEffects::Allocate>(kind) ? "allocates"
                                                        : "frees";
  return (verb + " memory (" + resource->getName() + ") that it does not " +
          "own")
      .str();
}

std::string ckpt::whyNotRecomputable(Operation *op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  if (!effects)
    return "has unknown side effects";
  for (const MemoryEffects::EffectInstance &effect : *effects) {
    // Allocating a result is what every tensor op does; it is repeatable.
    Value value = effect.getValue();
    bool ownResult =
        value && value.getDefiningOp() && op->isAncestor(value.getDefiningOp());
    if (isa<MemoryEffects::Allocate>(effect.getEffect()) && ownResult)
      continue;
    return describeEffect(effect);
  }
  WalkResult nondeterministic = op->walk([](DeterminismOpInterface inner) {
    return inner.isDeterministic() ? WalkResult::advance()
                                   : WalkResult::interrupt();
  });
  if (nondeterministic.wasInterrupted())
    return "is not deterministic: a second run may round differently";
  return "";
}
