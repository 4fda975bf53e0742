//===- LowerToLLVM.cpp - ckpt training steps -> LLVM dialect (CPU) --------===//
//
// The CPU pipeline: lower ckpt ops on tensors, bufferize whole functions with
// identity layouts (so callers pass plain contiguous buffers), free buffers
// by ownership and right after their last use, turn matrix products into
// BLAS calls and the other linalg ops into parallel loops on OpenMP's
// threads, and convert everything to LLVM. Heap memory comes from malloc and free, which
// LLVM knows return fresh memory (so it can keep accumulators in registers
// and vectorise), and which a runner can serve with a counting allocator.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/Pipelines/Pipelines.h"
#include "ckpt/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void ckpt::addBufferizationPasses(OpPassManager &pm, bool freeAfterLastUse) {
  pm.addPass(createCkptToLinalgPass());
  pm.addPass(createCanonicalizerPass());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // No over-alignment: the LLVM lowering of an aligned memref.alloc asks
  // malloc for the alignment in extra bytes, 64 per live buffer that the
  // memory simulator (which counts tensor bytes) would not see.
  bufferize.bufferAlignment = 0;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // The embedding gradient's loop over columns: parallel like the rest.
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  if (freeAfterLastUse)
    pm.addNestedPass<func::FuncOp>(createCkptFreeAfterLastUsePass());
  pm.addPass(createConvertBufferizationToMemRefPass());
}

void ckpt::buildLowerToLLVMPipeline(OpPassManager &pm,
                                    const LowerToLLVMOptions &options) {
  addBufferizationPasses(pm, options.freeAfterLastUse);
  pm.addPass(createCkptApproximateMathPass());
  if (options.gpuLoops) {
    CkptGpuMapLoopsPassOptions mapping;
    mapping.permuteIterations = options.permuteIterations;
    mapping.reportKernels = options.reportKernels;
    addGpuLoopPasses(pm, options.freeAfterLastUse, mapping);
  } else {
    pm.addPass(createCkptGemmToCallsPass());
    // Each output element is computed by one thread, its sums in loop
    // order inside it: the bits do not depend on the thread count.
    pm.addNestedPass<func::FuncOp>(createCkptParallelDimsFirstPass());
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
    pm.addNestedPass<func::FuncOp>(createCkptCarryAccumulatorsPass());
    pm.addPass(createCkptOutlineLoopsPass());
    pm.addPass(createConvertSCFToOpenMPPass());
    // Inlines the stack scopes around loop bodies, which hold no allocas.
    pm.addPass(createCanonicalizerPass());
  }
  pm.addPass(createCkptExpandBFloat16Pass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // Instructions first (the approximations' fma), libm for the rest.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  FinalizeMemRefToLLVMConversionPassOptions memref;
  memref.useGenericFunctions = false;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memref));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void ckpt::registerLowerToLLVMDependencies(DialectRegistry &registry) {
  registry.insert<bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  LLVM::LLVMDialect, memref::MemRefDialect, omp::OpenMPDialect,
                  scf::SCFDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  memref::registerAllocationOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
}

void ckpt::registerLowerToLLVMPipeline() {
  PassPipelineRegistration<LowerToLLVMOptions>(
      "ckpt-lower-to-llvm",
      "Lowers ckpt training steps to the LLVM dialect for the CPU, with "
      "heap allocation through malloc and free",
      buildLowerToLLVMPipeline);
}
