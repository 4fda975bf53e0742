//===- Passes.td - ckpt passes --------------------------------------------===//
//
// The passes of the checkpointing pipeline, in data-flow order.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_TRANSFORMS_PASSES_TD
#define CKPT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CkptBindDimsPass : Pass<"ckpt-bind-dims", "::mlir::ModuleOp"> {
  let summary = "Gives named dimensions of unknown size a size, and propagates the shapes";
  let description = [{
    Function arguments name their dimensions with
    `{ckpt.dim_names = ["B", "L", ""]}` (one string per dimension, empty for
    unnamed ones). `bind=B=8,L=512` sets every dimension named `B` to 8 and
    `L` to 512 (a static dimension with that name must already have that
    size), then re-infers the result types of every op, so the function has
    static shapes and memory and cost analyses can run. Reshapes infer one
    unknown dimension from the element count; broadcasts take unknown
    dimensions from their input.
  }];
  let options = [
    Option<"bind", "bind", "std::string", /*default=*/"\"\"",
           "Sizes of named dimensions: NAME=SIZE,NAME=SIZE,...">
  ];
  let dependentDialects = ["::ckpt::CkptDialect"];
}

def CkptFoldTransposesPass : Pass<"ckpt-fold-transposes", "::mlir::ModuleOp"> {
  let summary = "Reads transposed operands of matrix products through their transpose flags";
  let description = [{
    A `ckpt.transpose` that swaps the last two dimensions (and keeps the
    others) and whose every user is a `ckpt.matmul` is removed: each product
    reads its input instead, with its `transpose_lhs` or `transpose_rhs`
    flag toggled (a product that already read the operand transposed reads
    it as it is). The transposed copy is then neither computed nor saved
    for backward, and a GEMM reads the operand in place; attention's
    `q @ k.transpose(-2, -1)` is the common case. A transpose with any
    other user, or of other dimensions, stays. Transposes of transposes
    fold from the outermost in. The pipeline runs it first, so the
    planners, the simulator and the lowering see the products as folded.
  }];
  let dependentDialects = ["::ckpt::CkptDialect"];
}

def CkptThreadRngPass : Pass<"ckpt-thread-rng", "::mlir::ModuleOp"> {
  let summary = "Makes implicit randomness explicit: a !ckpt.rng argument and static counter offsets";
  let description = [{
    In every function with random ops that draw from the implicit generator
    (`ckpt.dropout` without `rng`), gives the function a `!ckpt.rng`
    argument (reusing one it already has), threads it into the checkpoint
    segments that need it, and assigns each implicit random op a static
    counter offset: in program order, each op takes the next
    `ceil(elements / 4)` counters after every range already in use.
    Explicit random ops keep their offsets; overlapping explicit ranges are
    an error. The function records the counters one call consumes as
    `ckpt.rng_counters`. Running the pass twice changes nothing the second
    time.
  }];
  let dependentDialects = ["::ckpt::CkptDialect"];
}

def CkptAutodiffPass : Pass<"ckpt-autodiff", "::mlir::ModuleOp"> {
  let summary = "Builds the training step (forward + backward) of forward graphs";
  let description = [{
    For every forward graph — a `func.func @f` with `{ckpt.param}` arguments
    that returns a scalar loss first, optionally followed by further tensors
    (auxiliary results, such as the updated running statistics of
    `ckpt.batch_norm`) — adds `@f_train` with the same arguments, returning
    the loss, then the auxiliary results in order, then the gradient of
    every parameter in argument order (and, last, every random state
    argument advanced past the counters one step draws). Its body
    is the forward ops in their original order, then the backward ops
    (marked `ckpt.backward`) in reverse order, built by each op's gradient
    rule (`GradientOpInterface`).

    - Gradients of values with several uses are accumulated with
      `ckpt.add`.
    - Only values on a path from a parameter to the loss get gradients;
      labels, indices and inputs that do not depend on a parameter get none.
    - A parameter that does not influence the loss gets a zero gradient and
      a warning.
    - An op without a gradient rule on such a path is an error at the op.
    - Auxiliary results are not differentiated: only the loss seeds the
      backward ops, so they stay forward values that the step returns, live
      until its end like the loss.
    - `ckpt.checkpoint` segments stay in the forward as segment markers;
      autodiff differentiates through them, and the forward values inside a
      segment that backward reads are returned from it as extra results, so
      they show up as the segment's saved tensors.

    - With `loss-scale=S` (a power of two), backward starts from S instead
      of 1 and every parameter's gradient is multiplied by 1/S before it is
      returned: static loss scaling, for f16 steps whose small gradients
      would otherwise flush to zero. Scaling by a power of two is exact, so
      an f32 step's gradients are the unscaled step's bit for bit unless
      they overflow or are subnormal.

    The training step carries the unit attribute `ckpt.training_step`.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "Differentiate only this function (default: every forward graph)">,
    Option<"lossScale", "loss-scale", "double", /*default=*/"1",
           "Scale the loss by this power of two for backward and unscale "
           "the parameters' gradients (static loss scaling for f16)">,
    Option<"keepForward", "keep-forward", "bool", /*default=*/"true",
           "Keep the forward function next to its training step">
  ];
  let dependentDialects = ["::ckpt::CkptDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

def CkptPlanPass : Pass<"ckpt-plan", "::mlir::ModuleOp"> {
  let summary = "Chooses which saved tensors of training steps are recomputed";
  let description = [{
    Writes the plan of every training step. Stage strategies write it as
    `ckpt.checkpoint` segments around forward ops: a forward value that
    backward reads is *recomputed* when it is made inside a segment, by an
    op not marked `ckpt.keep`, and no forward op outside that segment uses
    it; every other saved value is *kept* — in particular each segment's
    inputs (its boundary) and outputs, and the results of `ckpt.keep` ops.
    `tensor` writes it per value, as marks (see ckpt-insert-recompute).
    Both are one representation: segments convert into the marks' plan.
    `ckpt-insert-recompute` then materialises the plan.

    Strategies:

    - `auto` (default): with a budget, and no plan of the user's on the
      step, the better of `tensor`'s and `dp`'s plans — the one whose
      simulated peak fits with the fewest recompute FLOPs (then the lower
      peak); `ckpt.plan` names the method and how it was found, as
      `auto: tensor (optimal)`, `auto: tensor (at most 3.1% above the
      optimum)` or `auto: dp`. Otherwise it is `manual`.
    - `manual`: the segments the user wrote in the forward graph
      (`ckpt.checkpoint`, like `torch.utils.checkpoint`) are the plan. Every
      op in them must be recomputable: pure (no memory effect other than
      allocating its results), deterministic, and drawing randomness only
      from explicit random state (`ckpt-thread-rng`). Any other op is an
      error at the op with a note at its segment.
    - `none`: keep everything; the user's segments are removed.
    - `uniform`: splits the forward into stages — a stage ends where one
      activation carries everything later forward ops need (arguments and
      constants aside), e.g. the residual stream between the blocks of a
      stack — and makes one segment of every `stages-per-segment`
      consecutive stages (user segments are replaced). Ops that cannot be
      recomputed stay outside segments, so their results are kept, and a
      remark at each names why.
    - `sqrt`: about sqrt(n) segments of consecutive stages with equal
      forward FLOPs (Chen et al. 2016), otherwise as `uniform`.
    - `selective`: segments as `uniform`, and inside them the results of
      ops that cost more than `selective-flops-per-element` FLOPs per
      result element (matrix products) are kept (`ckpt.keep`), so only the
      cheap ops (pointwise, normalisation) are recomputed — like PyTorch's
      selective checkpointing and JAX's `checkpoint_dots`. Under a budget
      it gives up keeps, those saving the most bytes per FLOP of
      recomputation first, until the plan fits.
    - `dp`: the exact optimum over the stage chain (as `uniform` finds it,
      except that arguments never cross a cut, and with every op that
      cannot be recomputed a stage of its own): every way of keeping each
      stage or recomputing runs of consecutive stages as single-level
      segments — each recomputing everything or keeping the results of its
      ops above `selective-flops-per-element` — is considered, and the plan
      with the fewest recompute FLOPs whose simulated peak fits the budget
      is taken (without a budget: the smallest peak, then the fewest
      FLOPs). The chain's memory model is the simulator's: the step is
      simulated once without a plan, and each run of stages as a segment
      changes the lifetimes of only the buffers it recomputes or reads, so
      each run's peak follows from those (ckpt-verify-chain-model checks
      it run by run); stages whose backward ops interleave are merged.
      When no plan fits, the smallest-peak plan is written and the budget
      error names its peak. With `stage-crossings` above 1, stages also end
      where that many activations cross, so graphs whose skip connections
      stay alive across blocks (U-Net, ResNet) get stages too; the model's
      peak is then a lower bound of the simulated one, and dp walks its
      front from the cheapest plan the model fits until one's simulated
      peak does. By default (`stage-crossings=0`) the setting is chosen:
      1 and each higher one up to 4 that cuts the chain finer (while the
      chain has at most twice the stages of one crossing's, or 256) are
      planned, and the plan whose simulated peak fits with the fewest FLOPs
      is taken (with `remarks`, the remark names the setting).
    - `ilp`: the same plans as `dp` (on the same stages), written as a
      mixed-integer program (one binary per way a run of stages may be a
      segment, the bytes freed below each stage, every group's peak within
      the budget) and solved with CBC for the fewest recompute FLOPs.
      Each solution is simulated; one whose simulated peak does not fit is
      cut off and the program solved again, so the plan is the simulator's
      optimum over these plans even where dp's walk misses it. dp's
      search finds the same model's optimum exactly and in milliseconds, so
      ilp takes it first (`ilp-presolve`): when its simulated peak fits it
      is the answer with no solve (always on chains, whose model is the
      simulator), otherwise it is cut off and its FLOPs bound the solves
      from below. The solver starts from dp's fitting plan; without a
      budget, the simulated peak of dp's smallest-peak plan is the budget. At `ilp-seconds` (all solves) or `ilp-nodes` (per
      solve) it takes the best plan found and warns with its gap to the
      proven lower bound. A step of more than `ilp-max-stages` stages is an
      error pointing at dp and selective.
    - `tensor`: a plan per tensor rather than per run of stages. Every
      saved buffer (a forward value backward reads, with its views, made
      by an op that may be recomputed) is kept or dropped; a dropped one
      is recomputed right before its first backward reader, or by the
      region of one of the two nearest earlier sites that may clone it
      anyway (then held to its readers, as a segment holds its values), by
      a region that clones what it needs and starts from kept values and
      earlier regions' copies (so it may keep q, k and v of an attention block and
      recompute only the scores and softmax, or keep one result of a
      multi-result op). The choice is a mixed-integer program solved with
      CBC whose memory rows follow the simulator: the unplanned timeline,
      less each dropped buffer between its last forward reader and its
      first backward one, plus what regions hold (their values while they
      run, with exact lifetimes, and buffers they read beyond their last
      use). Each solution is materialised and simulated, and one whose
      simulated peak misses the budget is cut off and the program solved
      again. The plan is written as `ckpt.recompute_at` and `ckpt.sites`
      marks (see ckpt-insert-recompute). `ilp-seconds` and `ilp-nodes`
      limit it as they limit ilp (a warning gives the gap; without any
      plan by then, everything is kept). Without a budget it plans the
      smallest peak it finds, then the fewest FLOPs within it.

    With `budget` (bytes: `24GiB`, `512MiB`, `800MB`, `1.5e9`), the plan's
    simulated peak (the memory simulator on the step with the plan
    materialised) must fit: an error names the smallest budget the
    strategy meets when it does not. With `remarks`, a remark gives the
    peak when it fits, and one remark per segment names its stages.
    A budget that is not a positive byte count is an error.

    With `microbatches-in-flight=N` (a pipeline stage that runs 1F1B with N
    microbatches in flight), the peak that must fit, and that every
    strategy minimises, is the simulated peak of one step plus N - 1 times
    the activation bytes live when its backward starts (its inputs, the
    tensors backward reads, the forward values it returns): while one
    microbatch runs, each of the others holds those, and parameters and
    gradients count once. `tensor` puts this in its program exactly; `dp`
    and `ilp` simulate each plan with it (dp walks its front, by FLOPs,
    from the cheapest plan whose one-microbatch peak fits until one does,
    so it may miss plans off that front; ilp cuts off each solution that
    does not fit and solves again).

    The step records its strategy as `ckpt.plan` (and a budget as
    `ckpt.budget`, in bytes, and microbatches in flight above one as
    `ckpt.microbatches_in_flight`). Planning a step that
    already has recompute regions is an error.
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"auto\"",
           "Planning strategy: auto (default), manual, none, uniform, "
           "sqrt, selective, dp, ilp or tensor">,
    Option<"budget", "budget", "std::string", /*default=*/"\"\"",
           "Largest simulated peak allowed, in bytes (24GiB, 512MiB, 1.5e9); "
           "empty: none">,
    Option<"stagesPerSegment", "stages-per-segment", "unsigned",
           /*default=*/"1",
           "Stages in each segment of the uniform and selective strategies "
           "(at least 1)">,
    Option<"selectiveThreshold", "selective-flops-per-element", "unsigned",
           /*default=*/"64",
           "Selective keeps results that cost more FLOPs per element than "
           "this; dp and ilp may keep, per run, those above it or above the "
           "cost of a costlier op">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Also emit a remark per planned segment (its stages) and one with "
           "the plan's simulated peak under the budget">,
    Option<"stageCrossings", "stage-crossings", "unsigned", /*default=*/"0",
           "dp and ilp end a stage where at most this many activations "
           "cross (more for skip connections); 0: chosen automatically">,
    Option<"ilpSeconds", "ilp-seconds", "double", /*default=*/"10",
           "Seconds ilp may solve for, all solves together">,
    Option<"ilpNodes", "ilp-nodes", "int64_t", /*default=*/"0",
           "Branch-and-bound nodes per ilp solve (0: no limit)">,
    Option<"ilpMaxStages", "ilp-max-stages", "unsigned", /*default=*/"150",
           "Most stages ilp takes on">,
    Option<"ilpPresolve", "ilp-presolve", "bool", /*default=*/"true",
           "ilp takes dp's optimum of its model first, and solves only when "
           "that plan's simulated peak does not fit">,
    Option<"microbatchesInFlight", "microbatches-in-flight", "unsigned",
           /*default=*/"1",
           "Microbatches a pipeline stage holds in flight (1F1B): their "
           "activations at backward's start count this many times in the "
           "peak, parameters and gradients once (at least 1)">
  ];
  let dependentDialects = ["::ckpt::CkptDialect"];
}

def CkptVerifyChainModelPass : Pass<"ckpt-verify-chain-model",
                                     "::mlir::ModuleOp"> {
  let summary = "Checks dp's chain model against the memory simulator, run "
                "by run";
  let description = [{
    Builds the chain model `dp` and `ilp` plan with (the same stages, with
    `stage-crossings` and `selective-flops-per-element` as for `ckpt-plan`)
    for every training step, and, for every run of stages that may be a
    segment and each way it may be one, writes the run as the step's only
    segment on a copy, materialises and simulates it, and compares the
    model's peak at the run's points, bytes freed at the next stage's first
    op and recompute FLOPs with the simulated ones. Any difference is an
    error at the step naming the run and both values; otherwise a remark
    gives the number of stages and runs checked. The step is unchanged.
    This is the model's test oracle (a simulation per run, so its time
    grows with the square of the stages), for tests and bug reports.
  }];
  let options = [
    Option<"stageCrossings", "stage-crossings", "unsigned", /*default=*/"1",
           "End a stage where at most this many activations cross "
           "(at least 1)">,
    Option<"selectiveThreshold", "selective-flops-per-element", "unsigned",
           /*default=*/"64",
           "Runs may keep the results of ops above this many FLOPs per "
           "element, or above the cost of a costlier op">
  ];
  let dependentDialects = ["::ckpt::CkptDialect"];
}

def CkptInsertRecomputePass : Pass<"ckpt-insert-recompute", "::mlir::ModuleOp"> {
  let summary = "Materialises a plan: recompute regions replace recomputed saved tensors";
  let description = [{
    A plan says, for each result of a forward op on its own, whether it is
    kept or dropped, and where each dropped value is recomputed: at
    *sites*, points right before backward ops. It is written on the step as
    marks: `ckpt.recompute_at` on a forward op has one entry per result,
    `unit` when it is kept, else an `array<i64>` of the ids of its sites;
    `ckpt.sites = array<i64: ...>` on a backward op places those sites
    right before it, in order. For example, recomputing an attention
    block's softmax once for each of its two backward readers, from kept
    q and k:

    ```mlir
    %s = ckpt.matmul %q, %kt {ckpt.recompute_at = [array<i64>]} : ...
    %p = ckpt.softmax %s dim = 1 {ckpt.recompute_at = [array<i64: 1, 2>]} : ...
    ...
    %15 = ckpt.transpose %p permutation = [1, 0] {ckpt.backward, ckpt.sites = array<i64: 1>} : ...
    %17 = ckpt.softmax_grad %14, %p dim = 1 {ckpt.backward, ckpt.sites = array<i64: 2>} : ...
    ```

    Each site becomes one `ckpt.recompute` region holding copies of the
    forward ops its values depend on through dropped values, in forward
    order, with the same types and attributes — random ops keep their
    random state and offsets, so the copies compute the same bits. The
    region takes kept values as they are, and a dropped value it does not
    recompute itself from the latest earlier site that made it. A backward
    op reads the copy of the latest site at or before it (the value itself
    when none is). A dropped value with no sites (`array<i64>`) is one
    regions recompute where they need it. Marks that do not fit together
    (a site no op places, a site placed twice or before its value, a mark
    on an op that may not be recomputed) are errors at the op, and a step
    with both segments and marks is an error.

    Checkpoint segments are the same plan written another way: for every
    segment (innermost first), the saved values it recomputes are
    recomputed at one site, immediately before the first backward op that
    reads any of them, from the segment's ops that are not kept. Segments
    disappear: their forward ops stay where they were, and the recomputed
    forward values, no longer read by backward, die after the forward.

    Nested segments recompute level by level: an outer region recomputes
    the inputs of the inner segments' regions, which recompute the rest
    when their backward comes, as nested `torch.utils.checkpoint` does.

    Every op in a segment must be recomputable (see `ckpt-plan`); any other
    op is an error at the op with a note at its segment.
  }];
  let dependentDialects = ["::ckpt::CkptDialect"];
}

def CkptFusePointwisePass : Pass<"ckpt-fuse-pointwise", "::mlir::ModuleOp"> {
  let summary = "Runs chains of pointwise ops as one op whose inner values take no memory";
  let description = [{
    Groups chains of pointwise ops (add, mul, gelu, relu_grad, cast, ...)
    into `ckpt.fused_pointwise` ops: a pointwise op whose result has one
    user, a pointwise op of the same shape in the same block (both forward
    or both backward), joins its user's op. The chain's values other than
    its last are then never stored, and the lowering makes one loop (one
    GPU kernel) of the chain, with the same bits as the ops one by one.

    A chain joins only where that cannot raise the memory peak: fusing
    keeps the chain's inputs alive until its user runs, in place of its
    result. It fuses when the inputs that could be freed earlier (all but
    the step's arguments, constants, and what the user reads anyway) take
    no more bytes than the result, or when nothing runs in between and the
    user's result is no larger than the chain's. So the simulated live
    bytes at every point of the step are at most what they were, and a
    plan that fit its budget still does. Run it after planning;
    `--ckpt-pipeline` runs it last (unless `fuse-pointwise=0`).
  }];
  let dependentDialects = ["::ckpt::CkptDialect"];
}

def CkptSweepPass : Pass<"ckpt-sweep", "::mlir::ModuleOp"> {
  let summary = "Evaluates every plan of a strategy: simulated peak against recompute FLOPs";
  let description = [{
    For every training step, evaluates on copies (the IR is unchanged) the
    plans a strategy can make:

    - `uniform`: one segment per N stages, for every N from 1 to the number
      of stages;
    - `selective`: its kept results given up one at a time in the order a
      budget gives them up, from all kept to none;
    - `dp`: its Pareto front over the stage chain, from keeping every stage
      to the smallest peak, each plan evaluated again by the simulator;
    - `sqrt`, `ilp` (its smallest-peak plan), `none`, `manual`: their one
      plan.

    Each plan gets its simulated peak (with and without the gradients the
    step returns) and its recompute FLOPs (also in percent of one forward).
    A plan is on the Pareto front when no other plan has both a lower or
    equal peak and fewer or equal FLOPs, one of them strictly; for a budget
    B, the cheapest front plan with a peak of at most B is the one to take.
    Writes the points as JSON to `output` and, with `svg`, the front as an
    SVG plot (peak over extra forward FLOPs).

    A long front (thousands of plans for a deep model) costs a
    materialisation and a simulation per plan: `points=N` evaluates at most
    N of dp's, for each of N peaks evenly spaced from keeping everything to
    the smallest peak the cheapest plan within it.

    With `torch-plans`, for a model imported with `ckpt-import-torch
    --record-calls`, each point also carries its plan as the outputs of
    PyTorch's op calls it drops, as `ckpt-export-torch-plan` writes them
    (`ckpt_torch.plan` picks among them by PyTorch's own bytes).
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"uniform\"",
           "Strategy whose plans to evaluate: uniform, selective, dp, sqrt, "
           "ilp, none or manual">,
    Option<"selectiveThreshold", "selective-flops-per-element", "unsigned",
           /*default=*/"64",
           "Selective keeps results that cost more FLOPs per element than "
           "this; dp and ilp may keep, per run, those above it or above the "
           "cost of a costlier op">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the JSON to ('-' for standard output)">,
    Option<"svg", "svg", "std::string", /*default=*/"\"\"",
           "Also plot the Pareto front as SVG to this file">,
    Option<"torchPlans", "torch-plans", "bool", /*default=*/"false",
           "Also write each plan as the outputs of PyTorch's op calls it "
           "drops (a model imported with --record-calls)">,
    Option<"points", "points", "unsigned", /*default=*/"0",
           "dp: evaluate at most this many plans of the front, each the "
           "cheapest within one of as many peaks spread evenly over it (at "
           "least 2; 0: every plan)">
  ];
}

def CkptReportPass : Pass<"ckpt-report", "::mlir::ModuleOp"> {
  let summary = "Reports saved tensors and the simulated memory peak of training steps";
  let description = [{
    For every training step (`ckpt.training_step`), prints the saved
    tensors — forward values that backward ops read — with the op that
    produced each, its location, shape, element type, bytes and the plan's
    decision (recomputed by which segment, or kept and why), the totals
    for activations and parameters, and the simulated peak memory with the
    program point where it occurs and its split into parameters,
    activations, gradients and temporaries (and the peak without the
    gradients the step returns), the stage chain the planners cut (per
    stage: ops, forward FLOPs, bytes backward reads, bytes handed to the
    next stage), the FLOPs of the forward, the
    backward and the recomputation, and the plan: its strategy
    (`ckpt.plan`), the extra forward FLOPs in percent of one forward, one
    row per `ckpt.recompute` region (inputs, recomputed bytes, FLOPs) and
    the tensors each recomputes. After `ckpt-insert-recompute` the saved
    tensors are exactly the kept ones. The IR is left unchanged.

    `timeline=FILE.svg` writes the simulated memory timeline — live bytes
    while each op runs — as an SVG chart: for a step whose plan is still
    segments (before `ckpt-insert-recompute`), the plan materialised next
    to keeping everything; otherwise the step as it is.

    `format=json` prints JSON instead of the table; `remarks` also emits one
    remark per saved tensor (at its producer) and one per training step, so
    tests and tools can read every number from diagnostics.
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "Output format: text or json">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the report to ('-' for standard output)">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Also emit the figures as remarks">,
    Option<"timeline", "timeline", "std::string", /*default=*/"\"\"",
           "Also write the memory timeline (live bytes per op) as an SVG "
           "chart to this file">
  ];
}

def CkptExportTorchPlanPass : Pass<"ckpt-export-torch-plan",
                                    "::mlir::ModuleOp"> {
  let summary = "Writes a planned step imported from PyTorch as a plan that "
                "PyTorch runs, as JSON";
  let description = [{
    For a training step whose forward was imported with
    `ckpt-import-torch --record-calls` (the module attribute
    `ckpt.torch_calls`: PyTorch's op calls below autograd while the module
    runs forward, the storages their outputs use, and which call makes each
    op's value) and whose plan is materialised (`ckpt-insert-recompute`),
    writes the plan for `ckpt_torch.apply_plan`, which trains the module in
    PyTorch with it.

    `executor=ops` (the default) writes PyTorch's op calls in forward order
    and the outputs the plan drops; `ckpt_torch`'s executor keeps every
    other tensor autograd saves and, in backward, reruns only the dropped
    calls a read needs. Each storage of the run is kept or dropped as a
    whole: kept when the plan keeps a value in it (the value a saved tensor
    of the step is, by the name its op's location carries), when the run
    found it (parameters, buffers, inputs), when a call writes it in place,
    or when its maker's rerun would not repeat its bits; dropped when it
    holds a value of the step and is not kept. A storage that holds no
    value of the step (a dropout mask, attention's log-sum-exp) goes with
    its maker: dropped when the plan reruns that call anyway, else kept.

    `executor=regions` writes the plan as the regions and per-call
    policies of `torch.utils.checkpoint` with
    `create_selective_checkpoint_contexts`. Each region is one call of a
    submodule, checkpointed as a whole: by default the module calls where
    the forward splits, found by going down from the model into every
    module call that holds more than half of the forward's op calls;
    `modules` names them instead (glob patterns over module paths, the
    outermost matching calls taken). Each op call in a region is
    `MUST_SAVE` when it makes a value the plan keeps, else
    `MUST_RECOMPUTE`. For each region the file lists the module path and
    which call of it, every op call in forward order (op, occurrence among
    the region's calls of that op, policy, and for saved calls the outputs
    the plan keeps) and a SHA-256 of the op sequence. It also predicts the
    activation bytes PyTorch holds after forward, storage by storage as the
    recorded run allocated them: without a plan (what autograd saves) and
    with this one (what autograd saves outside the regions, each region's
    inputs, and every output of each saved call).

    Both list the kept values that PyTorch cannot keep as planned and why
    (made by no single op call; for regions also made outside every region,
    where autograd decides, or written in place afterwards), and
    `ckpt_torch.apply_plan` refuses a module whose op calls differ from the
    plan's, naming the first difference. The IR is unchanged;
    docs/ReportFormat.md describes the file.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the plan to ('-' for standard output)">,
    Option<"executor", "executor", "std::string", /*default=*/"\"ops\"",
           "How PyTorch runs the plan: 'ops' (ckpt_torch reruns exactly the "
           "op calls the plan recomputes) or 'regions' (selective "
           "checkpointing of submodule calls)">,
    ListOption<"modules", "modules", "std::string",
               "With executor=regions: module paths (glob patterns) whose "
               "calls become checkpoint regions (default: chosen where the "
               "forward splits)">
  ];
}

#endif // CKPT_TRANSFORMS_PASSES_TD
