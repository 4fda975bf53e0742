//===- CkptDialect.td - the ckpt dialect and its shared constraints -------===//
//
// The dialect definition, the tensor type constraints every op uses, the
// enums, and the base op class.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_TD
#define CKPT_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def Ckpt_Dialect : Dialect {
  let name = "ckpt";
  let cppNamespace = "::ckpt";
  let summary = "Forward graphs of neural networks, for activation checkpointing";
  let description = [{
    The `ckpt` dialect describes the forward graph of a neural network as a
    `func.func` over builtin ranked tensors that returns a scalar loss
    (`tensor<f32>`). Its ops follow PyTorch semantics (broadcasting,
    `linear` = x W^T + b, `layer_norm` over trailing dimensions,
    `cross_entropy` averaged over the batch with `i64` labels).

    Floating-point values are `f16`, `bf16`, `f32` or `f64` tensors; indices
    are `i64` tensors and masks `i1` tensors. Function arguments that need a
    gradient carry the unit attribute `{ckpt.param}`.

    Dimension attributes (`dim`, `dims`, permutations) are non-negative:
    importers normalise PyTorch's negative dimensions before they reach the
    IR, so every later pass reads one spelling.

    Three ops are deliberately not recomputable: `ckpt.print` (I/O),
    `ckpt.all_reduce` (a collective) and `ckpt.index_add` with
    `deterministic = false`. They carry side effects or nondeterminism so
    that checkpointing can prove it must keep their results.
  }];
  let hasRegionArgAttrVerify = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  // Gradient rules build scalar constants with arith.constant.
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    /// The unit attribute that marks a function argument as a parameter.
    static constexpr ::llvm::StringLiteral kParamAttrName = "ckpt.param";
    /// The array of dimension names of a function argument.
    static constexpr ::llvm::StringLiteral kDimNamesAttrName = "ckpt.dim_names";
    /// The unit attribute of functions built by ckpt-autodiff.
    static constexpr ::llvm::StringLiteral kTrainingStepAttrName =
        "ckpt.training_step";
    /// The unit attribute of the backward ops of a training step.
    static constexpr ::llvm::StringLiteral kBackwardAttrName = "ckpt.backward";
    /// The i64 attribute of functions whose random ops ckpt-thread-rng made
    /// explicit: the Philox counters one call consumes.
    static constexpr ::llvm::StringLiteral kRngCountersAttrName =
        "ckpt.rng_counters";
    /// The unit attribute of ops inside a checkpoint segment whose results
    /// the plan keeps instead of recomputing.
    static constexpr ::llvm::StringLiteral kKeepAttrName = "ckpt.keep";
    /// The array attribute of forward ops an op-level plan recomputes: per
    /// result, `unit` when it is kept, else the ids of the sites where it
    /// is recomputed for backward (none: only inside recompute regions).
    static constexpr ::llvm::StringLiteral kRecomputeAtAttrName =
        "ckpt.recompute_at";
    /// The array<i64> attribute of backward ops: the ids of the recompute
    /// sites that run right before the op, in order.
    static constexpr ::llvm::StringLiteral kSitesAttrName = "ckpt.sites";
    /// The string attribute of training steps: the strategy of their plan.
    static constexpr ::llvm::StringLiteral kPlanAttrName = "ckpt.plan";
    /// The i64 attribute of training steps planned under a budget: the
    /// budget in bytes.
    static constexpr ::llvm::StringLiteral kBudgetAttrName = "ckpt.budget";
    /// The i64 attribute of training steps planned for a pipeline stage
    /// holding more than one microbatch in flight: how many.
    static constexpr ::llvm::StringLiteral kMicrobatchesInFlightAttrName =
        "ckpt.microbatches_in_flight";
    /// The dictionary attribute of modules imported with
    /// `ckpt-import-torch --record-calls`: PyTorch's op calls while the module
    /// runs forward (ckpt-export-torch-plan).
    static constexpr ::llvm::StringLiteral kTorchCallsAttrName =
        "ckpt.torch_calls";
    void registerTypes();
  }];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Ckpt_RngType : TypeDef<Ckpt_Dialect, "Rng"> {
  let mnemonic = "rng";
  let summary = "the state of the counter-based random generator";
  let description = [{
    A Philox4x32-10 stream: a 64-bit seed and a 64-bit base counter offset.
    Random ops that read it draw from counters at a static offset from the
    base, so the same op reading the same state sees the same bits, in the
    forward pass and in any recompute.
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Ckpt_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def Ckpt_IndexTensor : RankedTensorOf<[I64]>;
def Ckpt_MaskTensor : RankedTensorOf<[I1]>;
// Shape ops move any value the dialect knows about.
def Ckpt_AnyTensor : RankedTensorOf<[F16, BF16, F32, F64, I64, I1]>;
def Ckpt_ScalarFloatTensor : 0DTensorOf<[F16, BF16, F32, F64]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Ckpt_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how gelu evaluates the Gaussian CDF", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Tanh", 1, "tanh">
    ]> {
  let cppNamespace = "::ckpt";
}

def Ckpt_ReductionKind : I32EnumAttr<"ReductionKind",
    "how all_reduce combines the contributions of the ranks", [
      I32EnumAttrCase<"Sum", 0, "sum">,
      I32EnumAttrCase<"Mean", 1, "mean">,
      I32EnumAttrCase<"Max", 2, "max">
    ]> {
  let cppNamespace = "::ckpt";
}

//===----------------------------------------------------------------------===//
// Base op
//===----------------------------------------------------------------------===//

// Every tensor a ckpt op takes or makes has a byte size that fits 64 bits
// (TensorSize.h): an absurd shape is an error at the op that has it, not a
// count that wrapped around in a later analysis or lowering.
def Ckpt_TensorSizesFit : NativeOpTrait<"TensorSizesFit"> {
  let cppNamespace = "::ckpt";
}

class Ckpt_Op<string mnemonic, list<Trait> traits = []>
    : Op<Ckpt_Dialect, mnemonic, !listconcat(traits, [Ckpt_TensorSizesFit])>;

#endif // CKPT_DIALECT_TD
