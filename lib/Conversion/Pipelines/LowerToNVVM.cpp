//===- LowerToNVVM.cpp - ckpt training steps -> host LLVM + GPU binary ----===//
//
// The GPU pipeline: the CPU pipeline's lowering and bufferization, then
// every loop of the step mapped to GPU blocks and threads and outlined into
// kernels, the kernels compiled by NVVM and ptxas into a binary embedded in
// the host module, and the host code (allocation, launches) lowered to LLVM.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/Passes.h"
#include "ckpt/Conversion/Pipelines/Pipelines.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void ckpt::addGpuLoopPasses(OpPassManager &pm, bool freeAfterLastUse,
                            const CkptGpuMapLoopsPassOptions &mapping) {
  pm.addPass(createCkptGemmToCallsPass());
  pm.addNestedPass<func::FuncOp>(createCkptParallelDimsFirstPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  // Loops that carry a buffer through iter_args yield it unchanged; folding
  // them leaves the host no loop results to read.
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createCkptGpuMapLoopsPass(mapping));
  // Kernels now read what the host read before: frees follow them.
  if (freeAfterLastUse)
    pm.addNestedPass<func::FuncOp>(createCkptFreeAfterLastUsePass());
}

void ckpt::buildLowerToNVVMPipeline(OpPassManager &pm,
                                    const LowerToNVVMOptions &options) {
  addBufferizationPasses(pm, options.freeAfterLastUse);
  CkptGpuMapLoopsPassOptions mapping;
  mapping.threadsPerBlock = options.threadsPerBlock;
  mapping.reportKernels = options.reportKernels;
  addGpuLoopPasses(pm, options.freeAfterLastUse, mapping);
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createCkptMergeGpuModulesPass());

  // Kernels: NVVM, then ptxas (found through `toolkit`, else the
  // environment: PATH, CUDA_HOME, CUDA_ROOT, CUDA_PATH).
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  ConvertGpuOpsToNVVMOpsOptions kernels;
  kernels.indexBitwidth = 64;
  OpPassManager &kernelPm = pm.nest<gpu::GPUModuleOp>();
  kernelPm.addPass(createConvertGpuOpsToNVVMOps(kernels));
  kernelPm.addPass(createCanonicalizerPass());
  kernelPm.addPass(createCSEPass());
  kernelPm.addPass(createReconcileUnrealizedCastsPass());

  // Host: buffers from malloc and free (a runner serves them with device
  // memory), launches through the mgpu* runtime functions.
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.toolkit.empty()
                           ? std::string(CKPT_CUDA_TOOLKIT_DIR)
                           : std::string(options.toolkit);
  binary.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void ckpt::registerLowerToNVVMDependencies(DialectRegistry &registry) {
  registerLowerToLLVMDependencies(registry);
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  // gpu-module-to-binary translates the kernels to LLVM IR through these.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}

void ckpt::registerLowerToNVVMPipeline() {
  PassPipelineRegistration<LowerToNVVMOptions>(
      "ckpt-lower-to-nvvm",
      "Lowers ckpt training steps to host LLVM that launches GPU kernels "
      "compiled for NVIDIA GPUs (NVVM, ptxas); heap allocation through "
      "malloc and free",
      buildLowerToNVVMPipeline);
}
