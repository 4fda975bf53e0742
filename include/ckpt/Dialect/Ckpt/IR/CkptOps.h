//===- CkptOps.h - ops of the ckpt dialect --------------------------------===//
//
// Declares the ckpt ops generated from CkptOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_CKPTOPS_H
#define CKPT_DIALECT_CKPT_IR_CKPTOPS_H

#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"
#include "ckpt/Dialect/Ckpt/IR/CkptInterfaces.h"
#include "ckpt/Dialect/Ckpt/IR/ConvAlgorithm.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h.inc"

namespace mlir {
class RewriterBase;
} // namespace mlir

namespace ckpt {

/// Replaces a `ckpt.checkpoint` or `ckpt.recompute` by its body: the ops
/// move before it, block arguments become the inputs and the results the
/// yielded values.
void inlineSegment(mlir::RewriterBase &rewriter, mlir::Operation *segment);

} // namespace ckpt

#endif // CKPT_DIALECT_CKPT_IR_CKPTOPS_H
