//===- ckpt-opt.cpp - the ckpt optimizer driver ---------------------------===//
//
// An mlir-opt-style driver: parses .mlir files, runs passes and pipelines by
// name, prints the result. It registers the ckpt dialect, the upstream
// dialects the lowering pipelines produce, and the generic upstream passes
// (canonicalize, cse, ...) that users chain with ours.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/Passes.h"
#include "ckpt/Conversion/Pipelines/Pipelines.h"
#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include <string>
#include <vector>

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  ckpt::registerCkptPasses();
  ckpt::registerCkptConversionPasses();
  ckpt::registerCheckpointPipeline();
  ckpt::registerLowerToLLVMPipeline();
  ckpt::registerLowerToNVVMPipeline();

  mlir::DialectRegistry registry;
  registry.insert<ckpt::CkptDialect, mlir::arith::ArithDialect,
                  mlir::bufferization::BufferizationDialect,
                  mlir::func::FuncDialect, mlir::gpu::GPUDialect,
                  mlir::linalg::LinalgDialect, mlir::LLVM::LLVMDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect>();
  ckpt::registerLowerToNVVMDependencies(registry);

  // An error names its op and the user's line; printing the whole op after
  // it (MLIR's default) buries the message under the function's text. A
  // later --mlir-print-op-on-diagnostic on the command line still wins.
  std::vector<char *> args(argv, argv + argc);
  std::string quiet = "--mlir-print-op-on-diagnostic=false";
  args.insert(args.begin() + 1, quiet.data());
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      static_cast<int>(args.size()), args.data(),
      "ckpt-opt: activation checkpointing compiler\n", registry));
}
