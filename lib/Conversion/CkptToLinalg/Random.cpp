//===- Random.cpp - dropout with Philox4x32-10 in generated code ----------===//
//
// The random state `!ckpt.rng` becomes a `tensor<2xi64>` (seed, base
// counter). Element i of a dropout at static offset o keeps its value when
// the uniform number from lane i % 4 of the Philox4x32-10 block at counter
// base + o + i / 4 (key: the seed) is at least p, exactly as the reference
// stream in ckpt/Runtime/Philox.h defines it. The gradient builds the same
// mask from the same counters.
//
//===----------------------------------------------------------------------===//

#include "DropoutMask.h"

#include "ckpt/Conversion/CkptToLinalg/CkptToLinalg.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <numeric>

using namespace mlir;
using namespace ckpt;

namespace {

/// Philox4x32-10 in arith ops on i32 words.
struct PhiloxBuilder {
  OpBuilder &b;
  Location loc;

  Value i32(uint32_t value) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
  }
  Value i64(int64_t value) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
  }
  Value low(Value word64) {
    return arith::TruncIOp::create(b, loc, b.getI32Type(), word64);
  }
  Value high(Value word64) {
    return low(arith::ShRUIOp::create(b, loc, word64, i64(32)));
  }
  Value bitXor(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }

  /// The four words of the block at `counter` (i64) under `seed` (i64).
  std::array<Value, 4> block(Value counter, Value seed) {
    std::array<Value, 4> ctr = {low(counter), high(counter), i32(0), i32(0)};
    std::array<Value, 2> key = {low(seed), high(seed)};
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        key[0] = arith::AddIOp::create(b, loc, key[0], i32(0x9E3779B9));
        key[1] = arith::AddIOp::create(b, loc, key[1], i32(0xBB67AE85));
      }
      auto p0 = arith::MulUIExtendedOp::create(b, loc, i32(0xD2511F53), ctr[0]);
      auto p1 = arith::MulUIExtendedOp::create(b, loc, i32(0xCD9E8D57), ctr[2]);
      ctr = {bitXor(bitXor(p1.getHigh(), ctr[1]), key[0]), p1.getLow(),
             bitXor(bitXor(p0.getHigh(), ctr[3]), key[1]), p0.getLow()};
    }
    return ctr;
  }
};

/// result = keep(i) ? input * 1 / (1 - p) : 0, keep(i) = uniform(i) >= p,
/// for the state `state` (tensor<2xi64>) and the op's offset.
Value buildDropout(OpBuilder &b, Location loc, Value input, Value state,
                   int64_t offset, double p) {
  // Nothing is dropped, so no mask is drawn (and no state is needed).
  if (p == 0.0)
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  RandomState random = RandomState::extract(b, loc, state);
  SmallVector<unsigned> dims(type.getRank());
  std::iota(dims.begin(), dims.end(), 0);
  return buildMap(b, loc, type, input, [&](ScalarBuilder &s, ValueRange x) {
    Value position = rowMajorPosition(s.b, s.loc, type.getShape(), dims);
    return applyDropout(s, random, offset, p, position, x[0]);
  });
}

struct LowerDropout : OpConversionPattern<DropoutOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double p = op.getP().convertToDouble();
    if (p != 0.0 && !adaptor.getRng())
      return rewriter.notifyMatchFailure(
          op, "draws from the implicit generator; run ckpt-thread-rng");
    rewriter.replaceOp(op, buildDropout(rewriter, op.getLoc(),
                                        adaptor.getInput(), adaptor.getRng(),
                                        op.getOffset().value_or(0), p));
    return success();
  }
};

struct LowerDropoutGrad : OpConversionPattern<DropoutGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DropoutGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildDropout(rewriter, op.getLoc(),
                                        adaptor.getGrad(), adaptor.getRng(),
                                        op.getOffset(),
                                        op.getP().convertToDouble()));
    return success();
  }
};

/// (seed, base) -> (seed, base + counters).
struct LowerRngAdvance : OpConversionPattern<RngAdvanceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RngAdvanceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value base = tensor::ExtractOp::create(rewriter, loc, adaptor.getState(),
                                           ValueRange{one});
    Value counters = arith::ConstantOp::create(
        rewriter, loc, rewriter.getI64IntegerAttr(op.getCounters()));
    Value advanced = arith::AddIOp::create(rewriter, loc, base, counters);
    rewriter.replaceOp(op, tensor::InsertOp::create(rewriter, loc, advanced,
                                                    adaptor.getState(),
                                                    ValueRange{one}));
    return success();
  }
};

} // namespace

RandomState RandomState::extract(OpBuilder &b, Location loc, Value state) {
  auto extract = [&](int64_t i) -> Value {
    Value index = arith::ConstantIndexOp::create(b, loc, i);
    return tensor::ExtractOp::create(b, loc, state, ValueRange{index});
  };
  return {extract(0), extract(1)};
}

Value ckpt::rowMajorPosition(OpBuilder &b, Location loc,
                             ArrayRef<int64_t> shape, ArrayRef<unsigned> dims) {
  PhiloxBuilder philox{b, loc};
  Value position = philox.i64(0);
  int64_t stride = 1;
  for (int64_t k = static_cast<int64_t>(shape.size()) - 1; k >= 0; --k) {
    Value index = arith::IndexCastOp::create(
        b, loc, b.getI64Type(), linalg::IndexOp::create(b, loc, dims[k]));
    position = arith::AddIOp::create(
        b, loc, position,
        arith::MulIOp::create(b, loc, index, philox.i64(stride)));
    stride *= shape[k];
  }
  return position;
}

Value ckpt::applyDropout(ScalarBuilder &s, RandomState state, int64_t offset,
                          double p, Value position, Value x) {
  PhiloxBuilder philox{s.b, s.loc};
  Value counter = arith::AddIOp::create(
      s.b, s.loc,
      arith::AddIOp::create(s.b, s.loc, state.base, philox.i64(offset)),
      arith::ShRUIOp::create(s.b, s.loc, position, philox.i64(2)));
  Value lane = arith::AndIOp::create(s.b, s.loc, position, philox.i64(3));
  std::array<Value, 4> words = philox.block(counter, state.seed);
  Value word = words[3];
  for (int k = 2; k >= 0; --k) {
    Value isLane = arith::CmpIOp::create(s.b, s.loc, arith::CmpIPredicate::eq,
                                         lane, philox.i64(k));
    word = arith::SelectOp::create(s.b, s.loc, isLane, words[k], word);
  }
  // The top 24 bits over 2^24, exact in f32 and f64.
  Value top = arith::ShRUIOp::create(s.b, s.loc, word, philox.i32(8));
  Value uniform = s.mul(arith::UIToFPOp::create(s.b, s.loc, s.type, top),
                        s.constant(1.0 / 16777216.0));
  Value keep = arith::CmpFOp::create(s.b, s.loc, arith::CmpFPredicate::OGE,
                                     uniform, s.constant(p));
  return s.select(keep, s.mul(x, s.constant(1.0 / (1.0 - p))),
                  s.constant(0.0));
}

void ckpt::populateRandomToLinalgPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<LowerDropout, LowerDropoutGrad, LowerRngAdvance>(
      converter, patterns.getContext());
}

void ckpt::addRandomStateConversion(TypeConverter &converter) {
  converter.addConversion([](RngType type) -> Type {
    return RankedTensorType::get({2}, IntegerType::get(type.getContext(), 64));
  });
}
