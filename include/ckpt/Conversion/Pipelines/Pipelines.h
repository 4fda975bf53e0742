//===- Pipelines.h - named lowering pipelines -----------------------------===//
//
// The pipeline that takes ckpt training steps to the LLVM dialect for the
// CPU, as a function (for embedding in other compilers) and as the named
// pipeline `ckpt-lower-to-llvm`.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_CONVERSION_PIPELINES_PIPELINES_H
#define CKPT_CONVERSION_PIPELINES_PIPELINES_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace ckpt {

struct LowerToLLVMOptions
    : public mlir::PassPipelineOptions<LowerToLLVMOptions> {
  Option<bool> freeAfterLastUse{
      *this, "free-after-last-use",
      llvm::cl::desc("Free each buffer right after its last use (off: at "
                     "the end of its block, as ownership-based "
                     "deallocation places the frees)"),
      llvm::cl::init(true)};
};

/// ckpt -> linalg on tensors -> one-shot bufferization (identity layouts at
/// function boundaries) with ownership-based deallocation -> loops -> LLVM.
/// Heap allocations become calls of `malloc` and `free`, which a JIT can
/// bind to a counting allocator (as ckpt-run does).
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                              const LowerToLLVMOptions &options);

/// Registers the dialects and interface models the pipeline needs in the
/// context that runs it (bufferization models of arith, linalg, tensor and
/// func; allocation models of memref; math-to-libm's func calls).
void registerLowerToLLVMDependencies(mlir::DialectRegistry &registry);

/// Registers `ckpt-lower-to-llvm`.
void registerLowerToLLVMPipeline();

} // namespace ckpt

#endif // CKPT_CONVERSION_PIPELINES_PIPELINES_H
