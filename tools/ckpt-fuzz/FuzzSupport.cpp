//===- FuzzSupport.cpp - what the fuzz targets share ----------------------===//

#include "FuzzSupport.h"

#include "ckpt/Conversion/Pipelines/Pipelines.h"
#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

using namespace mlir;

std::unique_ptr<MLIRContext> ckpt::fuzz::makeContext() {
  DialectRegistry registry;
  registry.insert<ckpt::CkptDialect, arith::ArithDialect, func::FuncDialect>();
  ckpt::registerLowerToLLVMDependencies(registry);
  auto context =
      std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  context->getDiagEngine().registerHandler([](Diagnostic &) {});
  return context;
}

OwningOpRef<ModuleOp> ckpt::fuzz::parseModule(llvm::StringRef text,
                                              MLIRContext &context) {
  // MLIR's lexer reads the byte after the text, which in a file's buffer
  // (as ckpt-opt reads it) is a NUL; the fuzzer's bytes end without one.
  std::string terminated = text.str();
  return parseSourceString<ModuleOp>(terminated, ParserConfig(&context),
                                     "input");
}

namespace {
struct VerifyAfterEachPass : public PassInstrumentation {
  void runAfterPass(Pass *pass, Operation *op) override {
    ckpt::fuzz::fuzzCheck(succeeded(verify(op)),
                          "IR does not verify after " +
                              pass->getArgument().str());
  }
};
} // namespace

void ckpt::fuzz::verifyAfterEachPass(PassManager &pm) {
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>());
}

void ckpt::fuzz::fuzzCheck(bool holds, llvm::StringRef what) {
  if (holds)
    return;
  llvm::errs() << "fuzz invariant broken: " << what << "\n";
  std::abort();
}
