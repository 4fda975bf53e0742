//===- CkptInterfaces.h - gradient rule and cost interfaces ---------------===//
//
// Declares the op interfaces through which autodiff and the planner learn an
// op's gradient rule, its saved tensors and its cost, and the trait of ops
// that stop gradients or lower 16-bit floats.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_CKPTINTERFACES_H
#define CKPT_DIALECT_CKPT_IR_CKPTINTERFACES_H

#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

#include "ckpt/Dialect/Ckpt/IR/CkptInterfaces.h.inc"

namespace ckpt {

/// The trait of ops whose results carry no gradient (CkptInterfaces.td).
template <typename ConcreteType>
class StopsGradient
    : public mlir::OpTrait::TraitBase<ConcreteType, StopsGradient> {};

/// The trait of ops that lower f16 and bf16 (CkptInterfaces.td).
template <typename ConcreteType>
class LowersHalfFloats
    : public mlir::OpTrait::TraitBase<ConcreteType, LowersHalfFloats> {};

/// The trait of pointwise ops (CkptInterfaces.td).
template <typename ConcreteType>
class Pointwise : public mlir::OpTrait::TraitBase<ConcreteType, Pointwise> {};

} // namespace ckpt

#endif // CKPT_DIALECT_CKPT_IR_CKPTINTERFACES_H
