//===- OptionFuzzer.cpp - the option parsers on arbitrary text ------------===//
//
// The same text as a byte size (`budget=`), as dimension bindings
// (`ckpt-bind-dims`'s `bind=`, on a module with named unknown dimensions)
// and as the whole option string of `ckpt-plan` on a small training step.
// Rejected text is fine; a crash, a byte size that disagrees with the
// integer it spells, or IR that stops verifying is a finding.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Planner/Budget.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kNamedDimensions = R"mlir(
func.func @f(%x: tensor<?x?x4xf32> {ckpt.dim_names = ["B", "L", ""]},
             %w: tensor<6x4xf32> {ckpt.param}) -> tensor<f32> {
  %h = ckpt.linear %x, %w : (tensor<?x?x4xf32>, tensor<6x4xf32>) -> tensor<?x?x6xf32>
  %r = ckpt.reshape %h : tensor<?x?x6xf32> -> tensor<?x6xf32>
  %l = ckpt.reduce_mean %r : tensor<?x6xf32> -> tensor<f32>
  return %l : tensor<f32>
}
)mlir";

constexpr llvm::StringLiteral kForward = R"mlir(
func.func @f(%x: tensor<8x16xf32>, %w0: tensor<32x16xf32> {ckpt.param},
             %w1: tensor<16x32xf32> {ckpt.param}) -> tensor<f32> {
  %h = ckpt.linear %x, %w0 : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  %g = ckpt.gelu %h : tensor<8x32xf32>
  %y = ckpt.linear %g, %w1 : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
  %a = ckpt.add %x, %y : tensor<8x16xf32>
  %l = ckpt.reduce_mean %a : tensor<8x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
)mlir";

void checkByteSize(llvm::StringRef text) {
  std::string error;
  std::optional<uint64_t> bytes = ckpt::parseByteSize(text, error);
  ckpt::fuzz::fuzzCheck(bytes.has_value() == error.empty(),
                        "parseByteSize must either succeed or say why");
  uint64_t spelled;
  if (!text.trim().getAsInteger(10, spelled) && spelled > 0)
    ckpt::fuzz::fuzzCheck(bytes == spelled,
                          "a plain integer byte size is read exactly");
  if (bytes)
    ckpt::fuzz::fuzzCheck(*bytes > 0, "a budget is at least 1 byte");
}

void runPasses(llvm::StringRef moduleText, MLIRContext &context,
               llvm::function_ref<LogicalResult(PassManager &)> addPasses) {
  OwningOpRef<ModuleOp> module = ckpt::fuzz::parseModule(moduleText, context);
  ckpt::fuzz::fuzzCheck(bool(module), "the fixed module must parse");
  PassManager pm(&context);
  ckpt::fuzz::verifyAfterEachPass(pm);
  if (succeeded(addPasses(pm)))
    (void)pm.run(*module);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const bool registered = [] {
    ckpt::registerCkptPasses();
    return true;
  }();
  (void)registered;
  llvm::StringRef text = ckpt::fuzz::asText(data, size);
  checkByteSize(text);

  std::unique_ptr<MLIRContext> context = ckpt::fuzz::makeContext();
  runPasses(kNamedDimensions, *context, [&](PassManager &pm) {
    pm.addPass(ckpt::createCkptBindDimsPass({text.str()}));
    return success();
  });
  // Without braces the text stays inside ckpt-plan's option list; with
  // them it could name other passes, some of which write files.
  if (text.find_first_of("{}") != llvm::StringRef::npos)
    return 0;
  runPasses(kForward, *context, [&](PassManager &pm) {
    std::string ignored;
    llvm::raw_string_ostream errors(ignored);
    return parsePassPipeline(
        ("builtin.module(ckpt-thread-rng,ckpt-autodiff,ckpt-plan{" + text +
         "})")
            .str(),
        pm, errors);
  });
  return 0;
}
