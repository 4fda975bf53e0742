//===- CkptInterfaces.h - gradient rule and cost interfaces ---------------===//
//
// Declares the op interfaces through which autodiff and the planner learn an
// op's gradient rule, its saved tensors and its cost.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_CKPTINTERFACES_H
#define CKPT_DIALECT_CKPT_IR_CKPTINTERFACES_H

#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

#include "ckpt/Dialect/Ckpt/IR/CkptInterfaces.h.inc"

#endif // CKPT_DIALECT_CKPT_IR_CKPTINTERFACES_H
