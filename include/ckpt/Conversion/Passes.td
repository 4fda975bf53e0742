//===- Passes.td - ckpt conversion passes ---------------------------------===//
//
// Lowering out of the ckpt dialect.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_CONVERSION_PASSES_TD
#define CKPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def CkptToLinalgPass : Pass<"ckpt-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lowers ckpt ops on tensors to linalg, tensor, arith and math";
  let description = [{
    Every computing ckpt op (forward and backward) becomes linalg.generic
    and tensor ops on tensors: pointwise ops one broadcasting generic,
    reductions and normalisations a few, linear and matmul one contraction,
    shape ops tensor reshapes, slices and copies. Checkpoint segments are
    inlined where they stand: once lowered, a segment is just its ops.

    Shapes must be static. Ops this lowering does not handle yet
    (`dropout` with p > 0, `embedding`, `embedding_grad`, `dropout_grad`,
    `print`, `all_reduce`, `index_add`) are reported as failing to
    legalize.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // CKPT_CONVERSION_PASSES_TD
