//===- PipelineFuzzer.cpp - the checkpointing pipeline on arbitrary input -===//
//
// The first line of the input holds `ckpt-pipeline` options (`// strategy=dp
// budget=1MiB lower=1`, parsed as the pipeline's own option string); the
// whole input is the module. Findings: a crash, a pass that leaves IR that
// does not verify, and a planned step whose simulated peak exceeds the
// budget it was planned for.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "ckpt/Analysis/MemorySimulator.h"
#include "ckpt/Conversion/Pipelines/Pipelines.h"
#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"
#include "ckpt/Planner/Budget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>
#include <string>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef input = ckpt::fuzz::asText(data, size);
  llvm::StringRef header = input.split('\n').first.trim();
  if (!header.consume_front("//"))
    return 0;
  ckpt::CheckpointPipelineOptions options;
  std::string ignored;
  llvm::raw_string_ostream errors(ignored);
  if (failed(options.parseFromString(header.trim(), errors)))
    return 0;
  // Bounded work per input: the solver's time and the stage model's
  // quadratic measurement are the only costs that options raise.
  options.ilpSeconds = std::min<double>(options.ilpSeconds, 0.5);
  options.stageCrossings = std::min<unsigned>(options.stageCrossings, 4);

  std::unique_ptr<MLIRContext> context = ckpt::fuzz::makeContext();
  OwningOpRef<ModuleOp> module = ckpt::fuzz::parseModule(input, *context);
  if (!module)
    return 0;
  PassManager pm(context.get());
  ckpt::fuzz::verifyAfterEachPass(pm);
  ckpt::buildCheckpointPipeline(pm, options);
  if (failed(pm.run(*module)) || options.lower)
    return 0;

  if (options.budget.empty())
    return 0;
  std::string error;
  std::optional<uint64_t> budget = ckpt::parseByteSize(options.budget, error);
  ckpt::fuzz::fuzzCheck(budget.has_value(),
                        "a pipeline with a bad budget succeeded");
  for (auto step : module->getOps<func::FuncOp>()) {
    if (!step->hasAttr(ckpt::CkptDialect::kTrainingStepAttrName))
      continue;
    FailureOr<ckpt::MemoryPeak> peak =
        ckpt::simulateMemory(step, /*liveAtPeak=*/false);
    ckpt::fuzz::fuzzCheck(succeeded(peak),
                          "a planned step cannot be simulated");
    ckpt::fuzz::fuzzCheck(peak->bytes <= *budget,
                          "a planned step's simulated peak exceeds the "
                          "budget");
  }
  return 0;
}
