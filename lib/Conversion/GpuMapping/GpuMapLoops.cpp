//===- GpuMapLoops.cpp - loops of a bufferized step -> GPU blocks/threads -===//
//
// Rewrites the top level of a bufferized, loop-level function so that every
// memory access sits in a parallel loop mapped to GPU blocks and threads
// (what convert-parallel-loops-to-gpu turns into kernels); the host keeps
// only allocation, deallocation, views, launches, calls, and the loops
// around calls (a convolution's loop over images), mapped the same way.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Conversion/Passes.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <numeric>

namespace ckpt {
#define GEN_PASS_DEF_CKPTGPUMAPLOOPSPASS
#include "ckpt/Conversion/Passes.h.inc"
} // namespace ckpt

using namespace mlir;

namespace {

/// Whether `op` may stay on the host: it touches no buffer's contents.
bool isHostOp(Operation *op) {
  // Calls (ckpt-gemm-to-calls' GEMMs) launch their own device work.
  if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
          memref::GetGlobalOp, func::ReturnOp, func::CallOp,
          ViewLikeOpInterface>(op))
    return true;
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

gpu::ParallelLoopDimMappingAttr mapTo(MLIRContext *context,
                                      gpu::Processor processor) {
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
  return gpu::ParallelLoopDimMappingAttr::get(context, processor, identity,
                                              identity);
}

/// An empty `for %block in [0, blocks) { for %thread in [0, threads) }`
/// nest mapped to block x and thread x, at the builder's insertion point;
/// returns the inner loop.
scf::ParallelOp buildKernelNest(OpBuilder &builder, Location loc,
                                int64_t blocks, int64_t threads) {
  MLIRContext *context = builder.getContext();
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  auto outer = scf::ParallelOp::create(
      builder, loc, ValueRange{zero},
      ValueRange{arith::ConstantIndexOp::create(builder, loc, blocks)},
      ValueRange{one});
  (void)gpu::setMappingAttr(outer, {mapTo(context, gpu::Processor::BlockX)});
  builder.setInsertionPointToStart(outer.getBody());
  auto inner = scf::ParallelOp::create(
      builder, loc, ValueRange{zero},
      ValueRange{arith::ConstantIndexOp::create(builder, loc, threads)},
      ValueRange{one});
  (void)gpu::setMappingAttr(inner, {mapTo(context, gpu::Processor::ThreadX)});
  return inner;
}

/// Moves the body of `loop` (but its terminator) to the end of `block`,
/// before its terminator, with `indices` for the induction variables, and
/// erases the loop.
void inlineLoopBody(scf::ParallelOp loop, Block *block, ValueRange indices) {
  Block *body = loop.getBody();
  body->getTerminator()->erase();
  block->getOperations().splice(std::prev(block->end()), body->getOperations());
  for (auto [argument, index] : llvm::zip(body->getArguments(), indices))
    argument.replaceAllUsesWith(index);
  loop.erase();
}

/// The static trip counts of `loop`, or failure with an error.
FailureOr<SmallVector<int64_t>> getTripCounts(scf::ParallelOp loop) {
  SmallVector<int64_t> counts;
  for (auto [lower, upper, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> lb = getConstantIntValue(lower);
    std::optional<int64_t> ub = getConstantIntValue(upper);
    std::optional<int64_t> st = getConstantIntValue(step);
    if (!lb || !ub || !st || *st <= 0)
      return loop.emitError("cannot map a loop with dynamic bounds to the "
                            "GPU: shapes must be static");
    counts.push_back(*ub > *lb ? (*ub - *lb + *st - 1) / *st : 0);
  }
  return counts;
}

/// A multiplier that permutes [0, total) by i -> i * m mod total: coprime
/// to total, near 5/8 of it, so neighbouring threads run far-apart
/// iterations.
int64_t getPermutingMultiplier(int64_t total) {
  for (int64_t m = (total * 5 + 7) / 8;; ++m)
    if (std::gcd(m, total) == 1)
      return m;
}

/// Replaces `loop` by a flat index space in blocks of `threads` threads:
/// thread (b, t) runs the iteration with linear index b * threads + t, if
/// below the trip count; with `permute`, that index times a multiplier
/// coprime to the trip count, modulo it.
LogicalResult flattenAndMap(scf::ParallelOp loop, int64_t threads,
                            bool permute) {
  FailureOr<SmallVector<int64_t>> counts = getTripCounts(loop);
  if (failed(counts))
    return failure();
  int64_t total = 1;
  for (int64_t count : *counts)
    total *= count;
  Location loc = loop.getLoc();
  OpBuilder builder(loop);
  if (total == 0) {
    loop.erase();
    return success();
  }
  int64_t perBlock = std::min(threads, total);
  scf::ParallelOp inner = buildKernelNest(
      builder, loc, (total + perBlock - 1) / perBlock, perBlock);
  auto outer = cast<scf::ParallelOp>(inner->getParentOp());
  builder.setInsertionPointToStart(inner.getBody());
  Value linear = arith::AddIOp::create(
      builder, loc,
      arith::MulIOp::create(
          builder, loc, outer.getInductionVars()[0],
          arith::ConstantIndexOp::create(builder, loc, perBlock)),
      inner.getInductionVars()[0]);
  Value inRange = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::ult, linear,
      arith::ConstantIndexOp::create(builder, loc, total));
  auto guard = scf::IfOp::create(builder, loc, inRange);
  builder.setInsertionPointToStart(&guard.getThenRegion().front());
  if (permute && total > 1)
    linear = arith::RemUIOp::create(
        builder, loc,
        arith::MulIOp::create(builder, loc, linear,
                              arith::ConstantIndexOp::create(
                                  builder, loc, getPermutingMultiplier(total))),
        arith::ConstantIndexOp::create(builder, loc, total));
  // Row-major: the last dimension varies fastest, so neighbouring threads
  // touch neighbouring elements.
  SmallVector<Value> indices(counts->size());
  Value rest = linear;
  for (int64_t dim = counts->size() - 1; dim >= 0; --dim) {
    Value count = arith::ConstantIndexOp::create(builder, loc, (*counts)[dim]);
    Value index =
        dim == 0 ? rest : arith::RemUIOp::create(builder, loc, rest, count);
    if (dim != 0)
      rest = arith::DivUIOp::create(builder, loc, rest, count);
    indices[dim] = arith::AddIOp::create(
        builder, loc, loop.getLowerBound()[dim],
        arith::MulIOp::create(builder, loc, index, loop.getStep()[dim]));
  }
  inlineLoopBody(loop, &guard.getThenRegion().front(), indices);
  return success();
}

/// Whether `op` only reads: a load or a pure op (kernels that need its
/// value compute it themselves: sinkIntoKernel).
bool isReadOnly(Operation *op) {
  return isa<memref::LoadOp>(op) ||
         (op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
          !op->hasTrait<OpTrait::IsTerminator>());
}

/// Moves the run of ops [first, last] into a kernel of one thread; the
/// read-only ops of the run that later code reads stay where they are.
void wrapInSingleThread(Operation *first, Operation *last) {
  SmallVector<Operation *> ops;
  for (Operation *op = first;; op = op->getNextNode()) {
    ops.push_back(op);
    if (op == last)
      break;
  }
  Block *block = first->getBlock();
  llvm::SmallPtrSet<Operation *, 16> moved(ops.begin(), ops.end());
  // Users come later, so deciding from the back sees each user's fate.
  for (Operation *op : llvm::reverse(ops))
    if (isReadOnly(op) && llvm::any_of(op->getUsers(), [&](Operation *user) {
          return !moved.contains(block->findAncestorOpInBlock(*user));
        }))
      moved.erase(op);
  OpBuilder builder(first);
  scf::ParallelOp inner = buildKernelNest(builder, first->getLoc(), 1, 1);
  Operation *terminator = inner.getBody()->getTerminator();
  for (Operation *op : ops)
    if (moved.contains(op))
      op->moveBefore(terminator);
}

/// Replaces `loop` (inside a kernel's thread) by a nest of scf.for loops.
LogicalResult makeSequential(scf::ParallelOp loop) {
  if (!loop.getInitVals().empty())
    return loop.emitError("cannot run a parallel reduction loop on the GPU");
  OpBuilder builder(loop);
  SmallVector<Value> indices;
  Block *innermost = nullptr;
  for (auto [lower, upper, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    auto sequential =
        scf::ForOp::create(builder, loop.getLoc(), lower, upper, step);
    indices.push_back(sequential.getInductionVar());
    innermost = sequential.getBody();
    builder.setInsertionPointToStart(innermost);
  }
  inlineLoopBody(loop, innermost, indices);
  return success();
}

/// Copies `copy` element by element in a parallel loop (mapped later).
scf::ParallelOp buildCopyLoop(memref::CopyOp copy) {
  OpBuilder builder(copy);
  Location loc = copy.getLoc();
  auto type = cast<MemRefType>(copy.getTarget().getType());
  SmallVector<Value> lower, upper, steps;
  for (int64_t size : type.getShape()) {
    lower.push_back(arith::ConstantIndexOp::create(builder, loc, 0));
    upper.push_back(arith::ConstantIndexOp::create(builder, loc, size));
    steps.push_back(arith::ConstantIndexOp::create(builder, loc, 1));
  }
  auto loop = scf::ParallelOp::create(
      builder, loc, lower, upper, steps,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange indices) {
        Value element = memref::LoadOp::create(nested, nestedLoc,
                                               copy.getSource(), indices);
        memref::StoreOp::create(nested, nestedLoc, element, copy.getTarget(),
                                indices);
      });
  copy.erase();
  return loop;
}

/// Whether a kernel must compute `value` itself rather than take it as an
/// argument: it is read from memory (a load, on the host it would read
/// device memory), a constant global (kernel outlining then copies the
/// global into the GPU module instead of passing a host address), a view
/// of one, or computed from such values.
bool mustSink(Value value) {
  Operation *definer = value.getDefiningOp();
  if (!definer || definer->getParentOfType<scf::ParallelOp>())
    return false;
  if (isa<memref::GetGlobalOp, memref::LoadOp>(definer))
    return true;
  if (auto view = dyn_cast<ViewLikeOpInterface>(definer))
    return mustSink(view.getViewSource());
  return definer->getNumRegions() == 0 && isMemoryEffectFree(definer) &&
         llvm::any_of(definer->getOperands(), mustSink);
}

/// Clones into `kernel` what it reads from outside and must compute itself
/// (mustSink), with what those values are computed from.
void sinkIntoKernel(scf::ParallelOp kernel) {
  SmallVector<OpOperand *> uses;
  kernel.walk([&](Operation *op) {
    for (OpOperand &operand : op->getOpOperands())
      if (!kernel->isAncestor(operand.get().getParentBlock()->getParentOp()) &&
          mustSink(operand.get()))
        uses.push_back(&operand);
  });
  IRMapping cloned;
  OpBuilder builder = OpBuilder::atBlockBegin(kernel.getBody());
  std::function<Value(Value)> sink = [&](Value value) -> Value {
    if (!mustSink(value))
      return value;
    if (Value done = cloned.lookupOrNull(value))
      return done;
    Operation *definer = value.getDefiningOp();
    for (Value operand : definer->getOperands())
      cloned.map(operand, sink(operand));
    Operation *copy = builder.clone(*definer, cloned);
    for (auto [original, inside] :
         llvm::zip(definer->getResults(), copy->getResults()))
      cloned.map(original, inside);
    return cloned.lookup(value);
  };
  for (OpOperand *use : uses)
    use->set(sink(use->get()));
}

/// Erases top-level loads, globals, views and pure ops nobody reads any
/// more (their readers now compute them inside kernels).
void eraseDeadHostValues(Block &body) {
  bool erased = true;
  while (erased) {
    erased = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (op.use_empty() && op.getNumResults() > 0 &&
          (isa<memref::LoadOp, memref::GetGlobalOp, ViewLikeOpInterface>(op) ||
           (op.getNumRegions() == 0 && isMemoryEffectFree(&op)))) {
        op.erase();
        erased = true;
      }
  }
}

/// Whether `op` is a loop the host runs: an scf.for whose body calls a
/// function (a convolution's loop over images, whose GEMMs launch their own
/// device work); its body is mapped like the function's.
bool isHostLoop(Operation *op) {
  auto loop = dyn_cast<scf::ForOp>(op);
  return loop && loop->getNumResults() == 0 &&
         loop->walk([](func::CallOp) { return WalkResult::interrupt(); })
             .wasInterrupted();
}

/// Fails on a buffer that would stay in host memory where the device reads
/// it: a host-level `memref.alloca` (the host's stack) that anything uses,
/// and a constant global (a host address on the host) that reaches a call,
/// directly or through views. Kernels compute their own view of a global
/// (sinkIntoKernel) and copies become kernels, so only calls are left.
LogicalResult checkHostBuffers(Block &body) {
  std::function<Operation *(Value)> findCall = [&](Value buffer) {
    for (Operation *user : buffer.getUsers()) {
      if (isa<func::CallOp>(user))
        return user;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == buffer)
          if (Operation *call = findCall(view->getResult(0)))
            return call;
    }
    return static_cast<Operation *>(nullptr);
  };
  for (Operation &op : body) {
    if (auto alloca = dyn_cast<memref::AllocaOp>(op);
        alloca && !alloca.use_empty())
      return alloca.emitError(
          "a stack buffer (memref.alloca) on the host cannot be read by GPU "
          "kernels or GEMMs: allocate it with memref.alloc");
    if (auto global = dyn_cast<memref::GetGlobalOp>(op))
      if (Operation *call = findCall(global.getResult())) {
        InFlightDiagnostic error =
            global.emitError("constant global '")
            << global.getName()
            << "' reaches a call, which reads device memory: the global "
               "stays in host memory";
        error.attachNote(call->getLoc()) << "called here";
        return error;
      }
  }
  return success();
}

/// How the function's loops are mapped, and what the mapping counted.
struct Mapping {
  const ckpt::CkptGpuMapLoopsPassOptions &options;
  int64_t kernels = 0;
  int64_t launches = 0;
  int64_t gemmCalls = 0;
};

/// Maps the ops of `body` (the function's, or a host loop's, which runs
/// `calls` times per call of the function) to kernels.
LogicalResult mapBlock(Block &body, Mapping &mapping, int64_t calls) {
  if (failed(checkHostBuffers(body)))
    return failure();
  for (auto copy : llvm::to_vector(body.getOps<memref::CopyOp>()))
    buildCopyLoop(copy);

  // Kernels: the top-level parallel loops, then runs of other ops that
  // touch memory.
  for (auto loop : llvm::to_vector(body.getOps<scf::ParallelOp>()))
    if (failed(flattenAndMap(loop, mapping.options.threadsPerBlock,
                             mapping.options.permuteIterations)))
      return failure();
  // Runs of ops that write memory (a full reduction's scf.for, a store)
  // become kernels of one thread; read-only ops between them do not break
  // a run, host loops do.
  SmallVector<std::pair<Operation *, Operation *>> runs;
  Operation *runStart = nullptr, *runEnd = nullptr;
  for (Operation &op : body) {
    if (isReadOnly(&op))
      continue;
    bool hostLoop = isHostLoop(&op);
    if (hostLoop) {
      auto loop = cast<scf::ForOp>(op);
      std::optional<APInt> trips = loop.getStaticTripCount();
      if (!trips)
        return loop.emitError("cannot map a loop with dynamic bounds to the "
                              "GPU: shapes must be static");
      if (failed(mapBlock(*loop.getBody(), mapping,
                          calls * trips->getSExtValue())))
        return failure();
    }
    if (hostLoop || isHostOp(&op) || isa<scf::ParallelOp>(op)) {
      if (runStart)
        runs.push_back({runStart, runEnd});
      runStart = runEnd = nullptr;
      continue;
    }
    if (!runStart)
      runStart = &op;
    runEnd = &op;
  }
  if (runStart)
    runs.push_back({runStart, runEnd});
  for (auto [first, last] : runs)
    wrapInSingleThread(first, last);

  mapping.gemmCalls += calls * llvm::range_size(body.getOps<func::CallOp>());
  for (auto kernel : llvm::to_vector(body.getOps<scf::ParallelOp>())) {
    ++mapping.kernels;
    mapping.launches += calls;
    // Loops inside a thread run sequentially.
    SmallVector<scf::ParallelOp> nested;
    kernel.walk([&](scf::ParallelOp loop) {
      if (!loop->hasAttr(gpu::getMappingAttrName()))
        nested.push_back(loop);
    });
    for (scf::ParallelOp loop : nested)
      if (failed(makeSequential(loop)))
        return failure();
    // Scalars loaded on the host for kernels (the random state's seed and
    // counter) and constant globals are read by each kernel instead.
    sinkIntoKernel(kernel);
  }
  eraseDeadHostValues(body);
  for (auto load : body.getOps<memref::LoadOp>())
    return load.emitError("a value read from memory is used on the host, "
                          "where the GPU step cannot read device memory");
  return success();
}

struct CkptGpuMapLoopsPass
    : public ckpt::impl::CkptGpuMapLoopsPassBase<CkptGpuMapLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (threadsPerBlock < 1 || threadsPerBlock > 1024) {
      func.emitError() << "threads-per-block must be in [1, 1024], got "
                       << threadsPerBlock.getValue();
      return signalPassFailure();
    }
    ckpt::CkptGpuMapLoopsPassOptions options{threadsPerBlock,
                                             permuteIterations, reportKernels};
    Mapping mapping{options};
    if (failed(mapBlock(func.getBody().front(), mapping, /*calls=*/1)))
      return signalPassFailure();
    if (reportKernels)
      func.emitRemark() << "GPU kernels: " << mapping.kernels
                        << ", launches per call: " << mapping.launches
                        << ", GEMM calls per call: " << mapping.gemmCalls;
  }
};

} // namespace
