//===- Passes.h - ckpt passes ---------------------------------------------===//
//
// Declarations and registration of the ckpt passes.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_PASSES_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_PASSES_H

#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace ckpt {

#define GEN_PASS_DECL
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"

} // namespace ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_PASSES_H
