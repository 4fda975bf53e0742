//===- FrontendBench.cpp - parse, verify and print cost of forward graphs -===//
//
// Every ckpt-opt run starts by parsing and verifying the forward graph (type
// inference runs inside the verifier), so this cost is paid before any
// planning. The graph is the article's MLP stack (LayerNorm, Linear(D,4D),
// GELU, Linear(4D,D), residual) with a varying number of blocks.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include "MlpStack.h"

#include <benchmark/benchmark.h>

#include <string>

using ckpt::bench::mlpStack;

namespace {

void registerDialects(mlir::MLIRContext &context) {
  context.loadDialect<ckpt::CkptDialect, mlir::func::FuncDialect>();
}

void BM_ParseAndVerify(benchmark::State &state) {
  int blocks = static_cast<int>(state.range(0));
  std::string text = mlpStack(blocks);
  mlir::MLIRContext context;
  registerDialects(context);
  for (auto _ : state) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    if (!module) {
      state.SkipWithError("the generated MLP stack does not parse");
      return;
    }
    benchmark::DoNotOptimize(module.get());
  }
  state.counters["ops"] = 5.0 * blocks + 2;
  state.counters["ops_per_s"] = benchmark::Counter(
      (5.0 * blocks + 2) * state.iterations(), benchmark::Counter::kIsRate);
}

void BM_Print(benchmark::State &state) {
  int blocks = static_cast<int>(state.range(0));
  mlir::MLIRContext context;
  registerDialects(context);
  auto module =
      mlir::parseSourceString<mlir::ModuleOp>(mlpStack(blocks), &context);
  if (!module) {
    state.SkipWithError("the generated MLP stack does not parse");
    return;
  }
  for (auto _ : state) {
    std::string out;
    llvm::raw_string_ostream os(out);
    module->print(os);
    benchmark::DoNotOptimize(out.data());
  }
}

} // namespace

BENCHMARK(BM_ParseAndVerify)
    ->Arg(12)
    ->Arg(48)
    ->Arg(192)
    ->Arg(768)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Print)->Arg(12)->Arg(192)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
