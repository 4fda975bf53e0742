//===- RandomChains.h - plan enumeration and random chain models -*- C++
//-*-===//
//
// Oracles the planner tests share: every single-level plan of a chain
// model, chain models of random numbers, random training steps with
// skip connections, and training steps built from forward graphs.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_UNITTESTS_PLANNER_RANDOMCHAINS_H
#define CKPT_UNITTESTS_PLANNER_RANDOMCHAINS_H

#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Planner/ChainDp.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <functional>
#include <random>
#include <string>
#include <vector>

namespace ckpt {

using Segments = llvm::SmallVector<PlannedSegment>;

/// Every single-level plan of `model`'s stages: each stage kept or in one
/// segment of consecutive stages that the model allows, in each of the
/// ways it allows.
inline void enumeratePlans(const ChainModel &model, size_t first,
                           Segments &plan,
                           const std::function<void(const Segments &)> &visit) {
  size_t stages = model.getStageCount();
  if (first == stages)
    return visit(plan);
  enumeratePlans(model, first + 1, plan, visit);
  for (size_t last = first; last < stages; ++last) {
    size_t options = model.getSegmentOptions(first, last).size();
    if (!options)
      break;
    for (unsigned option = 0; option < options; ++option) {
      plan.push_back({first, last, option});
      enumeratePlans(model, last + 1, plan, visit);
      plan.pop_back();
    }
  }
}

/// A chain model of random numbers: some stages may not be in a segment,
/// some runs may be segments two ways.
class RandomChain : public ChainModel {
public:
  RandomChain(std::mt19937_64 &rng, size_t stages) {
    std::uniform_int_distribution<int64_t> bytes(0, 1000);
    std::uniform_int_distribution<uint64_t> flops(1, 500);
    for (size_t stage = 0; stage < stages; ++stage) {
      kept.push_back(bytes(rng) * 4);
      forbidden.push_back(bytes(rng) < 80);
      runs.emplace_back();
      for (size_t last = stage; last < stages; ++last) {
        runs.back().emplace_back();
        for (int option = 0, options = 1 + (bytes(rng) < 300); option < options;
             ++option)
          runs.back().back().push_back({bytes(rng) * 5, bytes(rng) - 200,
                                        flops(rng) * (last - stage + 1)});
      }
    }
  }
  size_t getStageCount() const override { return kept.size(); }
  int64_t getKeptPeak(size_t stage) const override { return kept[stage]; }
  llvm::SmallVector<ChainSegment, 2>
  getSegmentOptions(size_t first, size_t last) const override {
    for (size_t stage = first; stage <= last; ++stage)
      if (forbidden[stage])
        return {};
    return runs[first][last - first];
  }

private:
  std::vector<int64_t> kept;
  std::vector<bool> forbidden;
  std::vector<std::vector<llvm::SmallVector<ChainSegment, 2>>> runs;
};

/// A random step on a batch of 4 rows of width 8: `ops` ops, each reading
/// the previous value (a linear layer, tanh, gelu or layer norm) or also an
/// earlier one (add or mul: a skip connection), then the mean loss.
inline std::string randomDagStep(std::mt19937_64 &rng, int ops) {
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  const std::string act = "tensor<4x8xf32>", weight = "tensor<8x8xf32>";
  std::string body, params;
  std::vector<std::string> values = {"%x"};
  int linears = 0;
  for (int i = 0; i < ops; ++i) {
    std::string name = "%v" + std::to_string(i), last = values.back();
    // Skips reach two to four values back.
    size_t reach = std::min<size_t>(values.size(), 2 + pick(3));
    std::string earlier = values[values.size() - reach];
    int kind = values.size() < 3 ? pick(2) : pick(6);
    if (i == 0 || kind == 0) {
      std::string w = "%w" + std::to_string(linears++);
      params += ", " + w + ": " + weight + " {ckpt.param}";
      body += "  " + name + " = ckpt.linear " + last + ", " + w + " : (" + act +
              ", " + weight + ") -> " + act + "\n";
    } else if (kind == 1) {
      body += "  " + name + " = ckpt.tanh " + last + " : " + act + "\n";
    } else if (kind == 2) {
      body += "  " + name + " = ckpt.gelu " + last + " : " + act + "\n";
    } else if (kind == 3) {
      body += "  " + name + " = ckpt.add " + last + ", " + earlier + " : " +
              act + "\n";
    } else if (kind == 4) {
      body += "  " + name + " = ckpt.mul " + last + ", " + earlier + " : " +
              act + "\n";
    } else {
      body += "  " + name + ", %m" + std::to_string(i) + ", %r" +
              std::to_string(i) + " = ckpt.layer_norm " + last +
              " normalized_shape = [8] : (" + act + ") -> (" + act +
              ", tensor<4x1xf32>, tensor<4x1xf32>)\n";
    }
    values.push_back(name);
  }
  return "func.func @dag(%x: " + act + params + ") -> tensor<f32> {\n" + body +
         "  %loss = ckpt.reduce_mean " + values.back() + " : " + act +
         " -> tensor<f32>\n  return %loss : tensor<f32>\n}\n";
}

/// `forward` parsed into `context` (which has the ckpt, func and arith
/// dialects loaded) and made a training step by ckpt-thread-rng and
/// ckpt-autodiff (without keeping the forward); null when either fails.
inline mlir::OwningOpRef<mlir::ModuleOp>
buildTrainingStep(mlir::MLIRContext &context, llvm::StringRef forward) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(forward, &context);
  if (!module)
    return nullptr;
  mlir::PassManager pm(&context);
  pm.addPass(createCkptThreadRngPass());
  CkptAutodiffPassOptions options;
  options.keepForward = false;
  pm.addPass(createCkptAutodiffPass(options));
  if (mlir::failed(pm.run(*module)))
    return nullptr;
  return module;
}

} // namespace ckpt

#endif // CKPT_UNITTESTS_PLANNER_RANDOMCHAINS_H
