//===- CkptDialect.h - the ckpt dialect -----------------------------------===//
//
// Declares the ckpt dialect, its enums and the side-effect resources that
// keep effectful ops from being merged, deleted or recomputed.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_CKPTDIALECT_H
#define CKPT_DIALECT_CKPT_IR_CKPTDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "ckpt/Dialect/Ckpt/IR/CkptOpsTypes.h.inc"

#include "ckpt/Dialect/Ckpt/IR/CkptEnums.h.inc"

namespace ckpt {

/// The state of the implicit random generator that random ops draw from
/// until their randomness is made explicit.
struct RandomResource : mlir::SideEffects::Resource::Base<RandomResource> {
  llvm::StringRef getName() final { return "ckpt::Random"; }
};

/// Program I/O (stdout, files): effects on it must happen exactly once.
struct IOResource : mlir::SideEffects::Resource::Base<IOResource> {
  llvm::StringRef getName() final { return "ckpt::IO"; }
};

/// The communicator of a process group: every rank must issue the same
/// collectives in the same order.
struct CommunicationResource
    : mlir::SideEffects::Resource::Base<CommunicationResource> {
  llvm::StringRef getName() final { return "ckpt::Communication"; }
};

} // namespace ckpt

#endif // CKPT_DIALECT_CKPT_IR_CKPTDIALECT_H
