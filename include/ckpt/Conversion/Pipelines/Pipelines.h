//===- Pipelines.h - named lowering pipelines -----------------------------===//
//
// The checkpointing pipeline (forward graph -> planned training step with
// recompute regions) and the pipeline that takes ckpt training steps to the
// LLVM dialect for the CPU, each as a function (for embedding in other
// compilers) and as a named pipeline (`ckpt-pipeline`,
// `ckpt-lower-to-llvm`).
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

struct CheckpointPipelineOptions
    : public mlir::PassPipelineOptions<CheckpointPipelineOptions> {
  Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("Planning strategy: manual, none, uniform, sqrt, "
                     "selective or dp"),
      llvm::cl::init("manual")};
  Option<std::string> budget{
      *this, "budget",
      llvm::cl::desc("Largest simulated peak allowed, in bytes (24GiB, "
                     "512MiB, 1.5e9); empty: none"),
      llvm::cl::init("")};
  Option<unsigned> stagesPerSegment{
      *this, "stages-per-segment",
      llvm::cl::desc("Stages in each segment of the uniform strategy"),
      llvm::cl::init(1)};
  Option<unsigned> selectiveThreshold{
      *this, "selective-flops-per-element",
      llvm::cl::desc("Selective keeps (and dp may keep) results that cost "
                     "more FLOPs per element than this"),
      llvm::cl::init(64)};
  Option<bool> lower{*this, "lower",
                     llvm::cl::desc("Also lower the result to the LLVM dialect "
                                    "(ckpt-lower-to-llvm)"),
                     llvm::cl::init(false)};
};

/// ckpt-thread-rng, ckpt-autodiff (training steps replace the forward
/// graphs), ckpt-plan and ckpt-insert-recompute; with `lower`, then
/// ckpt-lower-to-llvm.
void buildCheckpointPipeline(mlir::OpPassManager &pm,
                             const CheckpointPipelineOptions &options);

/// Registers `ckpt-pipeline`.
void registerCheckpointPipeline();

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
