//===- MemorySimulatorTest.cpp - simulated peaks against hand counts ------===//
//
// Small training steps whose live bytes are counted by hand in the comments;
// the simulator and the saved-tensor analysis must agree with the counts.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/MemorySimulator.h"
#include "ckpt/Analysis/SavedTensors.h"
#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace ckpt;

namespace {

class MemorySimulatorTest : public ::testing::Test {
protected:
  MemorySimulatorTest() {
    context.loadDialect<CkptDialect, func::FuncDialect, arith::ArithDialect>();
  }

  func::FuncOp parse(StringRef text) {
    module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module) << "test input does not parse";
    return *module->getOps<func::FuncOp>().begin();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(MemorySimulatorTest, ResultsAndOperandsCoexistThenDeadValuesAreFreed) {
  // p: 16 B (parameter), x: 32 B. exp allocates a (32 B): 80. neg allocates
  // b (32 B) while a is still live: 112, the peak; a dies after neg.
  // Then the unused exp c (32 B) is allocated and freed at once: 16 + 32 +
  // 32 + 32 = 112 again, which does not replace the first peak.
  func::FuncOp func = parse(R"mlir(
    func.func @f(%p: tensor<4xf32> {ckpt.param}, %x: tensor<8xf32>) -> tensor<8xf32> {
      %a = ckpt.exp %x : tensor<8xf32>
      %b = ckpt.neg %a {ckpt.backward} : tensor<8xf32>
      %c = ckpt.exp %x : tensor<8xf32>
      return %b : tensor<8xf32>
    })mlir");
  FailureOr<MemoryPeak> peak = simulateMemory(func);
  ASSERT_TRUE(succeeded(peak));
  EXPECT_EQ(peak->bytes, 112u);
  EXPECT_EQ(peak->op->getName().getStringRef(), "ckpt.neg");
  EXPECT_EQ(peak->getBytes(ValueKind::Parameter), 16u);
  EXPECT_EQ(peak->getBytes(ValueKind::Activation), 64u);
  // b is returned by a backward op: a gradient.
  EXPECT_EQ(peak->getBytes(ValueKind::Gradient), 32u);
  EXPECT_EQ(peak->getBytes(ValueKind::Temporary), 0u);
  EXPECT_EQ(peak->live.size(), 4u);
}

TEST_F(MemorySimulatorTest, ScratchBytesAreLiveWhileTheirOpRuns) {
  // x: 96 B ([8, 3] f32), live throughout. softmax allocates s (96 B) and,
  // while it runs, two statistics per row (2 * 8 * 4 = 64 B): 256, the
  // peak. The scratch is gone when reduce_sum allocates r (32 B) next to s:
  // 224.
  func::FuncOp func = parse(R"mlir(
    func.func @f(%x: tensor<8x3xf32>) -> tensor<8xf32> {
      %s = ckpt.softmax %x dim = 1 : tensor<8x3xf32>
      %r = ckpt.reduce_sum %s dims = [1] : tensor<8x3xf32> -> tensor<8xf32>
      return %r : tensor<8xf32>
    })mlir");
  FailureOr<MemoryPeak> peak = simulateMemory(func);
  ASSERT_TRUE(succeeded(peak));
  EXPECT_EQ(peak->bytes, 256u);
  EXPECT_EQ(peak->op->getName().getStringRef(), "ckpt.softmax");
  EXPECT_EQ(peak->scratchBytes, 64u);
  // The scratch counts as temporaries; the values live are x and s.
  EXPECT_EQ(peak->getBytes(ValueKind::Temporary), 64u);
  EXPECT_EQ(peak->getBytes(ValueKind::Activation), 192u);
  EXPECT_EQ(peak->live.size(), 2u);
  EXPECT_EQ(SmallVector<uint64_t>(peak->timeline),
            (SmallVector<uint64_t>{96, 256, 224}));
}

TEST_F(MemorySimulatorTest, ReshapesAreViewsAndConstantsAreGlobal) {
  // x: 64 B. The constant takes no heap bytes; the reshape is a view of x.
  // mul allocates 64 B: 128 is the peak.
  func::FuncOp func = parse(R"mlir(
    func.func @f(%x: tensor<4x4xf32> {ckpt.param}) -> tensor<16xf32> {
      %c = arith.constant dense<2.0> : tensor<16xf32>
      %r = ckpt.reshape %x : tensor<4x4xf32> -> tensor<16xf32>
      %m = ckpt.mul %r, %c : tensor<16xf32>
      return %m : tensor<16xf32>
    })mlir");
  FailureOr<MemoryPeak> peak = simulateMemory(func);
  ASSERT_TRUE(succeeded(peak));
  EXPECT_EQ(peak->bytes, 128u);
  EXPECT_EQ(peak->getBytes(ValueKind::Constant), 0u);
}

TEST_F(MemorySimulatorTest, RecomputeBodiesRunInlineAndGradientsCanBeLeftOut) {
  // x: 32 B. exp a: 64. neg b while a is live: 96; a dies. The recompute
  // region's exp e (an activation again): x + b + e = 96. mul g (returned,
  // a gradient) while b and e are live: 128, the peak; without the
  // gradient the most is 96.
  func::FuncOp func = parse(R"mlir(
    func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
      %a = ckpt.exp %x : tensor<8xf32>
      %b = ckpt.neg %a : tensor<8xf32>
      %r = ckpt.recompute(%in = %x) : (tensor<8xf32>) -> tensor<8xf32> attributes {ckpt.backward} {
        %e = ckpt.exp %in : tensor<8xf32>
        ckpt.yield %e : tensor<8xf32>
      }
      %g = ckpt.mul %r, %b {ckpt.backward} : tensor<8xf32>
      return %g : tensor<8xf32>
    })mlir");
  FailureOr<MemoryPeak> peak = simulateMemory(func);
  ASSERT_TRUE(succeeded(peak));
  EXPECT_EQ(peak->bytes, 128u);
  EXPECT_EQ(peak->op->getName().getStringRef(), "ckpt.mul");
  EXPECT_EQ(peak->getBytes(ValueKind::Activation), 96u);
  EXPECT_EQ(peak->getBytes(ValueKind::Gradient), 32u);
  EXPECT_EQ(peak->bytesWithoutGradients, 96u);
}

TEST_F(MemorySimulatorTest, MicrobatchesInFlightHoldTheActivationsAtBackward) {
  // p: 16 B (parameter), x: 32 B. exp a: 80. neg b while a is live: 112.
  // reduce_mean l (4 B, returned) while b is live: 116; b dies. When
  // backward starts: x + a + l = 68 B of activations (p is a parameter);
  // the recompute region is backward's, so its e is not among them. e:
  // 116, mul g: 148, the peak. With 3 microbatches in flight, two others
  // hold 68 B each: 284.
  func::FuncOp func = parse(R"mlir(
    func.func @f(%p: tensor<4xf32> {ckpt.param}, %x: tensor<8xf32>)
        -> (tensor<f32>, tensor<8xf32>) {
      %a = ckpt.exp %x : tensor<8xf32>
      %b = ckpt.neg %a : tensor<8xf32>
      %l = ckpt.reduce_mean %b : tensor<8xf32> -> tensor<f32>
      %r = ckpt.recompute(%in = %x) : (tensor<8xf32>) -> tensor<8xf32> attributes {ckpt.backward} {
        %e = ckpt.exp %in : tensor<8xf32>
        ckpt.yield %e : tensor<8xf32>
      }
      %g = ckpt.mul %a, %r {ckpt.backward} : tensor<8xf32>
      return %l, %g : tensor<f32>, tensor<8xf32>
    })mlir");
  FailureOr<MemoryPeak> peak = simulateMemory(func);
  ASSERT_TRUE(succeeded(peak));
  EXPECT_EQ(peak->bytes, 148u);
  EXPECT_EQ(peak->activationBytesAtBackward, 68u);
  EXPECT_EQ(peak->getPeakWithMicrobatches(1), 148u);
  EXPECT_EQ(peak->getPeakWithMicrobatches(3), 284u);

  // A function without backward holds what is live at its end: x and l.
  func = parse(R"mlir(
    func.func @g(%p: tensor<4xf32> {ckpt.param}, %x: tensor<8xf32>) -> tensor<f32> {
      %a = ckpt.exp %x : tensor<8xf32>
      %l = ckpt.reduce_mean %a : tensor<8xf32> -> tensor<f32>
      return %l : tensor<f32>
    })mlir");
  peak = simulateMemory(func);
  ASSERT_TRUE(succeeded(peak));
  EXPECT_EQ(peak->activationBytesAtBackward, 36u);
  EXPECT_EQ(peak->getPeakWithMicrobatches(UINT32_MAX),
            peak->bytes + uint64_t(UINT32_MAX - 1) * 36);
}

TEST_F(MemorySimulatorTest, SegmentBodiesRunInline) {
  // x: 40 B (param). Inside the segment, t = tanh (40 B) and u = exp (40 B)
  // coexist with x: 120, the peak; t dies after exp. The segment's result
  // is u itself (no new bytes), and the sum adds 4 B: 40 + 40 + 4 = 84.
  func::FuncOp func = parse(R"mlir(
    func.func @f(%x: tensor<10xf32> {ckpt.param}) -> tensor<f32> {
      %y = ckpt.checkpoint(%in = %x) : (tensor<10xf32>) -> tensor<10xf32> {
        %t = ckpt.tanh %in : tensor<10xf32>
        %u = ckpt.exp %t : tensor<10xf32>
        ckpt.yield %u : tensor<10xf32>
      }
      %s = ckpt.reduce_sum %y : tensor<10xf32> -> tensor<f32>
      return %s : tensor<f32>
    })mlir");
  FailureOr<MemoryPeak> peak = simulateMemory(func);
  ASSERT_TRUE(succeeded(peak));
  EXPECT_EQ(peak->bytes, 120u);
  EXPECT_EQ(peak->op->getName().getStringRef(), "ckpt.exp");
}

TEST_F(MemorySimulatorTest, UnknownSizesAreErrors) {
  func::FuncOp func = parse(R"mlir(
    func.func @f(%x: tensor<?xf32> {ckpt.param}) -> tensor<?xf32> {
      return %x : tensor<?xf32>
    })mlir");
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(simulateMemory(func)));
  EXPECT_NE(message.find("argument 0 has unknown size in dimension 0"),
            std::string::npos);
}

TEST_F(MemorySimulatorTest, SavedTensorsAreForwardValuesReadByBackward) {
  // Backward reads the argument x (32 B activation), the parameter w
  // (32 B) and e (32 B activation); m is forward-only, the constant is a
  // saved constant (4 B).
  func::FuncOp func = parse(R"mlir(
    func.func @f(%x: tensor<8xf32>, %w: tensor<8xf32> {ckpt.param}) -> tensor<8xf32> {
      %e = ckpt.exp %x : tensor<8xf32>
      %m = ckpt.mul %e, %w : tensor<8xf32>
      %k = arith.constant dense<3.0> : tensor<f32>
      %g1 = ckpt.mul %e, %w {ckpt.backward} : tensor<8xf32>
      %g2 = ckpt.mul %g1, %x {ckpt.backward} : tensor<8xf32>
      %g3 = ckpt.div %g2, %k {ckpt.backward} : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
      %g4 = ckpt.add %g3, %e {ckpt.backward} : tensor<8xf32>
      return %g4 : tensor<8xf32>
    })mlir");
  FailureOr<SavedTensorAnalysis> saved = SavedTensorAnalysis::compute(func);
  ASSERT_TRUE(succeeded(saved));
  ArrayRef<SavedTensor> tensors = saved->getSavedTensors();
  ASSERT_EQ(tensors.size(), 4u);
  EXPECT_EQ(tensors[0].value, func.getArgument(0));
  EXPECT_EQ(tensors[1].value, func.getArgument(1));
  EXPECT_EQ(tensors[2].producer->getName().getStringRef(), "ckpt.exp");
  EXPECT_EQ(tensors[2].consumers.size(), 2u);
  EXPECT_EQ(tensors[3].kind, ValueKind::Constant);
  EXPECT_EQ(saved->getBytes(ValueKind::Activation), 64u);
  EXPECT_EQ(saved->getBytes(ValueKind::Parameter), 32u);
  EXPECT_EQ(saved->getCount(ValueKind::Constant), 1u);
}

TEST_F(MemorySimulatorTest, ASavedTensorAndItsViewTakeOneBuffer) {
  // Backward reads e (32 B) and a reshape of it: two saved tensors, one
  // buffer of 32 B.
  func::FuncOp func = parse(R"mlir(
    func.func @f(%x: tensor<8xf32> {ckpt.param}) -> tensor<2x4xf32> {
      %e = ckpt.exp %x : tensor<8xf32>
      %r = ckpt.reshape %e : tensor<8xf32> -> tensor<2x4xf32>
      %g1 = ckpt.neg %e {ckpt.backward} : tensor<8xf32>
      %g2 = ckpt.reshape %g1 {ckpt.backward} : tensor<8xf32> -> tensor<2x4xf32>
      %g3 = ckpt.mul %g2, %r {ckpt.backward} : tensor<2x4xf32>
      return %g3 : tensor<2x4xf32>
    })mlir");
  FailureOr<SavedTensorAnalysis> saved = SavedTensorAnalysis::compute(func);
  ASSERT_TRUE(succeeded(saved));
  EXPECT_EQ(saved->getCount(ValueKind::Activation), 2u);
  EXPECT_EQ(saved->getBytes(ValueKind::Activation), 32u);
  EXPECT_EQ(saved->getSavedTensors()[1].buffer,
            saved->getSavedTensors()[0].value);
}

} // namespace
