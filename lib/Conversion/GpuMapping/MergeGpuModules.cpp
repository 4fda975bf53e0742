//===- MergeGpuModules.cpp - one GPU module for all of a step's kernels ---===//
//
// Moves the kernels that gpu-kernel-outlining put in a module each into one
// module and repoints their launches, so a step compiles to one binary
// (one ptxas run, one module load) instead of one per kernel.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTMERGEGPUMODULESPASS
#include "ckpt/Conversion/Passes.h.inc"
} // namespace ckpt

using namespace mlir;

namespace {

struct CkptMergeGpuModulesPass
    : public ckpt::impl::CkptMergeGpuModulesPassBase<CkptMergeGpuModulesPass> {
  void runOnOperation() override {
    SmallVector<gpu::GPUModuleOp> modules(
        getOperation().getOps<gpu::GPUModuleOp>());
    if (modules.size() < 2)
      return;
    for (gpu::GPUModuleOp module : modules)
      if (module.getTargetsAttr()) {
        module.emitError("GPU modules are merged before targets are "
                         "attached; this one has targets already");
        return signalPassFailure();
      }

    gpu::GPUModuleOp merged = modules.front();
    StringAttr mergedName = merged.getNameAttr();
    // Each moved kernel's reference, before and after.
    DenseMap<SymbolRefAttr, SymbolRefAttr> newKernels;
    SymbolTable mergedSymbols(merged);
    for (gpu::GPUModuleOp module : modules) {
      StringAttr moduleName = module.getNameAttr();
      for (Operation &op : llvm::make_early_inc_range(module.getOps())) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        auto kernel = dyn_cast<gpu::GPUFuncOp>(op);
        if (kernel && kernel.isKernel()) {
          newKernels[SymbolRefAttr::get(
              moduleName, {FlatSymbolRefAttr::get(kernel.getNameAttr())})] =
              SymbolRefAttr::get(mergedName,
                                 {FlatSymbolRefAttr::get(moduleName)});
          if (module == merged)
            mergedSymbols.remove(&op);
          else
            op.moveBefore(merged.getBody(), merged.getBody()->end());
          kernel.setName(moduleName);
          mergedSymbols.insert(&op);
          continue;
        }
        if (module == merged)
          continue;
        if (symbol)
          if (Operation *existing =
                  mergedSymbols.lookup(symbol.getNameAttr())) {
            if (!OperationEquivalence::isEquivalentTo(
                    existing, &op, OperationEquivalence::ignoreValueEquivalence,
                    nullptr, OperationEquivalence::IgnoreLocations)) {
              op.emitError("two GPU modules define '")
                  << symbol.getName() << "' differently";
              return signalPassFailure();
            }
            op.erase();
            continue;
          }
        op.moveBefore(merged.getBody(), merged.getBody()->end());
        if (symbol)
          mergedSymbols.insert(&op);
      }
      if (module != merged)
        module.erase();
    }
    getOperation().walk([&](gpu::LaunchFuncOp launch) {
      if (auto it = newKernels.find(launch.getKernel()); it != newKernels.end())
        launch.setKernelAttr(it->second);
    });
  }
};

} // namespace
