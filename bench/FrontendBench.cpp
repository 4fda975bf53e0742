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

#include <benchmark/benchmark.h>

#include <string>

namespace {

/// The MLP stack with `blocks` residual blocks, as text.
std::string mlpStack(int blocks) {
  const std::string act = "tensor<8x512x512xf32>";
  const std::string wide = "tensor<8x512x2048xf32>";
  const std::string stats = "tensor<8x512x1xf32>";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "func.func @mlp(%x: " << act;
  for (int b = 0; b < blocks; ++b)
    os << ", %g" << b << ": tensor<512xf32> {ckpt.param}, %be" << b
       << ": tensor<512xf32> {ckpt.param}, %w1_" << b
       << ": tensor<2048x512xf32> {ckpt.param}, %b1_" << b
       << ": tensor<2048xf32> {ckpt.param}, %w2_" << b
       << ": tensor<512x2048xf32> {ckpt.param}, %b2_" << b
       << ": tensor<512xf32> {ckpt.param}";
  os << ") -> tensor<f32> {\n";
  std::string h = "%x";
  for (int b = 0; b < blocks; ++b) {
    std::string n = std::to_string(b);
    os << "  %n" << n << ", %m" << n << ", %r" << n << " = ckpt.layer_norm "
       << h << " weight %g" << n << " bias %be" << n
       << " normalized_shape = [512] : (" << act
       << ", tensor<512xf32>, tensor<512xf32>) -> (" << act << ", " << stats
       << ", " << stats << ")\n";
    os << "  %h" << n << " = ckpt.linear %n" << n << ", %w1_" << n << ", %b1_"
       << n << " : (" << act << ", tensor<2048x512xf32>, tensor<2048xf32>) -> "
       << wide << "\n";
    os << "  %a" << n << " = ckpt.gelu %h" << n << " : " << wide << "\n";
    os << "  %o" << n << " = ckpt.linear %a" << n << ", %w2_" << n << ", %b2_"
       << n << " : (" << wide << ", tensor<512x2048xf32>, tensor<512xf32>) -> "
       << act << "\n";
    os << "  %y" << n << " = ckpt.add " << h << ", %o" << n << " : " << act
       << "\n";
    h = "%y" + n;
  }
  os << "  %loss = ckpt.reduce_mean " << h << " : " << act
     << " -> tensor<f32>\n  return %loss : tensor<f32>\n}\n";
  return text;
}

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
  auto module = mlir::parseSourceString<mlir::ModuleOp>(mlpStack(blocks),
                                                        &context);
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

BENCHMARK(BM_ParseAndVerify)->Arg(12)->Arg(48)->Arg(192)->Arg(768)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Print)->Arg(12)->Arg(192)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
