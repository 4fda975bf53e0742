//===- Passes.h - ckpt conversion passes ----------------------------------===//
//
// Declarations and registration of the passes that lower out of ckpt.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_CONVERSION_PASSES_H
#define CKPT_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace ckpt {

#define GEN_PASS_DECL
#include "ckpt/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ckpt/Conversion/Passes.h.inc"

} // namespace ckpt

#endif // CKPT_CONVERSION_PASSES_H
