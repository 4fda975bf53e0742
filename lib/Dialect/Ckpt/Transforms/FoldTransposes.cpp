//===- FoldTransposes.cpp - transposed operands -> matmul flags -----------===//
//
// A transpose of the last two dimensions that only matrix products read
// becomes their transpose flags: the products read its input in place, so
// the transposed copy is neither made nor saved for backward.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTFOLDTRANSPOSESPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace ckpt

using namespace mlir;
using namespace ckpt;

namespace {

bool swapsLastTwo(ArrayRef<int64_t> permutation) {
  int64_t rank = permutation.size();
  if (rank < 2)
    return false;
  for (int64_t dim = 0; dim < rank - 2; ++dim)
    if (permutation[dim] != dim)
      return false;
  return permutation[rank - 2] == rank - 1 && permutation[rank - 1] == rank - 2;
}

/// Whether every use of `transpose` is an operand of a matrix product, so
/// that reading its input through the flags leaves it dead.
bool onlyProductsRead(TransposeOp transpose) {
  return llvm::all_of(transpose->getUses(), [](OpOperand &use) {
    return isa<MatmulOp>(use.getOwner());
  });
}

void foldIntoProducts(TransposeOp transpose) {
  for (OpOperand &use : llvm::make_early_inc_range(transpose->getUses())) {
    auto product = cast<MatmulOp>(use.getOwner());
    if (use.getOperandNumber() == 0)
      product.setTransposeLhs(!product.getTransposeLhs());
    else
      product.setTransposeRhs(!product.getTransposeRhs());
    use.set(transpose.getInput());
  }
  transpose.erase();
}

struct CkptFoldTransposesPass
    : public ckpt::impl::CkptFoldTransposesPassBase<CkptFoldTransposesPass> {
  void runOnOperation() override {
    // Users before producers: a transpose of a transpose that a product
    // reads folds once the outer one has.
    SmallVector<TransposeOp> transposes;
    getOperation().walk([&](TransposeOp op) { transposes.push_back(op); });
    for (TransposeOp transpose : llvm::reverse(transposes))
      if (swapsLastTwo(transpose.getPermutation()) &&
          onlyProductsRead(transpose))
        foldIntoProducts(transpose);
  }
};

} // namespace
