//===- Passes.td - ckpt conversion passes ---------------------------------===//
//
// Lowering out of the ckpt dialect.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_CONVERSION_PASSES_TD
#define CKPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def CkptToLinalgPass : Pass<"ckpt-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lowers ckpt ops on tensors to linalg, tensor, arith and math";
  let description = [{
    Every computing ckpt op (forward and backward) becomes linalg.generic
    and tensor ops on tensors: pointwise ops one broadcasting generic,
    reductions and normalisations a few, linear and matmul one contraction,
    shape ops tensor reshapes, slices and copies; dropout computes
    Philox4x32-10 in arith ops, and `!ckpt.rng` arguments become
    `tensor<2xi64>` (seed, base counter). Checkpoint segments are inlined
    where they stand: once lowered, a segment is just its ops.

    Function arguments are marked `bufferization.writable = false`: they
    belong to the caller, so bufferization copies instead of writing into
    them.

    f16 and bf16 compute in f32 and round once into their results, as
    PyTorch's kernels do: pointwise formulas run on extended operands, and
    sums and matrix products accumulate into f32 tensors of the result's
    shape (allocated after the result, counted as the op's scratch), which
    become `ckptGemmF16`/`ckptGemmBF16` calls with f32 C. Only ops with the
    `LowersHalfFloats` trait take 16-bit operands or results: elementwise
    ops and their gradients, shape ops, `linear`, `matmul`, `reduce_sum`,
    `reduce_mean`, `reduce_norm`, `mse_loss`, `softmax`, `log_softmax`
    (their row statistics in f32) and `dropout` (its mask drawn in f32), and
    their gradients; any other is an error at its location.

    Shapes must be static. Ops this lowering does not handle yet (`print`,
    `all_reduce`, `index_add`, dropout without explicit random state) are
    reported as failing to legalize.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def CkptFreeAfterLastUsePass : Pass<"ckpt-free-after-last-use", "::mlir::func::FuncOp"> {
  let summary = "Moves each buffer deallocation right after the buffer's last use";
  let description = [{
    Ownership-based buffer deallocation frees buffers at the end of their
    block. A training step is one long block, so every activation would stay
    allocated until the step returns and no memory plan could lower the
    peak. This pass moves each `memref.dealloc` up to just after the last op
    of the block that uses the buffer or a view of it (through
    `ViewLikeOpInterface`), which is when the memory simulator frees it.
    A free that precedes a use (as after `ckpt-gpu-map-loops` moves a
    load into a later kernel) moves down to after it.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def CkptGemmToCallsPass : Pass<"ckpt-gemm-to-calls", "::mlir::ModuleOp"> {
  let summary = "Replaces bufferized matrix products by calls of a GEMM routine";
  let description = [{
    Finds the `linalg.generic` ops that compute `C += A * B` on contiguous
    f32 or f64 buffers (what `ckpt.linear`, `ckpt.matmul` and attention
    lower to) and replaces each by a call of `ckptGemmF32` (or
    `ckptGemmF64`)`(A, B, C, batch, M, N, K, batch stride of A, batch
    stride of B, A transposed, B transposed)`, the buffers as unranked
    memrefs: a strided-batched, row-major GEMM that accumulates into C. The
    loops of a product are its batch (the leading output loops, in every
    operand or, broadcast with a batch stride of 0, in one), its rows (A
    and C), its columns (B and C) and its sums (A and B); C must be the
    batch, rows, columns in that order, and A and B the batch and their two
    groups in either order (the other order transposes the operand), so a
    linear's rows are one M and grouped-query attention's heads and rows
    too. Loops of extent 1 do not count. A runner binds the calls to cuBLAS
    on the GPU (`ckpt-run --device=cuda`) or to OpenBLAS on the CPU. Other
    contractions stay loops.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def CkptApproximateMathPass : Pass<"ckpt-approximate-math"> {
  let summary = "Replaces f32 transcendental functions by inline polynomial approximations";
  let description = [{
    Rewrites `math.tanh`, `math.erf`, `math.exp`, `math.expm1`,
    `math.log` and the other f32 functions MLIR approximates into its
    polynomial approximations (straight-line arithmetic), for the CPU:
    libm's scalar calls, one per element, cost the GELU and softmax of a
    step more than its matrix products. The approximations are within a
    few units in the last place of libm's results; an op always becomes
    the same arithmetic, so recomputation stays bit-identical. f64 keeps
    libm.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def CkptExpandBFloat16Pass : Pass<"ckpt-expand-bf16"> {
  let summary = "Rewrites bf16 extensions and truncations as integer arithmetic";
  let description = [{
    `arith.extf` from bf16 becomes a 16-bit shift, and `arith.truncf` to
    bf16 a rounding to the nearest, ties to even, in integer arithmetic
    (NaNs stay quiet NaNs), for the CPU: LLVM lowers the truncation to a
    `__truncsfbf2` call on processors without AVX512-BF16, which the GCC 12
    runtime does not have. The results are the bits of the instruction and
    of PyTorch's conversion.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def CkptCarryAccumulatorsPass : Pass<"ckpt-carry-accumulators", "::mlir::func::FuncOp"> {
  let summary = "Carries an element a loop updates in place as a loop value";
  let description = [{
    An `scf.for` nested in another loop that loads one element, updates it
    and stores it back at indices fixed in the loop (a reduction's
    accumulator, as `convert-linalg-to-parallel-loops` writes it) loads it
    once before the loop, carries it through `iter_args` and stores it once
    after; repeated, the element leaves the whole nest of sequential
    loops. The same operations run in the same order, so the bits do not
    change. LLVM does not do this itself: it cannot tell that the loop's
    other buffers are not the accumulator's, so it keeps the element in
    memory, a store and a load per iteration (batch norm's per-channel
    sums took a quarter of a U-Net step so).

    Only where that is certain: the accumulator's buffer is a
    `memref.alloc` (or `memref.alloca`) that nothing else in the loop
    reads or writes through any view, the loop's other buffers are other
    allocations or the function's arguments, and every other operation in
    the loop declares its memory effects. A loop at the top level of a
    function keeps its load and store, so that `ckpt-outline-loops` still
    finds it without results.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def CkptOutlineLoopsPass : Pass<"ckpt-outline-loops", "::mlir::ModuleOp"> {
  let summary = "Moves each top-level loop into a function of its own";
  let description = [{
    Replaces every `scf.parallel` and `scf.for` without results at the top
    level of a function by a call of a new private function
    (`<function>_loop<N>`) that holds the loop; the values the loop reads
    from outside become its arguments, constants are cloned into it. A
    parallel loop of fewer than `min-parallel-iterations` iterations,
    counting those of the sequential loops inside it (static bounds),
    becomes a sequential nest of `scf.for` first, at the top level or
    inside a sequential loop (a convolution's copies in its loop over the
    images): waking the threads would cost it more than it saves.
    A longer one stays parallel over its outer dimensions only until they
    number `parallel-chunks` iterations; the others become an `scf.for`
    nest inside, which LLVM vectorises, where OpenMP would collapse every
    dimension into one loop and divide each index back out per element.

    The CPU pipeline does this before `convert-scf-to-openmp`, and so that
    the step function itself holds no loop: OpenMP's translation to LLVM IR
    outlines every parallel region with an analysis of its whole enclosing
    function, and LLVM's induction variable simplification (at
    `--opt-level` 1 and up) looks at every loop before the one it
    simplifies. In one function, both took time quadratic in the step's
    length: 46 of the 50 s that `opt -O1` took on a 6-block Llama step.
  }];
  let options = [
    Option<"minParallelIterations", "min-parallel-iterations", "int64_t",
           /*default=*/"32768",
           "Loops with fewer iterations (with those of their inner loops) "
           "run sequentially">,
    Option<"parallelChunks", "parallel-chunks", "int64_t",
           /*default=*/"64",
           "Parallel loops keep their outer dimensions parallel until "
           "their iterations number this many; the inner ones run in order "
           "within each">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def CkptParallelDimsFirstPass : Pass<"ckpt-parallel-dims-first", "::mlir::func::FuncOp"> {
  let summary = "Reorders each linalg.generic's dimensions: parallel ones first";
  let description = [{
    Interchanges the iteration dimensions of every `linalg.generic` so
    that its parallel dimensions come first (each group keeps its order).
    `convert-linalg-to-parallel-loops` then turns all of them into one
    parallel loop with the reductions inside, so on the GPU each thread
    computes one output element (a matmul's dot product) instead of a whole
    row, and on the CPU each OpenMP thread a block of output elements, its
    sums in loop order whatever the thread count.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def CkptMergeGpuModulesPass : Pass<"ckpt-merge-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Moves every outlined kernel into one GPU module";
  let description = [{
    `gpu-kernel-outlining` puts each kernel in a `gpu.module` of its own,
    so a step of hundreds of kernels is hundreds of binaries: a `ptxas`
    run and a module load each. This pass moves the kernels of all the
    GPU modules of the host module, in order, into the first one, and
    points every `gpu.launch_func` at its kernel there: one binary per
    step. Each kernel takes the name of the module it came from (outlining
    names the modules apart, their kernels alike); the constant globals
    outlining copied into several modules are kept once. Run it after
    outlining and before a target is attached: modules with targets, and
    two different symbols of one name, are errors.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def CkptGpuMapLoopsPass : Pass<"ckpt-gpu-map-loops", "::mlir::func::FuncOp"> {
  let summary = "Maps a bufferized training step's loops to GPU blocks and threads";
  let description = [{
    Prepares a bufferized, loop-level step (after
    `convert-linalg-to-parallel-loops`) for `convert-parallel-loops-to-gpu`,
    so that every access to a buffer happens in a kernel and the host only
    allocates, frees and launches:
    - each top-level `scf.parallel` becomes one flat index space cut into
      blocks of `threads-per-block` threads (block x, thread x); each
      thread recovers its original indices and skips the tail past the
      end;
    - `memref.copy` becomes such a parallel copy loop;
    - any other run of ops that touch memory at the top level (a full
      reduction's `scf.for`, stores to a 0-d buffer) becomes a kernel of
      one thread;
    - parallel loops nested inside a kernel run sequentially in their
      thread;
    - an `scf.for` that calls a function (a convolution's loop over
      images around its GEMM calls) stays on the host, and its body is
      mapped the same way;
    - constants (`memref.get_global`, with the views taken of them) are
      moved into the kernels that read them, so kernel outlining copies the
      globals into the GPU module instead of passing host addresses.
    Loop bounds must be static. A value computed from memory and used
    outside its kernel is an error, and so is a buffer that would stay in
    host memory where the device reads it (a host-level `memref.alloca`, a
    constant global passed to a call).

    With `permute-iterations`, thread (b, t) runs the iteration whose linear
    index is (b * threads + t) * m mod n instead, for n iterations and an m
    coprime to n near 5n/8: the same iterations in another order. A kernel
    whose result depends on the order of its iterations (a race, a read of
    another iteration's write) then gives other bits; the CPU runs the
    permuted loops to check that (`ckpt-run --device=cpu-gpu-loops
    --permute-gpu-iterations`).

    With `report-kernels`, a remark on each function gives its kernels
    (launch sites), its launches per call (a host loop's kernels count once
    per iteration) and its GEMM calls per call.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", "256",
           "Threads in each block of a parallel loop's kernel">,
    Option<"permuteIterations", "permute-iterations", "bool", "false",
           "Run each parallel loop's iterations in a permuted order (to "
           "check that no result depends on their order)">,
    Option<"reportKernels", "report-kernels", "bool", "false",
           "Remark on each function: its kernels, launches and GEMM calls "
           "per call">,
  ];

  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // CKPT_CONVERSION_PASSES_TD
