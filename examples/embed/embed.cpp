// Embeds the checkpointing pipeline in another compiler's PassManager:
// an upstream pass before it (canonicalize), ckpt's pipeline with a plan
// and a budget, an upstream pass after it (cse, which cannot merge a
// recomputed op with its forward twin: recompute regions are isolated),
// then asks the memory simulator for the peak of each training step.
//
// usage: embed MODEL.mlir [STRATEGY [BUDGET]]
#include "ckpt/Analysis/MemorySimulator.h"
#include "ckpt/Conversion/Pipelines/Pipelines.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc < 2 || argc > 4) {
    llvm::errs() << "usage: " << argv[0] << " MODEL.mlir [STRATEGY [BUDGET]]\n";
    return 2;
  }
  mlir::MLIRContext context;
  context.loadDialect<ckpt::CkptDialect, mlir::arith::ArithDialect,
                      mlir::func::FuncDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;

  ckpt::CheckpointPipelineOptions options;
  options.strategy = argc > 2 ? argv[2] : "manual";
  options.budget = argc > 3 ? argv[3] : "";
  mlir::PassManager pm(&context);
  pm.addPass(mlir::createCanonicalizerPass());
  ckpt::buildCheckpointPipeline(pm, options);
  pm.addPass(mlir::createCSEPass());
  if (mlir::failed(pm.run(*module)))
    return 1;

  for (auto step : module->getOps<mlir::func::FuncOp>()) {
    mlir::FailureOr<ckpt::MemoryPeak> peak = ckpt::simulateMemory(step);
    if (mlir::failed(peak))
      return 1;
    auto regions = step.getOps<ckpt::RecomputeOp>();
    llvm::outs() << "@" << step.getSymName() << ": "
                 << std::distance(regions.begin(), regions.end())
                 << " recompute regions, simulated peak " << peak->bytes
                 << " B\n";
  }
  return 0;
}
