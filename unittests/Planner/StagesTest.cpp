//===- StagesTest.cpp - stage boundaries against a brute-force oracle -----===//
//
// Random forward graphs (chains with skip connections, constants and float
// and integer inputs); findStages must end a stage exactly after the ops
// where a direct count of the activations made (or, as uniform counts
// them, inputs read) before and read after finds at most one, and wrapping
// each stage in a segment must give IR that verifies.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Planner/Segments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

using namespace mlir;
using namespace ckpt;

namespace {

/// A random forward graph of `ops` ops on tensor<4xf32>: unary ops of a
/// recent value, adds of two recent values (skip connections), constants,
/// reads of the float input %x and the mask %m.
std::string randomGraph(std::mt19937 &rng, int ops) {
  std::string text = "func.func @f(%x: tensor<4xf32>, %m: tensor<4xi1>, "
                     "%p: tensor<4xf32> {ckpt.param}) -> tensor<4xf32> {\n";
  std::vector<std::string> values = {"%p"};
  auto recent = [&] {
    int window = std::min<int>(values.size(), 4);
    return values[values.size() - 1 -
                  std::uniform_int_distribution<int>(0, window - 1)(rng)];
  };
  for (int i = 0; i < ops; ++i) {
    std::string name = "%v" + std::to_string(i);
    switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
    case 0:
      text += "  " + name + " = arith.constant dense<1.0> : tensor<4xf32>\n";
      break;
    case 1:
      text +=
          "  " + name + " = ckpt.add " + recent() + ", %x : tensor<4xf32>\n";
      break;
    case 2:
      text +=
          "  " + name + " = ckpt.where %m, " + recent() + ", " + recent() +
          " : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n";
      break;
    case 3:
      text += "  " + name + " = ckpt.add " + recent() + ", " + recent() +
              " : tensor<4xf32>\n";
      break;
    default:
      text += "  " + name + " = ckpt.tanh " + recent() + " : tensor<4xf32>\n";
    }
    values.push_back(name);
  }
  text += "  return " + values.back() + " : tensor<4xf32>\n}\n";
  return text;
}

/// The ops after which a stage ends and the activation crossing there,
/// counted directly: the activations (op results other than constants, and,
/// with `inputsCross`, the float input from its first read) made or read at
/// or before op i and read after it.
std::vector<std::pair<size_t, std::set<void *>>>
oracleBoundaries(func::FuncOp func, bool inputsCross) {
  std::vector<Operation *> ops;
  for (Operation &op : func.getBody().front().without_terminator())
    ops.push_back(&op);
  auto position = [&](Operation *op) {
    return std::find(ops.begin(), ops.end(), op) - ops.begin();
  };
  std::vector<std::pair<size_t, std::set<void *>>> boundaries;
  for (size_t i = 0; i + 1 < ops.size(); ++i) {
    if (ops[i]->hasTrait<OpTrait::ConstantLike>())
      continue;
    std::set<void *> crossing;
    auto consider = [&](Value value, bool madeBefore) {
      bool before = madeBefore, after = false;
      for (Operation *user : value.getUsers()) {
        size_t at = position(user);
        if (at == ops.size())
          continue;
        before |= at <= i;
        after |= at > i;
      }
      if (before && after)
        crossing.insert(value.getAsOpaquePointer());
    };
    if (inputsCross)
      consider(func.getArgument(0), false);
    for (size_t j = 0; j < ops.size(); ++j)
      if (!ops[j]->hasTrait<OpTrait::ConstantLike>())
        consider(ops[j]->getResult(0), j <= i);
    if (crossing.size() <= 1)
      boundaries.push_back({i, crossing});
  }
  return boundaries;
}

TEST(StagesTest, BoundariesMatchADirectCountOnRandomGraphs) {
  MLIRContext context;
  context.loadDialect<CkptDialect, func::FuncDialect, arith::ArithDialect>();
  std::mt19937 rng(2026);
  for (int trial = 0; trial < 300; ++trial) {
    std::string text = randomGraph(rng, 2 + trial % 25);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module) << text;
    auto func = *module->getOps<func::FuncOp>().begin();

    SmallVector<Stage> stages;
    size_t total = func.getBody().front().getOperations().size() - 1;
    for (bool inputsCross : {false, true}) {
      stages = findStages(func, /*maxCrossing=*/1, inputsCross);
      std::vector<std::pair<size_t, std::set<void *>>> boundaries;
      size_t seen = 0;
      for (const Stage &stage : stages) {
        ASSERT_FALSE(stage.ops.empty()) << text;
        seen += stage.ops.size();
        std::set<void *> crossing;
        for (Value value : stage.boundary)
          crossing.insert(value.getAsOpaquePointer());
        boundaries.push_back({seen - 1, crossing});
      }
      boundaries.pop_back(); // the last stage ends with the graph
      ASSERT_EQ(seen, total) << text;
      EXPECT_EQ(boundaries, oracleBoundaries(func, inputsCross))
          << text << (inputsCross ? "inputs cross" : "inputs do not cross");
    }

    // Every stage wrapped in a segment: the inputs and outputs line up.
    for (const Stage &stage : stages)
      wrapInSegment(stage.ops);
    EXPECT_TRUE(succeeded(verify(*module))) << text;
    inlineAllSegments(func);
    EXPECT_TRUE(succeeded(verify(*module))) << text;
    EXPECT_EQ(func.getBody().front().getOperations().size() - 1, total);
  }
}

} // namespace
