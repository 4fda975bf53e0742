//===- OutlineLoops.cpp - each top-level loop a function of its own -------===//
//
// Moves every loop at the top level of a function into a private function
// of its own, called where the loop stood with the values it reads from
// outside. A step of thousands of loops in one function compiled in time
// quadratic in its length: OpenMP's translation outlines each parallel
// region with an analysis of the whole function, and LLVM's induction
// variable simplification walks back through every loop before. Parallel
// loops too short to repay waking the threads become sequential first.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/RegionUtils.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTOUTLINELOOPSPASS
#include "ckpt/Conversion/Passes.h.inc"
} // namespace ckpt

using namespace mlir;

namespace {

struct CkptOutlineLoopsPass
    : public ckpt::impl::CkptOutlineLoopsPassBase<CkptOutlineLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp function : functions) {
      if (function.isExternal())
        continue;
      SmallVector<Operation *> loops;
      for (Block &block : function.getBody())
        for (Operation &op : block)
          if (isa<scf::ParallelOp, scf::ForOp>(op) && op.getNumResults() == 0)
            loops.push_back(&op);
      for (auto [index, loop] : llvm::enumerate(loops)) {
        // Inner loops first (post-order), as splitting one clones its body.
        SmallVector<scf::ParallelOp> parallels;
        loop->walk(
            [&](scf::ParallelOp parallel) { parallels.push_back(parallel); });
        for (scf::ParallelOp parallel : parallels) {
          std::optional<int64_t> iterations = getIterations(parallel);
          unsigned dims = iterations && *iterations < minParallelIterations
                              ? 0
                              : getParallelDims(parallel);
          if (dims < parallel.getNumLoops()) {
            Operation *split = splitDims(parallel, dims);
            if (parallel == loop)
              loop = split;
          }
        }
        outline(loop, function, index, symbols);
      }
    }
  }

  /// The static trip count of a loop with constant bounds.
  static std::optional<int64_t> getTripCount(Value lower, Value upper,
                                             Value step) {
    std::optional<int64_t> lo = getConstantIntValue(lower),
                           hi = getConstantIntValue(upper),
                           by = getConstantIntValue(step);
    if (!lo || !hi || !by || *by <= 0)
      return std::nullopt;
    return std::max<int64_t>(0, (*hi - *lo + *by - 1) / *by);
  }

  /// The loop's iterations times those of the sequential loops inside it
  /// (a reduction's), if all bounds are constants.
  static std::optional<int64_t> getIterations(scf::ParallelOp loop) {
    int64_t iterations = 1;
    for (auto [lower, upper, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      std::optional<int64_t> count = getTripCount(lower, upper, step);
      if (!count)
        return std::nullopt;
      iterations *= *count;
    }
    WalkResult walk = loop.walk([&](scf::ForOp inner) {
      std::optional<int64_t> count = getTripCount(
          inner.getLowerBound(), inner.getUpperBound(), inner.getStep());
      if (!count)
        return WalkResult::interrupt();
      iterations *= *count;
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return std::nullopt;
    return iterations;
  }

  /// How many outer dimensions of `loop` stay parallel: the fewest whose
  /// iterations number `parallelChunks`, or up to one of unknown extent.
  unsigned getParallelDims(scf::ParallelOp loop) const {
    int64_t chunks = 1;
    unsigned dims = 0;
    for (auto [lower, upper, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      ++dims;
      std::optional<int64_t> count = getTripCount(lower, upper, step);
      if (!count || (chunks *= *count) >= parallelChunks)
        break;
    }
    return dims;
  }

  /// Replaces `loop` by a parallel loop over its first `parallelDims`
  /// dimensions (none for 0) around a nest of scf.for over the others, in
  /// order; returns the outermost loop.
  static Operation *splitDims(scf::ParallelOp loop, unsigned parallelDims) {
    OpBuilder builder(loop);
    Location loc = loop->getLoc();
    IRMapping mapping;
    Operation *outermost = nullptr;
    SmallVector<Value> indices = loop.getInductionVars();
    if (parallelDims > 0) {
      auto outer = scf::ParallelOp::create(
          builder, loc, loop.getLowerBound().take_front(parallelDims),
          loop.getUpperBound().take_front(parallelDims),
          loop.getStep().take_front(parallelDims));
      outermost = outer;
      mapping.map(ArrayRef(indices).take_front(parallelDims),
                  outer.getInductionVars());
      builder.setInsertionPointToStart(outer.getBody());
    }
    for (auto [lower, upper, step, index] :
         llvm::drop_begin(llvm::zip(loop.getLowerBound(), loop.getUpperBound(),
                                    loop.getStep(), indices),
                          parallelDims)) {
      auto nested = scf::ForOp::create(builder, loc, lower, upper, step);
      if (!outermost)
        outermost = nested;
      mapping.map(index, nested.getInductionVar());
      builder.setInsertionPointToStart(nested.getBody());
    }
    for (Operation &op : loop.getBody()->without_terminator())
      builder.clone(op, mapping);
    loop.erase();
    return outermost;
  }

  void outline(Operation *loop, func::FuncOp parent, size_t index,
               SymbolTable &symbols) {
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(loop->getRegions(), captured);
    for (Value bound : loop->getOperands())
      captured.insert(bound);
    // Constants are cloned into the function, where they fold.
    SmallVector<Operation *> constants;
    SmallVector<Value> arguments;
    for (Value value : captured) {
      Operation *producer = value.getDefiningOp();
      if (producer && producer->hasTrait<OpTrait::ConstantLike>())
        constants.push_back(producer);
      else
        arguments.push_back(value);
    }
    OpBuilder builder(parent);
    auto type = builder.getFunctionType(ValueRange(arguments).getTypes(), {});
    auto function = func::FuncOp::create(
        builder, loop->getLoc(),
        (parent.getName() + "_loop" + Twine(index)).str(), type);
    function.setPrivate();
    // For the LLVM function: inlined back, the loops would make the step
    // one function again; internal, the JIT wraps no entry point for it.
    function->setAttr("passthrough",
                      builder.getArrayAttr(builder.getStringAttr("noinline")));
    function->setAttr(
        "llvm.linkage",
        LLVM::LinkageAttr::get(builder.getContext(), LLVM::Linkage::Internal));
    symbols.insert(function);
    Block *body = function.addEntryBlock();
    builder.setInsertionPointToStart(body);
    IRMapping mapping;
    for (Operation *constant : constants)
      builder.clone(*constant, mapping);
    for (auto [value, argument] : llvm::zip(arguments, body->getArguments()))
      mapping.map(value, argument);
    builder.clone(*loop, mapping);
    func::ReturnOp::create(builder, loop->getLoc());
    builder.setInsertionPoint(loop);
    func::CallOp::create(builder, loop->getLoc(), function, arguments);
    loop->erase();
  }
};

} // namespace
