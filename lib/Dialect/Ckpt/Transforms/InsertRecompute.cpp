//===- InsertRecompute.cpp - materialise a plan's recompute regions -------===//
//
// Runs the Planner's materialisation on every training step: each
// checkpoint segment becomes a ckpt.recompute region right before the
// backward ops that read its recomputed values.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Planner/Recompute.h"

#include "mlir/IR/BuiltinOps.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTINSERTRECOMPUTEPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace ckpt

using namespace mlir;
using namespace ckpt;

namespace {

struct CkptInsertRecomputePass
    : public ckpt::impl::CkptInsertRecomputePassBase<CkptInsertRecomputePass> {
  void runOnOperation() override {
    for (auto step : getOperation().getOps<func::FuncOp>())
      if (step->hasAttr(CkptDialect::kTrainingStepAttrName) &&
          failed(materializePlan(step)))
        return signalPassFailure();
  }
};

} // namespace
