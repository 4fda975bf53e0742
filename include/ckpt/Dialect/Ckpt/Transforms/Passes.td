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
    that returns one scalar loss — adds `@f_train` with the same arguments,
    returning the loss followed by the gradient of every parameter in
    argument order. Its body is the forward ops in their original order,
    then the backward ops (marked `ckpt.backward`) in reverse order, built
    by each op's gradient rule (`GradientOpInterface`).

    - Gradients of values with several uses are accumulated with
      `ckpt.add`.
    - Only values on a path from a parameter to the loss get gradients;
      labels, indices and inputs that do not depend on a parameter get none.
    - A parameter that does not influence the loss gets a zero gradient and
      a warning.
    - An op without a gradient rule on such a path is an error at the op.
    - `ckpt.checkpoint` segments stay in the forward as segment markers;
      autodiff differentiates through them, and the forward values inside a
      segment that backward reads are returned from it as extra results, so
      they show up as the segment's saved tensors.

    The training step carries the unit attribute `ckpt.training_step`.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "Differentiate only this function (default: every forward graph)">,
    Option<"keepForward", "keep-forward", "bool", /*default=*/"true",
           "Keep the forward function next to its training step">
  ];
  let dependentDialects = ["::ckpt::CkptDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

def CkptReportPass : Pass<"ckpt-report", "::mlir::ModuleOp"> {
  let summary = "Reports saved tensors and the simulated memory peak of training steps";
  let description = [{
    For every training step (`ckpt.training_step`), prints the saved
    tensors — forward values that backward ops read — with the op that
    produced each, its location, shape, element type and bytes, the totals
    for activations and parameters, and the simulated peak memory with the
    program point where it occurs and its split into parameters,
    activations, gradients and temporaries. The IR is left unchanged.

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
           "Also emit the figures as remarks">
  ];
}

#endif // CKPT_TRANSFORMS_PASSES_TD
