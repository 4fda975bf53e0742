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

#include "ckpt/Conversion/Passes.h"

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
  Option<bool> gpuLoops{
      *this, "gpu-loops",
      llvm::cl::desc("Build the loops as ckpt-lower-to-nvvm maps them to "
                     "GPU blocks and threads (ckpt-parallel-dims-first, "
                     "ckpt-gpu-map-loops), then run them on the CPU: checks "
                     "the GPU mapping without a GPU"),
      llvm::cl::init(false)};
  Option<bool> permuteIterations{
      *this, "permute-iterations",
      llvm::cl::desc("With gpu-loops: each parallel loop's iterations run in "
                     "a permuted order (ckpt-gpu-map-loops "
                     "permute-iterations), so that a result that depends on "
                     "their order shows as other bits"),
      llvm::cl::init(false)};
  Option<bool> reportKernels{
      *this, "report-kernels",
      llvm::cl::desc("With gpu-loops: a remark per function with its GPU "
                     "kernels and launches per call"),
      llvm::cl::init(false)};
};

struct LowerToNVVMOptions
    : public mlir::PassPipelineOptions<LowerToNVVMOptions> {
  Option<bool> freeAfterLastUse{
      *this, "free-after-last-use",
      llvm::cl::desc("Free each buffer right after its last use (off: at "
                     "the end of its block)"),
      llvm::cl::init(true)};
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("GPU architecture the kernels are compiled for "
                     "(default sm_90: H100/H200)"),
      llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (default +ptx80; sm_90 needs PTX 7.8 "
                     "or later)"),
      llvm::cl::init("+ptx80")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit whose ptxas compiles the kernels "
                     "(empty: the one found when ckpt-opt was built, else "
                     "PATH, CUDA_HOME, CUDA_ROOT or CUDA_PATH)"),
      llvm::cl::init("")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What the GPU module becomes: bin (cubin, the "
                     "default), fatbin, isa (PTX text) or offload (LLVM "
                     "IR)"),
      llvm::cl::init("bin")};
  Option<int64_t> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("Threads in each block of a parallel loop's kernel "
                     "(default 256)"),
      llvm::cl::init(256)};
  Option<bool> reportKernels{
      *this, "report-kernels",
      llvm::cl::desc("A remark per function with its GPU kernels and "
                     "launches per call"),
      llvm::cl::init(false)};
};

/// Every option of ckpt-plan, under its name and with its help text (the
/// Tools/pipeline-plan-options.test checks both), then autodiff's loss scale
/// and the fusion and lowering switches.
struct CheckpointPipelineOptions
    : public mlir::PassPipelineOptions<CheckpointPipelineOptions> {
  Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("Planning strategy: auto (default), manual, none, "
                     "uniform, sqrt, selective, dp, ilp or tensor"),
      llvm::cl::init("auto")};
  Option<std::string> budget{
      *this, "budget",
      llvm::cl::desc("Largest simulated peak allowed, in bytes (24GiB, "
                     "512MiB, 1.5e9); empty: none"),
      llvm::cl::init("")};
  Option<unsigned> stagesPerSegment{
      *this, "stages-per-segment",
      llvm::cl::desc("Stages in each segment of the uniform and selective "
                     "strategies (at least 1)"),
      llvm::cl::init(1)};
  Option<unsigned> selectiveThreshold{
      *this, "selective-flops-per-element",
      llvm::cl::desc("Selective keeps results that cost more FLOPs per "
                     "element than this; dp and ilp may keep, per run, those "
                     "above it or above the cost of a costlier op"),
      llvm::cl::init(64)};
  Option<bool> remarks{
      *this, "remarks",
      llvm::cl::desc("Also emit a remark per planned segment (its stages) "
                     "and one with the plan's simulated peak under the "
                     "budget"),
      llvm::cl::init(false)};
  Option<unsigned> stageCrossings{
      *this, "stage-crossings",
      llvm::cl::desc("dp and ilp end a stage where at most this many "
                     "activations cross (more for skip connections); 0: "
                     "chosen automatically"),
      llvm::cl::init(0)};
  Option<double> ilpSeconds{
      *this, "ilp-seconds",
      llvm::cl::desc("Seconds ilp may solve for, all solves together"),
      llvm::cl::init(10)};
  Option<int64_t> ilpNodes{
      *this, "ilp-nodes",
      llvm::cl::desc("Branch-and-bound nodes per ilp solve (0: no limit)"),
      llvm::cl::init(0)};
  Option<unsigned> ilpMaxStages{*this, "ilp-max-stages",
                                llvm::cl::desc("Most stages ilp takes on"),
                                llvm::cl::init(150)};
  Option<bool> ilpPresolve{
      *this, "ilp-presolve",
      llvm::cl::desc("ilp takes dp's optimum of its model first, and solves "
                     "only when that plan's simulated peak does not fit"),
      llvm::cl::init(true)};
  Option<unsigned> microbatchesInFlight{
      *this, "microbatches-in-flight",
      llvm::cl::desc("Microbatches a pipeline stage holds in flight (1F1B): "
                     "their activations at backward's start count this many "
                     "times in the peak, parameters and gradients once "
                     "(at least 1)"),
      llvm::cl::init(1)};
  Option<double> lossScale{
      *this, "loss-scale",
      llvm::cl::desc("Scale the loss by this power of two for backward and "
                     "unscale the parameters' gradients (ckpt-autodiff; "
                     "static loss scaling for f16)"),
      llvm::cl::init(1)};
  Option<bool> fusePointwise{
      *this, "fuse-pointwise",
      llvm::cl::desc("Last, run chains of pointwise ops as one op each "
                     "(ckpt-fuse-pointwise; on by default): fewer loops and "
                     "kernels, and a peak no higher than the plan's"),
      llvm::cl::init(true)};
  Option<bool> lower{*this, "lower",
                     llvm::cl::desc("Also lower the result to the LLVM dialect "
                                    "(ckpt-lower-to-llvm)"),
                     llvm::cl::init(false)};
};

/// ckpt-fold-transposes, ckpt-thread-rng, ckpt-autodiff (training steps
/// replace the forward graphs), ckpt-plan, ckpt-insert-recompute and, unless
/// `fuse-pointwise` is off, ckpt-fuse-pointwise; with `lower`, then
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

/// ckpt-to-linalg, one-shot bufferization with ownership-based
/// deallocation (frees moved after last uses when `freeAfterLastUse`), and
/// bufferization-to-memref: the part the CPU and GPU pipelines share.
void addBufferizationPasses(mlir::OpPassManager &pm, bool freeAfterLastUse);

/// The loop part of the GPU pipeline, on bufferized code: parallel
/// dimensions first, linalg to parallel loops, ckpt-gpu-map-loops with
/// `mapping` (and the frees moved after the kernels that now read the
/// buffers).
void addGpuLoopPasses(mlir::OpPassManager &pm, bool freeAfterLastUse,
                      const CkptGpuMapLoopsPassOptions &mapping);

/// The GPU pipeline: bufferization as for the CPU, loops mapped to GPU
/// blocks and threads (ckpt-gpu-map-loops) and outlined into kernels,
/// kernels compiled for `chip` by NVVM and ptxas into a `gpu.binary`, host
/// code lowered to LLVM. Heap buffers come from malloc and free, which a
/// runner binds to device memory; kernels launch through the mgpu*
/// functions (`kernels/CudaRuntime.h`).
void buildLowerToNVVMPipeline(mlir::OpPassManager &pm,
                              const LowerToNVVMOptions &options);

/// Registers what the GPU pipeline needs on top of the CPU pipeline's
/// dependencies: the gpu and nvvm dialects, the NVVM target, and the
/// LLVM IR translations that compile kernels and embed the binary.
void registerLowerToNVVMDependencies(mlir::DialectRegistry &registry);

/// Registers `ckpt-lower-to-nvvm`.
void registerLowerToNVVMPipeline();

} // namespace ckpt

#endif // CKPT_CONVERSION_PIPELINES_PIPELINES_H
