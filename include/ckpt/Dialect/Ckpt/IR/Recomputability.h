//===- Recomputability.h - may an op run again during backward? -----------===//
//
// An op may be cloned into a recompute region only if running it again
// changes nothing but its own results and gives the same bits: it has no
// memory effect other than allocating its results, it is deterministic, and
// its randomness (if any) comes from explicit random-state operands.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_RECOMPUTABILITY_H
#define CKPT_DIALECT_CKPT_IR_RECOMPUTABILITY_H

#include "mlir/IR/Operation.h"

#include <string>

namespace ckpt {

/// Why `op` (with everything nested in it) must not be recomputed, as a
/// phrase that completes "cannot be recomputed: it ..."; empty when it may.
std::string whyNotRecomputable(mlir::Operation *op);

} // namespace ckpt

#endif // CKPT_DIALECT_CKPT_IR_RECOMPUTABILITY_H
