//===- DropoutMask.h - Philox dropout factors inside linalg bodies --------===//
//
// The keep-or-drop decision of one element of a dropout, shared by
// ckpt.dropout and attention's dropout on its weights, so both draw exactly
// the stream that ckpt/Runtime/Philox.h defines.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_CONVERSION_CKPTTOLINALG_DROPOUTMASK_H
#define CKPT_LIB_CONVERSION_CKPTTOLINALG_DROPOUTMASK_H

#include "LinalgBuilders.h"

namespace ckpt {

/// The seed and base counter of a lowered random state (tensor<2xi64>).
struct RandomState {
  static RandomState extract(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value state);
  mlir::Value seed, base;
};

/// The row-major position (i64) of the current element of a linalg body
/// in a tensor of `shape`, whose dimension k is the body's loop dims[k].
mlir::Value rowMajorPosition(mlir::OpBuilder &b, mlir::Location loc,
                             llvm::ArrayRef<int64_t> shape,
                             llvm::ArrayRef<unsigned> dims);

/// `x / (1 - p)` when the element at row-major `position` of a dropout at
/// counter `offset` keeps its value, else 0.
mlir::Value applyDropout(ScalarBuilder &s, RandomState state, int64_t offset,
                         double p, mlir::Value position, mlir::Value x);

} // namespace ckpt

#endif // CKPT_LIB_CONVERSION_CKPTTOLINALG_DROPOUTMASK_H
