//===- OpIlpTest.cpp - the op-level program against brute force ----------===//
//
// On small training steps (attention, dropout, skip connections, batch
// norm, ops that may not be recomputed, a multi-result norm and a view),
// every plan of the op-level space (each saved buffer kept, or brought back
// at one of its sites) is materialised and simulated; at every
// budget that some plan's peak meets (and just below the smallest), the
// program must find the fewest recompute FLOPs of the plans that fit, prove
// it, and the plan it returns must simulate within the budget; the same
// with three microbatches in flight. Plans also round-trip through the
// step's marks unchanged, and the peak with microbatches in flight is the
// simulated peak of the pipeline's own program (N forwards, then the first
// backward, the others' saved tensors held to the end).
//
//===----------------------------------------------------------------------===//

#include "RandomChains.h"

#include "ckpt/Planner/OpIlp.h"

#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace mlir;
using namespace ckpt;

namespace {

struct Case {
  const char *name;
  const char *forward;
};

const Case kCases[] = {
    {"attention", R"mlir(
func.func @f(%x: tensor<64x16xf32>, %wq: tensor<16x16xf32> {ckpt.param},
             %wk: tensor<16x16xf32> {ckpt.param},
             %wv: tensor<16x16xf32> {ckpt.param}) -> tensor<f32> {
  %q = ckpt.linear %x, %wq : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %k = ckpt.linear %x, %wk : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %v = ckpt.linear %x, %wv : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %kt = ckpt.transpose %k permutation = [1, 0] : tensor<64x16xf32> -> tensor<16x64xf32>
  %s = ckpt.matmul %q, %kt : (tensor<64x16xf32>, tensor<16x64xf32>) -> tensor<64x64xf32>
  %p = ckpt.softmax %s dim = 1 : tensor<64x64xf32>
  %o = ckpt.matmul %p, %v : (tensor<64x64xf32>, tensor<64x16xf32>) -> tensor<64x16xf32>
  %r = ckpt.add %o, %x : tensor<64x16xf32>
  %t = ckpt.tanh %r : tensor<64x16xf32>
  %l = ckpt.reduce_mean %t : tensor<64x16xf32> -> tensor<f32>
  return %l : tensor<f32>
})mlir"},
    {"dropout-skip", R"mlir(
func.func @f(%x: tensor<16x32xf32>, %w1: tensor<32x32xf32> {ckpt.param},
             %w2: tensor<32x32xf32> {ckpt.param}) -> tensor<f32> {
  %h = ckpt.linear %x, %w1 : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
  %g = ckpt.gelu %h : tensor<16x32xf32>
  %d = ckpt.dropout %g p = 0.25 : tensor<16x32xf32>
  %o = ckpt.linear %d, %w2 : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
  %r = ckpt.add %o, %h : tensor<16x32xf32>
  %e = ckpt.exp %r : tensor<16x32xf32>
  %t = ckpt.tanh %e : tensor<16x32xf32>
  %m = ckpt.mul %t, %g : tensor<16x32xf32>
  %l = ckpt.reduce_mean %m : tensor<16x32xf32> -> tensor<f32>
  return %l : tensor<f32>
})mlir"},
    {"batch-norm", R"mlir(
func.func @f(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32> {ckpt.param},
             %g: tensor<4xf32> {ckpt.param}, %b: tensor<4xf32> {ckpt.param},
             %rm: tensor<4xf32>, %rv: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %c = ckpt.conv2d %x, %w padding = [1, 1]
      : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %n:3 = ckpt.batch_norm %c weight %g bias %b
      : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
  %r:2 = ckpt.batch_norm_update_stats %c, %n#1 running_mean %rm running_var %rv
      : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<4xf32>, tensor<4xf32>)
  %a = ckpt.relu %n#0 : tensor<2x4x8x8xf32>
  %s = ckpt.sigmoid %a : tensor<2x4x8x8xf32>
  %m = ckpt.mul %s, %c : tensor<2x4x8x8xf32>
  %l = ckpt.reduce_mean %m : tensor<2x4x8x8xf32> -> tensor<f32>
  return %l, %r#0, %r#1 : tensor<f32>, tensor<4xf32>, tensor<4xf32>
})mlir"},
    {"collective", R"mlir(
func.func @f(%x: tensor<16x32xf32>, %w1: tensor<32x32xf32> {ckpt.param},
             %w2: tensor<32x32xf32> {ckpt.param}) -> tensor<f32> {
  %a = ckpt.all_reduce %x reduction = mean : tensor<16x32xf32>
  %h = ckpt.linear %a, %w1 : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
  %t = ckpt.tanh %h : tensor<16x32xf32>
  ckpt.print %t prefix = "hidden" : tensor<16x32xf32>
  %s = ckpt.sigmoid %t : tensor<16x32xf32>
  %o = ckpt.linear %s, %w2 : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
  %u = ckpt.tanh %o : tensor<16x32xf32>
  %l = ckpt.reduce_mean %u : tensor<16x32xf32> -> tensor<f32>
  return %l : tensor<f32>
})mlir"},
    {"norm-results", R"mlir(
func.func @f(%x: tensor<8x16xf32>, %g: tensor<16xf32> {ckpt.param},
             %w: tensor<16x16xf32> {ckpt.param}) -> tensor<f32> {
  %y, %rstd = ckpt.rms_norm %x weight %g normalized_shape = [16] eps = 1.000000e-05
      : (tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>)
  %h = ckpt.linear %y, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %r = ckpt.reshape %h : tensor<8x16xf32> -> tensor<4x32xf32>
  %t = ckpt.tanh %r : tensor<4x32xf32>
  %s = ckpt.sigmoid %t : tensor<4x32xf32>
  %l = ckpt.reduce_mean %s : tensor<4x32xf32> -> tensor<f32>
  return %l : tensor<f32>
})mlir"},
};

class OpIlpTest : public ::testing::TestWithParam<Case> {
protected:
  void SetUp() override {
    context.loadDialect<CkptDialect, func::FuncDialect, arith::ArithDialect>();
    module = buildTrainingStep(context, GetParam().forward);
    ASSERT_TRUE(module);
    step = *module->getOps<func::FuncOp>().begin();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp step;
};

/// The plans of a space with at most this many are enumerated.
constexpr uint64_t kMaxEnumerated = 20000;

/// Every plan of `space`: each candidate kept or brought back at one of its
/// sites; none when there are more than kMaxEnumerated.
std::optional<std::vector<OpPlanSpace::Choice>>
enumerateChoices(const OpPlanSpace &space) {
  ArrayRef<OpPlanSpace::Candidate> candidates = space.getCandidates();
  uint64_t total = 1;
  for (const OpPlanSpace::Candidate &candidate : candidates) {
    total *= candidate.sites.size() + 1;
    if (total > kMaxEnumerated)
      return std::nullopt;
  }
  std::vector<OpPlanSpace::Choice> choices;
  for (uint64_t index = 0; index < total; ++index) {
    OpPlanSpace::Choice choice;
    uint64_t rest = index;
    for (const OpPlanSpace::Candidate &candidate : candidates) {
      size_t way = rest % (candidate.sites.size() + 1);
      rest /= candidate.sites.size() + 1;
      choice.push_back(way == 0 ? -1 : candidate.sites[way - 1]);
    }
    choices.push_back(std::move(choice));
  }
  return choices;
}

/// Every plan of `step`'s space simulated, against the program at every
/// budget some plan's peak (with `microbatches` in flight) meets, just
/// below the smallest, and without one. Returns how many distinct peaks
/// the plans have; none when the space has too many plans to enumerate.
std::optional<size_t> checkAgainstBruteForce(func::FuncOp step,
                                             const std::string &what,
                                             unsigned microbatches = 1) {
  std::optional<size_t> peaks;
  [&] {
    FailureOr<std::unique_ptr<OpPlanSpace>> space = OpPlanSpace::build(step);
    ASSERT_TRUE(succeeded(space));
    std::optional<std::vector<OpPlanSpace::Choice>> choices =
        enumerateChoices(**space);
    if (!choices)
      return;

    // Every plan of the space, simulated: the fewest FLOPs at each peak.
    std::map<int64_t, uint64_t> cheapestAt;
    for (const OpPlanSpace::Choice &choice : *choices) {
      FailureOr<PlanEvaluation> evaluated =
          evaluateOpPlan(step, (*space)->getPlan(choice));
      ASSERT_TRUE(succeeded(evaluated));
      int64_t peak = static_cast<int64_t>(
          evaluated->peak.getPeakWithMicrobatches(microbatches));
      uint64_t flops = evaluated->cost.recompute.flops;
      auto [it, inserted] = cheapestAt.try_emplace(peak, flops);
      if (!inserted)
        it->second = std::min(it->second, flops);
    }

    const IlpLimits limits{/*seconds=*/60, /*nodes=*/0, /*dpPresolve=*/false};
    std::optional<uint64_t> best;
    for (auto &[peak, flops] : cheapestAt) {
      best = best ? std::min(*best, flops) : flops;
      OpIlpResult solved =
          findOpPlanIlp(step, **space, peak, limits, microbatches);
      ASSERT_TRUE(solved.choice) << what << ", budget " << peak;
      EXPECT_TRUE(solved.optimal) << what << ", budget " << peak;
      EXPECT_EQ(solved.flops, *best) << what << ", budget " << peak;
      EXPECT_LE(solved.peak, peak) << what << ", budget " << peak;
      EXPECT_EQ(solved.misses, 0u) << what << ", budget " << peak;
      FailureOr<PlanEvaluation> again =
          evaluateOpPlan(step, (*space)->getPlan(*solved.choice));
      ASSERT_TRUE(succeeded(again));
      EXPECT_EQ(static_cast<int64_t>(
                    again->peak.getPeakWithMicrobatches(microbatches)),
                solved.peak);
    }
    int64_t lowest = cheapestAt.begin()->first;
    OpIlpResult none =
        findOpPlanIlp(step, **space, lowest - 1, limits, microbatches);
    EXPECT_FALSE(none.choice) << what;
    EXPECT_TRUE(none.optimal) << what;
    OpIlpResult smallest =
        findOpPlanIlp(step, **space, std::nullopt, limits, microbatches);
    ASSERT_TRUE(smallest.choice) << what;
    EXPECT_EQ(smallest.peak, lowest) << what;
    EXPECT_EQ(smallest.flops, cheapestAt.begin()->second) << what;
    peaks = cheapestAt.size();
  }();
  return peaks;
}

TEST_P(OpIlpTest, FindsTheBruteForceOptimumAtEveryBudget) {
  // Recomputing must lower the peak somewhere, or the test proves little.
  std::optional<size_t> peaks = checkAgainstBruteForce(step, GetParam().name);
  ASSERT_TRUE(peaks) << "too many plans to enumerate";
  EXPECT_GE(*peaks, 2u);
}

TEST_P(OpIlpTest, FindsTheBruteForceOptimumWithMicrobatchesInFlight) {
  std::optional<size_t> peaks =
      checkAgainstBruteForce(step, GetParam().name, /*microbatches=*/3);
  ASSERT_TRUE(peaks) << "too many plans to enumerate";
  EXPECT_GE(*peaks, 2u);
}

/// What a pipeline stage runs with `microbatches` in flight (1F1B), as one
/// function of the materialised step `step`: the forward of each
/// microbatch (each with its own inputs, the parameters shared), then the
/// first one's backward; the others' forward values that their backward
/// (or the step's return) would read are returned, so they stay live to
/// the end as they wait for their backward.
OwningOpRef<func::FuncOp> buildInFlightProgram(func::FuncOp step,
                                               unsigned microbatches) {
  MLIRContext *context = step.getContext();
  Block &entry = step.getBody().front();
  auto isBackward = [](Operation &op) {
    return isa<RecomputeOp>(op) || isBackwardOp(&op) ||
           op.hasTrait<OpTrait::IsTerminator>();
  };
  Operation *backwardStart = &*llvm::find_if(entry, isBackward);
  auto readAfterForward = [&](Value value) {
    return llvm::any_of(value.getUsers(), [&](Operation *user) {
      Operation *top = entry.findAncestorOpInBlock(*user);
      return top == backwardStart || backwardStart->isBeforeInBlock(top);
    });
  };

  OwningOpRef<func::FuncOp> program = func::FuncOp::create(
      step.getLoc(), "in_flight", FunctionType::get(context, {}, {}));
  Block *body = program->addEntryBlock();
  std::vector<IRMapping> copies(microbatches);
  SmallVector<bool> parameters;
  for (BlockArgument arg : entry.getArguments()) {
    bool parameter = static_cast<bool>(
        step.getArgAttr(arg.getArgNumber(), CkptDialect::kParamAttrName));
    for (unsigned copy = 0; copy < microbatches; ++copy) {
      if (parameter && copy > 0) {
        copies[copy].map(arg, copies[0].lookup(arg));
        continue;
      }
      copies[copy].map(arg, body->addArgument(arg.getType(), arg.getLoc()));
      parameters.push_back(parameter);
    }
  }
  OpBuilder builder = OpBuilder::atBlockEnd(body);
  SmallVector<Value> returned;
  for (unsigned copy = 0; copy < microbatches; ++copy)
    for (Operation &op : llvm::make_range(entry.begin(),
                                          backwardStart->getIterator())) {
      Operation *cloned = builder.clone(op, copies[copy]);
      if (copy > 0)
        for (auto [result, clonedResult] :
             llvm::zip_equal(op.getResults(), cloned->getResults()))
          if (readAfterForward(result))
            returned.push_back(clonedResult);
    }
  for (Operation &op : llvm::make_range(backwardStart->getIterator(),
                                        std::prev(entry.end())))
    builder.clone(op, copies[0]);
  for (Value value : entry.getTerminator()->getOperands())
    returned.push_back(copies[0].lookupOrDefault(value));
  func::ReturnOp::create(builder, step.getLoc(), returned);
  program->setType(FunctionType::get(context, body->getArgumentTypes(),
                                     ValueRange(returned).getTypes()));
  for (auto [index, parameter] : llvm::enumerate(parameters))
    if (parameter)
      program->setArgAttr(index, CkptDialect::kParamAttrName,
                          UnitAttr::get(context));
  return program;
}

/// Four plans of `space`: everything kept; everything back at its first
/// reader, or at its earliest site; every other candidate at its earliest
/// site.
std::vector<OpPlanSpace::Choice> sampleChoices(const OpPlanSpace &space) {
  std::vector<OpPlanSpace::Choice> choices(4);
  for (auto [index, candidate] : llvm::enumerate(space.getCandidates())) {
    choices[0].push_back(-1);
    choices[1].push_back(candidate.sites.back());
    choices[2].push_back(candidate.sites.front());
    choices[3].push_back(index % 2 ? -1 : candidate.sites.front());
  }
  return choices;
}

TEST_P(OpIlpTest, PeakWithMicrobatchesIsThePipelinedProgramsPeak) {
  FailureOr<std::unique_ptr<OpPlanSpace>> space = OpPlanSpace::build(step);
  ASSERT_TRUE(succeeded(space));
  std::set<uint64_t> held;
  for (const OpPlanSpace::Choice &choice : sampleChoices(**space)) {
    OwningOpRef<func::FuncOp> planned = step.clone();
    FailureOr<std::unique_ptr<OpPlanSpace>> copySpace =
        OpPlanSpace::build(*planned);
    ASSERT_TRUE(succeeded(copySpace));
    materializeOpPlan(*planned, (*copySpace)->getPlan(choice));
    FailureOr<MemoryPeak> one = simulateMemory(*planned);
    ASSERT_TRUE(succeeded(one));
    EXPECT_EQ(one->getPeakWithMicrobatches(1), one->bytes);
    held.insert(one->activationBytesAtBackward);
    for (unsigned microbatches : {2u, 3u, 5u}) {
      OwningOpRef<func::FuncOp> program =
          buildInFlightProgram(*planned, microbatches);
      FailureOr<MemoryPeak> pipelined = simulateMemory(*program);
      ASSERT_TRUE(succeeded(pipelined));
      EXPECT_EQ(one->getPeakWithMicrobatches(microbatches), pipelined->bytes)
          << microbatches << " microbatches";
    }
  }
  // Dropping saved tensors lowers what each microbatch holds.
  EXPECT_GE(held.size(), 2u);
}

TEST(OpIlpRandomTest, FindsTheBruteForceOptimumOfRandomSkipSteps) {
  MLIRContext context;
  context.loadDialect<CkptDialect, func::FuncDialect, arith::ArithDialect>();
  std::mt19937_64 rng(2028);
  size_t enumerated = 0, varied = 0;
  for (int trial = 0; trial < 16; ++trial) {
    std::string text = randomDagStep(rng, 4 + trial % 7);
    OwningOpRef<ModuleOp> module = buildTrainingStep(context, text);
    ASSERT_TRUE(module) << text;
    // Every third step with three microbatches in flight.
    std::optional<size_t> peaks =
        checkAgainstBruteForce(*module->getOps<func::FuncOp>().begin(), text,
                               trial % 3 == 2 ? 3 : 1);
    enumerated += peaks.has_value();
    varied += peaks && *peaks > 1;
  }
  EXPECT_GE(enumerated, 12u);
  EXPECT_GE(varied, 8u);
}

TEST_P(OpIlpTest, PlansRoundTripThroughMarks) {
  FailureOr<std::unique_ptr<OpPlanSpace>> space = OpPlanSpace::build(step);
  ASSERT_TRUE(succeeded(space));
  for (const OpPlanSpace::Choice &choice : sampleChoices(**space)) {
    OpPlan plan = (*space)->getPlan(choice);
    FailureOr<PlanEvaluation> direct = evaluateOpPlan(step, plan);
    ASSERT_TRUE(succeeded(direct));
    OwningOpRef<func::FuncOp> marked = step.clone();
    FailureOr<std::unique_ptr<OpPlanSpace>> copySpace =
        OpPlanSpace::build(*marked);
    ASSERT_TRUE(succeeded(copySpace));
    writeOpPlan(*marked, (*copySpace)->getPlan(choice));
    FailureOr<PlanEvaluation> read = evaluatePlan(*marked);
    ASSERT_TRUE(succeeded(read));
    EXPECT_EQ(read->peak.bytes, direct->peak.bytes);
    EXPECT_EQ(read->peak.timeline, direct->peak.timeline);
    EXPECT_EQ(read->cost.recompute.flops, direct->cost.recompute.flops);
  }
}

INSTANTIATE_TEST_SUITE_P(Steps, OpIlpTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           std::string name = info.param.name;
                           llvm::erase(name, '-');
                           return name;
                         });

} // namespace
