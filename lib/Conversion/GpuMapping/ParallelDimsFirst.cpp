//===- ParallelDimsFirst.cpp - parallel loop dimensions outermost ---------===//
//
// Reorders the iteration dimensions of every linalg.generic so the parallel
// ones come first: convert-linalg-to-parallel-loops then makes all of them
// one parallel loop (one GPU thread per output element) with the reduction
// loops inside each thread.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTPARALLELDIMSFIRSTPASS
#include "ckpt/Conversion/Passes.h.inc"
} // namespace ckpt

using namespace mlir;

namespace {

struct CkptParallelDimsFirstPass
    : public ckpt::impl::CkptParallelDimsFirstPassBase<
          CkptParallelDimsFirstPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics) {
      // Parallel dimensions first, each group in its original order.
      SmallVector<unsigned> order;
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      for (auto [dim, kind] : llvm::enumerate(iterators))
        if (kind == utils::IteratorType::parallel)
          order.push_back(dim);
      for (auto [dim, kind] : llvm::enumerate(iterators))
        if (kind != utils::IteratorType::parallel)
          order.push_back(dim);
      if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
        continue;
      rewriter.setInsertionPoint(op);
      if (failed(linalg::interchangeGenericOp(rewriter, op, order))) {
        op.emitError("cannot move the parallel dimensions first");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
