//===- CkptOps.td - ops of the ckpt dialect -------------------------------===//
//
// The forward-graph op set: dense, elementwise, normalisation, randomness,
// shape, reduction, lookup, losses, vision, the gradient ops, the user's
// checkpoint region, and three ops that are not recomputable on purpose.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_OPS_TD
#define CKPT_OPS_TD

include "ckpt/Dialect/Ckpt/IR/CkptDialect.td"
include "ckpt/Dialect/Ckpt/IR/CkptInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Forward ops with a gradient rule; every computing op has a cost. The
// `WithScratch` variants are for ops whose lowering allocates buffers
// besides its results (row statistics, a pooling window's shape).
defvar Ckpt_Costed = [DeclareOpInterfaceMethods<Ckpt_CostOpInterface>];
defvar Ckpt_CostedWithScratch =
    [DeclareOpInterfaceMethods<Ckpt_CostOpInterface, ["getScratchBytes"]>];
defvar Ckpt_Differentiable =
    [DeclareOpInterfaceMethods<Ckpt_GradientOpInterface>] # Ckpt_Costed;
defvar Ckpt_DifferentiableWithScratch =
    [DeclareOpInterfaceMethods<Ckpt_GradientOpInterface>] #
    Ckpt_CostedWithScratch;

//===----------------------------------------------------------------------===//
// Ops whose result types follow from operands and attributes
//===----------------------------------------------------------------------===//

// The verifier runs the inference, which names the offending dimension, and
// compares its types with the written ones. It runs before
// InferTypeOpInterface's own check (which happens after regions are
// verified), so each problem is reported once, precisely.
defvar Ckpt_VerifyByInference = [{
  ::llvm::LogicalResult $cppClass::verify() {
    ::llvm::SmallVector<::mlir::Type> inferred;
    if (::mlir::failed(inferReturnTypes(getContext(), getLoc(), Adaptor(*this),
                                        inferred)))
      return ::mlir::failure();
    return verifyResultTypes(getOperation(), inferred);
  }
}];

class Ckpt_InferringOp<string mnemonic, list<Trait> traits = []>
    : Ckpt_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor], traits)> {
  let hasVerifier = 1;
  let extraClassDefinition = Ckpt_VerifyByInference;
}

//===----------------------------------------------------------------------===//
// Dense
//===----------------------------------------------------------------------===//

def Ckpt_LinearOp : Ckpt_InferringOp<"linear",
    [Ckpt_LowersHalfFloats] # Ckpt_DifferentiableWithScratch> {
  let summary = "affine map x W^T + b (torch.nn.functional.linear)";
  let description = [{
    Multiplies the last dimension of `input` (`[..., K]`) by the transposed
    `weight` (`[N, K]`) and adds the optional `bias` (`[N]`), giving
    `[..., N]`. All three share one element type.

    Example:

    ```mlir
    %h = ckpt.linear %x, %w, %b
        : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>)
        -> tensor<8x512x2048xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input, Ckpt_FloatTensor:$weight,
                       Optional<Ckpt_FloatTensor>:$bias);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    operands attr-dict `:` functional-type(operands, results)
  }];
}

def Ckpt_MatmulOp : Ckpt_InferringOp<"matmul",
    [Ckpt_LowersHalfFloats] # Ckpt_DifferentiableWithScratch> {
  let summary = "batched matrix product with broadcast batch dimensions (torch.matmul)";
  let description = [{
    `lhs` is `[..., M, K]`, `rhs` is `[..., K, N]`; both have rank >= 2.
    The leading (batch) dimensions broadcast as in NumPy, and the result is
    `[broadcast(batch), M, N]`.

    `transpose_lhs` reads `lhs` as `[..., K, M]` and `transpose_rhs` reads
    `rhs` as `[..., N, K]`: the product of their last two dimensions
    swapped (`torch.matmul(lhs.mT, rhs)`), without a transposed copy. The
    gradients of `linear` and `matmul` use them, so a GEMM reads its
    operands in place (a BLAS transpose flag).

    Example:

    ```mlir
    %s = ckpt.matmul %q, %kt
        : (tensor<8x12x64x32xf32>, tensor<8x12x32x64xf32>) -> tensor<8x12x64x64xf32>
    %t = ckpt.matmul %q, %k transpose_rhs
        : (tensor<8x12x64x32xf32>, tensor<8x12x64x32xf32>) -> tensor<8x12x64x64xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$lhs, Ckpt_FloatTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_lhs` $transpose_lhs^)?
    (`transpose_rhs` $transpose_rhs^)? attr-dict `:`
    `(` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Ckpt_BinaryOp<string mnemonic, string torchName>
    : Ckpt_InferringOp<mnemonic, [Ckpt_LowersHalfFloats, Ckpt_Pointwise] #
                                 Ckpt_Differentiable> {
  let summary = "elementwise " # mnemonic # " with broadcasting (" # torchName # ")";
  let description = [{
    Applies the operation elementwise after broadcasting both operands to a
    common shape with NumPy rules (dimensions aligned from the right; a
    dimension of size 1 stretches). Operands share one element type.
    When both operands and the result have the same type, one type is
    printed; otherwise the functional form `(lhs, rhs) -> result` is used.

    Example:

    ```mlir
    %y = ckpt.}] # mnemonic # [{ %a, %b : tensor<8x512xf32>
    %z = ckpt.}] # mnemonic # [{ %a, %bias : (tensor<8x512xf32>, tensor<512xf32>) -> tensor<8x512xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$lhs, Ckpt_FloatTensor:$rhs);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    operands attr-dict `:` custom<ElementwiseTypes>(type($lhs), type($rhs), type($result))
  }];
  let extraClassDefinition = Ckpt_VerifyByInference # [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return inferBroadcastType(location, getOperationName(),
                                adaptor.getLhs().getType(),
                                adaptor.getRhs().getType(), inferred);
    }
  }];
}

def Ckpt_AddOp : Ckpt_BinaryOp<"add", "torch.add">;
def Ckpt_SubOp : Ckpt_BinaryOp<"sub", "torch.sub">;
def Ckpt_MulOp : Ckpt_BinaryOp<"mul", "torch.mul">;
def Ckpt_DivOp : Ckpt_BinaryOp<"div", "torch.div">;

class Ckpt_UnaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : Ckpt_Op<mnemonic, [Pure, SameOperandsAndResultType, Ckpt_LowersHalfFloats,
                         Ckpt_Pointwise] # Ckpt_Differentiable # traits> {
  let summary = "elementwise " # formula;
  let description = [{
    Computes `}] # formula # [{` for every element; the result has the
    operand's type.

    Example:

    ```mlir
    %y = ckpt.}] # mnemonic # [{ %x : tensor<8x512xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Ckpt_NegOp : Ckpt_UnaryOp<"neg", "-x">;
def Ckpt_ExpOp : Ckpt_UnaryOp<"exp", "exp(x)">;
def Ckpt_LogOp : Ckpt_UnaryOp<"log", "log(x)">;
def Ckpt_RsqrtOp : Ckpt_UnaryOp<"rsqrt", "1 / sqrt(x)">;
def Ckpt_SqrtOp : Ckpt_UnaryOp<"sqrt", "sqrt(x)">;
def Ckpt_AbsOp : Ckpt_UnaryOp<"abs", "|x|">;
def Ckpt_TanhOp : Ckpt_UnaryOp<"tanh", "tanh(x)">;
def Ckpt_SigmoidOp : Ckpt_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def Ckpt_ReluOp : Ckpt_UnaryOp<"relu", "max(x, 0)">;
def Ckpt_SiluOp : Ckpt_UnaryOp<"silu", "x * sigmoid(x)">;

def Ckpt_CastOp : Ckpt_Op<"cast", [Pure, SameOperandsAndResultShape,
                                   Ckpt_LowersHalfFloats, Ckpt_Pointwise] #
                                   Ckpt_Differentiable> {
  let summary = "elementwise conversion to another floating-point type (torch.Tensor.to(dtype))";
  let description = [{
    Converts every element to the result's element type: exactly to a
    wider type, rounded to the nearest (ties to even) to a narrower one.
    The gradient converts the result's gradient back to the operand's
    type, and reads no forward value. The shape stays; the element types
    differ.

    Example:

    ```mlir
    %y = ckpt.cast %x : tensor<8x512xf64> -> tensor<8x512xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Ckpt_PowOp : Ckpt_Op<"pow", [Pure, SameOperandsAndResultType,
                                 Ckpt_LowersHalfFloats, Ckpt_Pointwise] #
                                Ckpt_Differentiable> {
  let summary = "elementwise power by a constant exponent (torch.pow)";
  let description = [{
    Raises every element to `exponent`, a number (`x ** 3`, `x.pow(0.5)`);
    the result has the operand's type. The square `x ** 2` imports as a
    `mul`.

    Example:

    ```mlir
    %y = ckpt.pow %x exponent = 3.0 : tensor<8x512xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input, F64Attr:$exponent);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = "$input `exponent` `=` $exponent attr-dict `:` type($input)";
}

// The bounds of a clamp: either may be absent, not both.
defvar Ckpt_ClampBounds = (ins OptionalAttr<F64Attr>:$min,
                               OptionalAttr<F64Attr>:$max);

def Ckpt_ClampOp : Ckpt_Op<"clamp", [Pure, SameOperandsAndResultType,
                                     Ckpt_LowersHalfFloats, Ckpt_Pointwise] #
                                    Ckpt_Differentiable> {
  let summary = "elementwise clamp into [min, max] (torch.clamp, hardtanh)";
  let description = [{
    Computes `min(max(x, min), max)` for every element; an absent bound does
    not clamp. `torch.clamp`, `F.hardtanh` and `F.relu6` (`min = 0, max =
    6`) import as it, and `hardswish` and `hardsigmoid` through it. Its
    gradient passes where `min <= x <= max`, as `torch.clamp`'s does
    (`hardtanh`'s excludes the bounds themselves: the two differ only at
    inputs exactly on a bound).

    Example:

    ```mlir
    %y = ckpt.clamp %x min = 0.0 max = 6.0 : tensor<8x32x16x16xf32>
    ```
  }];
  let arguments = !con((ins Ckpt_FloatTensor:$input), Ckpt_ClampBounds);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`min` `=` $min^)? (`max` `=` $max^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def Ckpt_GeluOp : Ckpt_UnaryOp<"gelu", "x * Phi(x)"> {
  let description = [{
    Gaussian error linear unit, `x * Phi(x)` with `Phi` the standard normal
    CDF, as `torch.nn.functional.gelu`. `approximate` selects the exact
    erf form (`none`, the default, elided when printed) or the tanh
    approximation (`tanh`).

    Example:

    ```mlir
    %y = ckpt.gelu %x : tensor<8x512x2048xf32>
    %z = ckpt.gelu %x approximate = tanh : tensor<8x512x2048xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input,
      DefaultValuedAttr<Ckpt_GeluApproximation,
                        "::ckpt::GeluApproximation::None">:$approximate);
  let assemblyFormat = [{
    $input (`approximate` `=` $approximate^)? attr-dict `:` type($input)
  }];
}

def Ckpt_WhereOp : Ckpt_InferringOp<"where",
    [Ckpt_LowersHalfFloats, Ckpt_Pointwise] # Ckpt_Differentiable> {
  let summary = "elementwise select with broadcasting (torch.where)";
  let description = [{
    Picks `true_value` where `condition` (an `i1` tensor) is set and
    `false_value` elsewhere. All three broadcast to a common shape; the two
    values share one element type. `masked_fill` imports as a `where`.

    Example:

    ```mlir
    %s = ckpt.where %causal, %scores, %neg_inf
        : (tensor<64x64xi1>, tensor<8x12x64x64xf32>, tensor<f32>) -> tensor<8x12x64x64xf32>
    ```
  }];
  let arguments = (ins Ckpt_MaskTensor:$condition, Ckpt_FloatTensor:$true_value,
                       Ckpt_FloatTensor:$false_value);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    operands attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

class Ckpt_SoftmaxLikeOp<string mnemonic, string torchName>
    : Ckpt_Op<mnemonic, [Pure, SameOperandsAndResultType, Ckpt_LowersHalfFloats] #
                        Ckpt_DifferentiableWithScratch> {
  let summary = torchName # " along one dimension";
  let description = [{
    Computes `}] # torchName # [{` along dimension `dim`
    (`0 <= dim < rank`); the result has the operand's type.

    Example:

    ```mlir
    %p = ckpt.}] # mnemonic # [{ %scores dim = 3 : tensor<8x12x64x64xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = "$input `dim` `=` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyDimInRange(getOperation(), getDim(), getInput().getType());
    }
  }];
}

def Ckpt_SoftmaxOp : Ckpt_SoftmaxLikeOp<"softmax", "softmax">;
def Ckpt_LogSoftmaxOp : Ckpt_SoftmaxLikeOp<"log_softmax", "log_softmax">;

def Ckpt_LayerNormOp : Ckpt_InferringOp<"layer_norm",
    [AttrSizedOperandSegments] # Ckpt_Differentiable> {
  let summary = "layer normalisation over trailing dimensions (torch.native_layer_norm)";
  let description = [{
    Normalises `input` over its trailing dimensions `normalized_shape`
    to zero mean and unit variance (biased variance, `eps` added before the
    square root), then scales by the optional `weight` and shifts by the
    optional `bias` (both of shape `normalized_shape`).

    Like PyTorch's `native_layer_norm` it has three results: the output,
    and the per-row `mean` and reciprocal standard deviation `rstd`, shaped
    as the leading dimensions followed by a 1 for every normalised
    dimension. The gradient reads `mean` and `rstd` instead of recomputing
    them.

    Example:

    ```mlir
    %y, %mean, %rstd = ckpt.layer_norm %x weight %g bias %b normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>)
        -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input,
                       Optional<Ckpt_FloatTensor>:$weight,
                       Optional<Ckpt_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$normalized_shape,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Ckpt_FloatTensor:$result, Ckpt_FloatTensor:$mean,
                      Ckpt_FloatTensor:$rstd);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)?
    `normalized_shape` `=` $normalized_shape (`eps` `=` $eps^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Ckpt_RmsNormOp : Ckpt_InferringOp<"rms_norm", Ckpt_Differentiable> {
  let summary = "root-mean-square normalisation over trailing dimensions";
  let description = [{
    Divides `input` by the root mean square of its trailing dimensions
    `normalized_shape` (`eps` added before the square root) and scales by
    the optional `weight` (of shape `normalized_shape`), as
    `torch.nn.functional.rms_norm`. The second result is the reciprocal
    RMS `rstd`, shaped as the leading dimensions followed by a 1 for every
    normalised dimension, which the gradient reads.

    Example:

    ```mlir
    %y, %rstd = ckpt.rms_norm %x weight %g normalized_shape = [512] eps = 1.000000e-05
        : (tensor<8x512x512xf32>, tensor<512xf32>)
        -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>)
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input,
                       Optional<Ckpt_FloatTensor>:$weight,
                       DenseI64ArrayAttr:$normalized_shape,
                       DefaultValuedAttr<F64Attr, "1.0e-6">:$eps);
  let results = (outs Ckpt_FloatTensor:$result, Ckpt_FloatTensor:$rstd);
  let assemblyFormat = [{
    $input (`weight` $weight^)? `normalized_shape` `=` $normalized_shape
    (`eps` `=` $eps^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Randomness
//===----------------------------------------------------------------------===//

def Ckpt_RandomResource : Resource<"::ckpt::RandomResource">;

def Ckpt_DropoutOp : Ckpt_Op<"dropout", [
    AllTypesMatch<["input", "result"]>, Ckpt_LowersHalfFloats,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<Ckpt_RandomOpInterface, ["getNumCounters"]>] #
    Ckpt_Differentiable> {
  let summary = "inverted dropout (torch.nn.functional.dropout, training mode)";
  let description = [{
    Zeroes each element with probability `p` and scales the survivors by
    `1 / (1 - p)`. `p = 0` is the identity and `p = 1` zeroes everything;
    `p` outside `[0, 1]` is rejected.

    The mask comes from one of two places:

    - **Explicit** (`rng %state offset = o`): element `i` is kept according
      to counter `base + o + i / 4`, lane `i % 4`, of the Philox stream
      `%state`. The op is pure, its gradient regenerates the same mask from
      the same counters, and it may be recomputed.
    - **Implicit** (no `rng`): the op draws from an implicit generator — it
      reads and advances the random-state resource — so it is not pure: two
      dropouts of one value are two different masks and are never merged,
      and there is no way to draw its mask again. `ckpt-thread-rng` turns
      implicit dropouts into explicit ones.

    Example:

    ```mlir
    %y = ckpt.dropout %x p = 1.000000e-01 : tensor<8x512x512xf32>
    %z = ckpt.dropout %x rng %state offset = 0 p = 1.000000e-01 : tensor<8x512x512xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input, Optional<Ckpt_RngType>:$rng,
                       OptionalAttr<I64Attr>:$offset, F64Attr:$p);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`rng` $rng^ `offset` `=` $offset)? `p` `=` $p attr-dict `:`
    type($input)
  }];
  let hasVerifier = 1;
}

def Ckpt_RngAdvanceOp : Ckpt_Op<"rng_advance", [Pure] # Ckpt_Costed> {
  let summary = "the random state after a step's draws";
  let description = [{
    The state `state` with its base counter moved past the `counters`
    Philox counters one call of the function draws, so the next call (the
    next training step) never reuses numbers. Training steps return it.

    Example:

    ```mlir
    %next = ckpt.rng_advance %state counters = 69632
    ```
  }];
  let arguments = (ins Ckpt_RngType:$state, I64Attr:$counters);
  let results = (outs Ckpt_RngType:$result);
  let assemblyFormat = "$state `counters` `=` $counters attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def Ckpt_ScaledDotProductAttentionOp : Ckpt_Op<"scaled_dot_product_attention", [
    AttrSizedOperandSegments, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<Ckpt_RandomOpInterface, ["getNumCounters"]>] #
    Ckpt_DifferentiableWithScratch> {
  let summary = "scaled dot-product attention, differentiated as flash attention (torch.nn.functional.scaled_dot_product_attention)";
  let description = [{
    For `query` `[N, H, L, E]`, `key` `[N, Hkv, S, E]` and `value`
    `[N, Hkv, S, Ev]`, computes `softmax(scale * query key^T + mask) value`
    per head, giving `[N, H, L, Ev]`. Query head `h` reads key and value
    head `h / (H / Hkv)`, so `H` must be a multiple of `Hkv` (grouped-query
    attention; `Hkv = H` is plain multi-head attention).

    - `mask`, optional, is added to the scores; it broadcasts to
      `[N, H, L, S]` and holds 0 where a key takes part and -inf where it
      does not (a boolean mask becomes this at import).
    - `causal` masks key `j > i` for query `i`, as PyTorch's `is_causal`
      (top-left aligned); it excludes `mask`.
    - `p` is the dropout probability on the attention weights, drawn as
      `ckpt.dropout` draws a tensor of shape `[N, H, L, S]`: from the
      explicit `rng` state at `offset`, or from the implicit generator
      until `ckpt-thread-rng` makes it explicit.

    The second result is the log-sum-exp of each row of masked, scaled
    scores, `[N, H, L]`. As in flash attention, the gradient reads the
    operands, the output and this statistic, and recomputes the weights
    from them: the saved tensors are O(L), never the `L x S` weights. The
    lowering materialises the scores of all heads while the op runs; the
    cost model counts them as scratch.

    Example:

    ```mlir
    %o, %lse = ckpt.scaled_dot_product_attention %q, %k, %v causal scale = 1.250000e-01
        : (tensor<2x8x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>)
        -> (tensor<2x8x64x64xf32>, tensor<2x8x64xf32>)
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$query, Ckpt_FloatTensor:$key,
                       Ckpt_FloatTensor:$value,
                       Optional<Ckpt_FloatTensor>:$mask,
                       Optional<Ckpt_RngType>:$rng,
                       OptionalAttr<I64Attr>:$offset,
                       UnitAttr:$causal, F64Attr:$scale,
                       DefaultValuedAttr<F64Attr, "0.0">:$p);
  let results = (outs Ckpt_FloatTensor:$result, Ckpt_FloatTensor:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)?
    (`rng` $rng^ `offset` `=` $offset)? (`causal` $causal^)?
    `scale` `=` $scale (`p` `=` $p^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

def Ckpt_ReshapeOp : Ckpt_Op<"reshape", [Pure, Ckpt_LowersHalfFloats,
    AllElementTypesMatch<["input", "result"]>] # Ckpt_Differentiable> {
  let summary = "same elements, new shape (torch.reshape / view)";
  let description = [{
    Reinterprets `input` in row-major order with the result's shape. Element
    type and element count stay the same.

    Example:

    ```mlir
    %y = ckpt.reshape %x : tensor<8x512x768xf32> -> tensor<8x512x12x64xf32>
    ```
  }];
  let arguments = (ins Ckpt_AnyTensor:$input);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Ckpt_TransposeOp : Ckpt_InferringOp<"transpose",
    [Ckpt_LowersHalfFloats] # Ckpt_Differentiable> {
  let summary = "permutes dimensions (torch.permute; transpose swaps two)";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`. PyTorch's
    `transpose(a, b)` is the permutation that swaps `a` and `b`.

    Example:

    ```mlir
    %y = ckpt.transpose %x permutation = [0, 2, 1, 3] : tensor<8x64x12x64xf32> -> tensor<8x12x64x64xf32>
    ```
  }];
  let arguments = (ins Ckpt_AnyTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = [{
    $input `permutation` `=` $permutation attr-dict `:` type($input) `->`
    type($result)
  }];
}

def Ckpt_BroadcastToOp : Ckpt_Op<"broadcast_to", [Pure, Ckpt_LowersHalfFloats,
    Ckpt_Pointwise, AllElementTypesMatch<["input", "result"]>] #
    Ckpt_Differentiable> {
  let summary = "broadcasts to a larger shape (torch.broadcast_to / expand)";
  let description = [{
    Stretches `input` to the result's shape with NumPy rules: dimensions
    align from the right, and each input dimension equals the result's or
    is 1; the result may add leading dimensions.

    Example:

    ```mlir
    %y = ckpt.broadcast_to %b : tensor<512xf32> -> tensor<8x512x512xf32>
    ```
  }];
  let arguments = (ins Ckpt_AnyTensor:$input);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Ckpt_SliceOp : Ckpt_InferringOp<"slice",
    [Ckpt_LowersHalfFloats] # Ckpt_Differentiable> {
  let summary = "strided slice along one dimension (x[..., start:end:step])";
  let description = [{
    Keeps indices `start, start + step, ...` below `end` along dimension
    `dim`, with `0 <= start <= end <= size` and `step >= 1`; the result
    has `ceil((end - start) / step)` elements there.

    Example:

    ```mlir
    %q = ckpt.slice %qkv dim = 2 start = 0 end = 768
        : tensor<8x64x2304xf32> -> tensor<8x64x768xf32>
    %even = ckpt.slice %x dim = 0 start = 0 end = 8 step = 2
        : tensor<8x4xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Ckpt_AnyTensor:$input, I64Attr:$dim, I64Attr:$start,
                       I64Attr:$end, DefaultValuedAttr<I64Attr, "1">:$step);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = [{
    $input `dim` `=` $dim `start` `=` $start `end` `=` $end
    (`step` `=` $step^)? attr-dict `:` type($input) `->` type($result)
  }];
}

def Ckpt_ConcatOp : Ckpt_InferringOp<"concat",
    [Ckpt_LowersHalfFloats] # Ckpt_Differentiable> {
  let summary = "joins tensors along one dimension (torch.cat)";
  let description = [{
    All inputs have the same rank and element type and agree on every
    dimension but `dim`, whose sizes add up in the result.

    Example:

    ```mlir
    %y = ckpt.concat %a, %b dim = 1
        : (tensor<8x16xf32>, tensor<8x32xf32>) -> tensor<8x48xf32>
    ```
  }];
  let arguments = (ins Variadic<Ckpt_AnyTensor>:$inputs, I64Attr:$dim);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `=` $dim attr-dict `:` functional-type($inputs, results)
  }];
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// A sum over every dimension of a large tensor has partial sums as scratch
// (SumSplit.h).
class Ckpt_ReduceOp<string mnemonic, string torchName, list<Trait> traits = []>
    : Ckpt_InferringOp<mnemonic, traits # Ckpt_DifferentiableWithScratch> {
  let summary = "reduction over dimensions (" # torchName # ")";
  let description = [{
    Reduces `input` with `}] # torchName # [{` over `dims` (all
    dimensions when `dims` is absent). The reduced dimensions are dropped,
    or kept with size 1 when `keepdim` is set.

    Example:

    ```mlir
    %l = ckpt.}] # mnemonic # [{ %y : tensor<8x512x512xf32> -> tensor<f32>
    %r = ckpt.}] # mnemonic # [{ %y dims = [2] keepdim : tensor<8x512x512xf32> -> tensor<8x512x1xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input,
                       OptionalAttr<DenseI64ArrayAttr>:$dims, UnitAttr:$keepdim);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`dims` `=` $dims^)? (`keepdim` $keepdim^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let extraClassDefinition = Ckpt_VerifyByInference # [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return inferReductionType(location, getOperationName(),
                                adaptor.getInput().getType(), adaptor.getDims(),
                                adaptor.getKeepdim(), inferred);
    }
  }];
}

def Ckpt_ReduceSumOp : Ckpt_ReduceOp<"reduce_sum", "torch.sum",
                                     [Ckpt_LowersHalfFloats]>;
def Ckpt_ReduceMeanOp : Ckpt_ReduceOp<"reduce_mean", "torch.mean",
                                      [Ckpt_LowersHalfFloats]>;
def Ckpt_ReduceMaxOp : Ckpt_ReduceOp<"reduce_max", "torch.amax">;
// The Euclidean norm, the square root of the sum of squares (ord 2).
def Ckpt_ReduceNormOp : Ckpt_ReduceOp<"reduce_norm", "torch.linalg.vector_norm",
                                      [Ckpt_LowersHalfFloats]>;

//===----------------------------------------------------------------------===//
// Lookup and losses
//===----------------------------------------------------------------------===//

def Ckpt_EmbeddingOp : Ckpt_InferringOp<"embedding", Ckpt_Differentiable> {
  let summary = "table lookup (torch.nn.functional.embedding)";
  let description = [{
    Gathers rows of `weight` (`[V, D]`) at `indices` (any `i64` shape `S`),
    giving `S x [D]`. Indices must lie in `[0, V)`. With `padding_idx` (in
    `[0, V)`, as `nn.Embedding(padding_idx=...)`), lookups of that row
    still read it, but its gradient stays zero.

    Example:

    ```mlir
    %e = ckpt.embedding %tokens, %wte
        : (tensor<8x64xi64>, tensor<50304x768xf32>) -> tensor<8x64x768xf32>
    %p = ckpt.embedding %tokens, %wte padding_idx = 0
        : (tensor<8x64xi64>, tensor<50304x768xf32>) -> tensor<8x64x768xf32>
    ```
  }];
  let arguments = (ins Ckpt_IndexTensor:$indices, Ckpt_FloatTensor:$weight,
                       OptionalAttr<I64Attr>:$padding_idx);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $indices `,` $weight (`padding_idx` `=` $padding_idx^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Ckpt_CrossEntropyOp : Ckpt_InferringOp<"cross_entropy",
    Ckpt_DifferentiableWithScratch> {
  let summary = "mean cross-entropy of logits against class labels (torch.nn.functional.cross_entropy)";
  let description = [{
    `logits` is `[N, C]` and `labels` is `[N]` (`i64`, each in `[0, C)`).
    Returns the mean over the batch of `-log_softmax(logits)[n, labels[n]]`
    as a scalar tensor of the logits' element type.

    With `ignore_index` (as `F.cross_entropy`'s, -100 by default there),
    rows labelled with that value add nothing and the mean is over the
    other rows: the loss of a batch where every row is ignored is NaN
    (0/0), as PyTorch's.

    Example:

    ```mlir
    %loss = ckpt.cross_entropy %logits, %labels ignore_index = -100
        : (tensor<512x50304xf32>, tensor<512xi64>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$logits, Ckpt_IndexTensor:$labels,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs Ckpt_ScalarFloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels (`ignore_index` `=` $ignore_index^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Ckpt_MseLossOp : Ckpt_InferringOp<"mse_loss",
    [Ckpt_LowersHalfFloats] # Ckpt_DifferentiableWithScratch> {
  let summary = "mean squared error (torch.nn.functional.mse_loss)";
  let description = [{
    Returns `mean((input - target)^2)` over all elements as a scalar tensor;
    `input` and `target` have the same type.

    Example:

    ```mlir
    %loss = ckpt.mse_loss %y, %target : (tensor<8x512xf32>, tensor<8x512xf32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input, Ckpt_FloatTensor:$target);
  let results = (outs Ckpt_ScalarFloatTensor:$result);
  let assemblyFormat = [{
    operands attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Vision
//
// Images are NCHW: [batch, channels, height, width]. Window attributes are
// [height, width] pairs.
//===----------------------------------------------------------------------===//

// The attributes of a convolution, shared by conv2d and its gradient ops.
defvar Ckpt_ConvAttributes = (ins
    DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$stride,
    DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
    DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
    DefaultValuedAttr<I64Attr, "1">:$groups);
// The lowering a convolution op gets (ckpt/Dialect/Ckpt/IR/ConvAlgorithm.h),
// the images one of its products takes (one when pointwise) and the bytes
// of their columns and of their output block (0 for one image), which its
// scratch bytes count when that lowering is `Columns`.
defvar Ckpt_ConvLowering = [{
  ::ckpt::ConvAlgorithm getAlgorithm();
  int64_t getImagesPerProduct();
  uint64_t getColumnBytes();
  uint64_t getBlockBytes();
}];
defvar Ckpt_ConvAttributeSyntax = [{
  (`stride` `=` $stride^)? (`padding` `=` $padding^)?
  (`dilation` `=` $dilation^)? (`groups` `=` $groups^)?
}];

// The attributes of a pooling window; an absent stride is the kernel size.
// With ceil_mode the output size rounds up (PyTorch's ceil_mode = True):
// a last window may hang over the padded input's end, but starts inside
// the input or its leading padding.
defvar Ckpt_PoolAttributes = (ins
    DenseI64ArrayAttr:$kernel,
    OptionalAttr<DenseI64ArrayAttr>:$stride,
    DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
    DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
defvar Ckpt_PoolAttributeSyntax = [{
  `kernel` `=` $kernel (`stride` `=` $stride^)? (`padding` `=` $padding^)?
  (`ceil_mode` `=` $ceil_mode^)?
}];
defvar Ckpt_PoolStride = [{
  /// The stride of the window: the written one, or the kernel size.
  ::llvm::ArrayRef<int64_t> getWindowStride() {
    return getStride().value_or(getKernel());
  }
}];

def Ckpt_Conv2dOp : Ckpt_InferringOp<"conv2d",
    Ckpt_DifferentiableWithScratch> {
  let summary = "2-D convolution of NCHW images (torch.nn.functional.conv2d)";
  let description = [{
    Convolves `input` (`[N, C, H, W]`) with `weight`
    (`[OC, C / groups, KH, KW]`) and adds the optional `bias` (`[OC]`),
    as PyTorch's `conv2d` (a cross-correlation). The input is padded with
    `padding` zeros on each side; the kernel is sampled every `dilation`
    elements and moved by `stride`. The channels are split into `groups`
    independent groups: output channel `oc` reads the input channels of
    group `oc / (OC / groups)`; `C` and `OC` must be multiples of
    `groups`. The result is `[N, OC, OH, OW]` with
    `OH = (H + 2 ph - dh (KH - 1) - 1) / sh + 1` (rounded down), and `OW`
    likewise. Defaults (omitted when printed): `stride = [1, 1]`,
    `padding = [0, 0]`, `dilation = [1, 1]`, `groups = 1`.

    Example:

    ```mlir
    %y = ckpt.conv2d %x, %w bias %b stride = [2, 2] padding = [1, 1]
        : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<8x16x16x16xf32>
    ```
  }];
  let arguments = !con((ins Ckpt_FloatTensor:$input, Ckpt_FloatTensor:$weight,
                            Optional<Ckpt_FloatTensor>:$bias),
                       Ckpt_ConvAttributes);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = !strconcat("$input `,` $weight (`bias` $bias^)?",
      Ckpt_ConvAttributeSyntax,
      "attr-dict `:` functional-type(operands, results)");
  let extraClassDeclaration = Ckpt_ConvLowering;
}

def Ckpt_MaxPool2dOp : Ckpt_InferringOp<"max_pool2d",
    Ckpt_DifferentiableWithScratch> {
  let summary = "2-D max pooling with indices (torch.nn.functional.max_pool2d_with_indices)";
  let description = [{
    Takes the maximum of each `kernel` window of `input` (`[N, C, H, W]`),
    moved by `stride` (the kernel size when absent) over the input padded
    with `padding` elements of -infinity on each side. `padding` is at
    most half the kernel. The second result holds, for each output
    element, the position `h * W + w` of the maximum in its input plane:
    the first maximum in row-major window order on ties (a NaN counts as
    the maximum), as PyTorch returns. Both results are
    `[N, C, OH, OW]` with `OH = (H + 2 ph - KH) / sh + 1` (rounded down);
    the gradient reads the indices only. With `ceil_mode = true` the sizes
    round up, and a window's elements past the padded input take no part.

    Example:

    ```mlir
    %y, %i = ckpt.max_pool2d %x kernel = [3, 3] stride = [2, 2] padding = [1, 1]
        : (tensor<8x16x32x32xf32>) -> (tensor<8x16x16x16xf32>, tensor<8x16x16x16xi64>)
    ```
  }];
  let arguments = !con((ins Ckpt_FloatTensor:$input), Ckpt_PoolAttributes);
  let results = (outs Ckpt_FloatTensor:$result, Ckpt_IndexTensor:$indices);
  let assemblyFormat = !strconcat("$input", Ckpt_PoolAttributeSyntax,
      "attr-dict `:` functional-type(operands, results)");
  let extraClassDeclaration = Ckpt_PoolStride;
}

def Ckpt_AvgPool2dOp : Ckpt_InferringOp<"avg_pool2d",
    Ckpt_DifferentiableWithScratch> {
  let summary = "2-D average pooling (torch.nn.functional.avg_pool2d)";
  let description = [{
    Averages each `kernel` window of `input` (`[N, C, H, W]`), moved by
    `stride` (the kernel size when absent) over the input padded with
    `padding` zeros on each side (at most half the kernel). With
    `count_include_pad = true` (the default, omitted when printed) every
    average divides by the kernel size; with `false` it divides by the
    number of window elements inside the unpadded input. The result is
    `[N, C, OH, OW]` with `OH = (H + 2 ph - KH) / sh + 1`, rounded down, or
    up with `ceil_mode = true`; then a last window hanging over the padded
    input's end divides by its part inside the padded input (with
    `count_include_pad`), as PyTorch does.

    Example:

    ```mlir
    %y = ckpt.avg_pool2d %x kernel = [2, 2] : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>
    ```
  }];
  let arguments = !con((ins Ckpt_FloatTensor:$input), Ckpt_PoolAttributes,
                       (ins DefaultValuedAttr<BoolAttr, "true">:$count_include_pad));
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = !strconcat("$input", Ckpt_PoolAttributeSyntax,
      "(`count_include_pad` `=` $count_include_pad^)? attr-dict `:` ",
      "type($input) `->` type($result)");
  let extraClassDeclaration = Ckpt_PoolStride;
}

def Ckpt_UpsampleNearest2dOp : Ckpt_InferringOp<"upsample_nearest2d",
    Ckpt_Differentiable> {
  let summary = "nearest-neighbour upsampling by integer factors (torch.nn.functional.interpolate, mode='nearest')";
  let description = [{
    Repeats every element of `input` (`[N, C, H, W]`) `scale[0]` times
    along the height and `scale[1]` times along the width, giving
    `[N, C, H * scale[0], W * scale[1]]`. Scale factors are positive
    integers.

    Example:

    ```mlir
    %y = ckpt.upsample_nearest2d %x scale = [2, 2] : tensor<8x16x16x16xf32> -> tensor<8x16x32x32xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input, DenseI64ArrayAttr:$scale);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $input `scale` `=` $scale attr-dict `:` type($input) `->` type($result)
  }];
}

def Ckpt_BatchNormOp : Ckpt_InferringOp<"batch_norm",
    [AttrSizedOperandSegments] # Ckpt_DifferentiableWithScratch> {
  let summary = "batch normalisation in training mode (torch.nn.functional.batch_norm, training=True)";
  let description = [{
    Normalises `input` (`[N, C]`, `[N, C, L]` or `[N, C, H, W]`) per
    channel over all other dimensions (`M` values per channel) to zero
    mean and unit variance (biased variance, `eps` added before the square
    root), then scales by the optional `weight` and shifts by the optional
    `bias` (both `[C]`). `M` must be more than 1.

    The results are the output and the per-channel batch `mean` and
    reciprocal standard deviation `rstd` (`[C]`; the gradient reads them).
    The running statistics PyTorch updates in the same call are another
    op's, `ckpt.batch_norm_update_stats`, which reads this op's `mean`: a
    recomputation of the normalisation during backward then computes
    exactly what the forward's did, and nothing else. All operands share
    one element type; `eps` is non-negative (default 1e-5). As in
    PyTorch's CPU kernel, the per-channel sums of `f32` values accumulate
    in `f64`.

    Example:

    ```mlir
    %y, %mean, %rstd = ckpt.batch_norm %x weight %g bias %b
        : (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>)
        -> (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>)
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input,
                       Optional<Ckpt_FloatTensor>:$weight,
                       Optional<Ckpt_FloatTensor>:$bias,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Ckpt_FloatTensor:$result, Ckpt_FloatTensor:$mean,
                      Ckpt_FloatTensor:$rstd);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? (`eps` `=` $eps^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Ckpt_BatchNormUpdateStatsOp : Ckpt_InferringOp<"batch_norm_update_stats",
    [Ckpt_StopsGradient] # Ckpt_CostedWithScratch> {
  let summary = "running statistics of batch normalisation after a batch (the update torch.nn.functional.batch_norm makes in training mode)";
  let description = [{
    The running statistics after one training batch, as PyTorch updates
    them, from the batch norm's `input` (`M` values per channel) and the
    batch `mean` that `ckpt.batch_norm` computed from it:

    - `new_running_mean = (1 - momentum) * running_mean + momentum * mean`
    - `new_running_var = (1 - momentum) * running_var + momentum * var`,
      where `var` is the unbiased batch variance, the sum of the squares
      of `input - mean` over `M - 1` (summed in `f64` for `f32`, as
      `ckpt.batch_norm` sums them).

    The statistics are values, not buffers: the op reads `running_mean`
    and `running_var` and returns the updated statistics, mutating
    nothing; a forward graph returns them after its loss, and its training
    step returns them in turn (`ckpt-autodiff`). They are outside autograd,
    as PyTorch's buffers are: no gradient flows through this op, and
    backward never reads its results, so no plan recomputes it. All
    operands share one element type; `mean` and the running statistics
    are `[C]`; `momentum` lies in `[0, 1]` (default 0.1).

    Example:

    ```mlir
    %rm, %rv = ckpt.batch_norm_update_stats %x, %mean running_mean %m running_var %v
        : (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
        -> (tensor<16xf32>, tensor<16xf32>)
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input, Ckpt_FloatTensor:$mean,
                       Ckpt_FloatTensor:$running_mean,
                       Ckpt_FloatTensor:$running_var,
                       DefaultValuedAttr<F64Attr, "0.1">:$momentum);
  let results = (outs Ckpt_FloatTensor:$new_running_mean,
                      Ckpt_FloatTensor:$new_running_var);
  let assemblyFormat = [{
    $input `,` $mean `running_mean` $running_mean `running_var` $running_var
    (`momentum` `=` $momentum^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Backward
//
// Gradient ops that the rules of the forward ops build. Where a forward op
// already computes what a rule needs (matmul, transpose, reduce_sum,
// broadcast_to, mul, ...), the rule uses it instead.
//===----------------------------------------------------------------------===//

class Ckpt_PointwiseGradOp<string mnemonic, string forward, string reads,
                           string formula>
    : Ckpt_Op<mnemonic, [Pure, SameOperandsAndResultType,
                         Ckpt_LowersHalfFloats, Ckpt_Pointwise] # Ckpt_Costed> {
  let summary = "input gradient of ckpt." # forward;
  let description = [{
    Computes the gradient of `ckpt.}] # forward # [{`'s input from the
    gradient of its result, `grad`, and its forward }] # reads # [{:
    `}] # formula # [{`.

    Example:

    ```mlir
    %dx = ckpt.}] # mnemonic # [{ %dy, %saved : tensor<8x512xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$forward);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $forward attr-dict `:` type($result)";
}

def Ckpt_SigmoidGradOp : Ckpt_PointwiseGradOp<"sigmoid_grad", "sigmoid",
    "result y", "grad * y * (1 - y)">;
def Ckpt_TanhGradOp : Ckpt_PointwiseGradOp<"tanh_grad", "tanh",
    "result y", "grad * (1 - y * y)">;
def Ckpt_ReluGradOp : Ckpt_PointwiseGradOp<"relu_grad", "relu",
    "result y", "y > 0 ? grad : 0">;
def Ckpt_AbsGradOp : Ckpt_PointwiseGradOp<"abs_grad", "abs",
    "input x", "grad * sign(x)">;

def Ckpt_ClampGradOp : Ckpt_Op<"clamp_grad", [Pure, SameOperandsAndResultType,
                                              Ckpt_LowersHalfFloats,
                                              Ckpt_Pointwise]
                                              # Ckpt_Costed> {
  let summary = "input gradient of ckpt.clamp";
  let description = [{
    Passes `grad` where the forward input `x` lies within the forward op's
    bounds (`min <= x <= max`), and 0 elsewhere.

    Example:

    ```mlir
    %dx = ckpt.clamp_grad %dy, %x min = 0.0 max = 6.0 : tensor<8x512xf32>
    ```
  }];
  let arguments = !con((ins Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$forward),
                       Ckpt_ClampBounds);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $forward (`min` `=` $min^)? (`max` `=` $max^)? attr-dict `:`
    type($result)
  }];
  let hasVerifier = 1;
}

def Ckpt_SiluGradOp : Ckpt_PointwiseGradOp<"silu_grad", "silu",
    "input x", "grad * s * (1 + x * (1 - s)), s = sigmoid(x)">;

def Ckpt_GeluGradOp : Ckpt_PointwiseGradOp<"gelu_grad", "gelu", "input x",
    "grad * d gelu(x) / dx"> {
  let description = [{
    Computes the gradient of `ckpt.gelu`'s input from the gradient of its
    result, `grad`, and its forward input `x`, for the same `approximate`
    as the forward op (the exact erf form or the tanh approximation).

    Example:

    ```mlir
    %dx = ckpt.gelu_grad %dy, %x approximate = tanh : tensor<8x512x2048xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$forward,
      DefaultValuedAttr<Ckpt_GeluApproximation,
                        "::ckpt::GeluApproximation::None">:$approximate);
  let assemblyFormat = [{
    $grad `,` $forward (`approximate` `=` $approximate^)? attr-dict `:`
    type($result)
  }];
}

class Ckpt_SoftmaxLikeGradOp<string mnemonic, string forward, string formula>
    : Ckpt_Op<mnemonic, [Pure, SameOperandsAndResultType, Ckpt_LowersHalfFloats] #
                        Ckpt_CostedWithScratch> {
  let summary = "input gradient of ckpt." # forward;
  let description = [{
    Computes the gradient of `ckpt.}] # forward # [{`'s input from the
    gradient of its result, `grad`, and its forward result `y`, along the
    same `dim`: `}] # formula # [{`.

    Example:

    ```mlir
    %dx = ckpt.}] # mnemonic # [{ %dy, %y dim = 3 : tensor<8x12x64x64xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$forward,
                       I64Attr:$dim);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $forward `dim` `=` $dim attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyDimInRange(getOperation(), getDim(), getGrad().getType());
    }
  }];
}

def Ckpt_SoftmaxGradOp : Ckpt_SoftmaxLikeGradOp<"softmax_grad", "softmax",
    "y * (grad - sum(grad * y, dim))">;
def Ckpt_LogSoftmaxGradOp : Ckpt_SoftmaxLikeGradOp<"log_softmax_grad",
    "log_softmax", "grad - exp(y) * sum(grad, dim)">;

def Ckpt_LayerNormGradOp : Ckpt_InferringOp<"layer_norm_grad",
    Ckpt_CostedWithScratch> {
  let summary = "gradients of ckpt.layer_norm";
  let description = [{
    Computes the gradients of `ckpt.layer_norm`'s input, weight and bias from
    the gradient of its output, `grad`, and the forward `input`, `mean` and
    `rstd` (plus the `weight` when the forward op has one). The weight and
    bias gradients have shape `normalized_shape`; they are unused when the
    forward op has no weight or bias.

    Example:

    ```mlir
    %dx, %dw, %db = ckpt.layer_norm_grad %dy, %x, %mean, %rstd weight %w normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>, tensor<512xf32>)
        -> (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>)
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$input,
                       Ckpt_FloatTensor:$mean, Ckpt_FloatTensor:$rstd,
                       Optional<Ckpt_FloatTensor>:$weight,
                       DenseI64ArrayAttr:$normalized_shape);
  let results = (outs Ckpt_FloatTensor:$input_grad,
                      Ckpt_FloatTensor:$weight_grad,
                      Ckpt_FloatTensor:$bias_grad);
  let assemblyFormat = [{
    $grad `,` $input `,` $mean `,` $rstd (`weight` $weight^)?
    `normalized_shape` `=` $normalized_shape attr-dict `:`
    functional-type(operands, results)
  }];
}

def Ckpt_RmsNormGradOp : Ckpt_InferringOp<"rms_norm_grad",
    Ckpt_CostedWithScratch> {
  let summary = "gradients of ckpt.rms_norm";
  let description = [{
    Computes the gradients of `ckpt.rms_norm`'s input and weight from the
    gradient of its output, `grad`, and the forward `input` and `rstd` (plus
    the `weight` when the forward op has one). The weight gradient has shape
    `normalized_shape` and is unused when the forward op has no weight.

    Example:

    ```mlir
    %dx, %dw = ckpt.rms_norm_grad %dy, %x, %rstd weight %w normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<512xf32>)
        -> (tensor<8x512x512xf32>, tensor<512xf32>)
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$input,
                       Ckpt_FloatTensor:$rstd,
                       Optional<Ckpt_FloatTensor>:$weight,
                       DenseI64ArrayAttr:$normalized_shape);
  let results = (outs Ckpt_FloatTensor:$input_grad,
                      Ckpt_FloatTensor:$weight_grad);
  let assemblyFormat = [{
    $grad `,` $input `,` $rstd (`weight` $weight^)?
    `normalized_shape` `=` $normalized_shape attr-dict `:`
    functional-type(operands, results)
  }];
}

def Ckpt_EmbeddingGradOp : Ckpt_InferringOp<"embedding_grad", Ckpt_Costed> {
  let summary = "weight gradient of ckpt.embedding";
  let description = [{
    Accumulates the rows of `grad` (`S x [D]`) into a `[num_embeddings, D]`
    zero tensor at `indices` (`S`), but for the rows at `padding_idx`, which
    stay zero. Rows are added in index order, so the result is
    deterministic.

    Example:

    ```mlir
    %dw = ckpt.embedding_grad %dy, %tokens num_embeddings = 50304
        : (tensor<8x64x768xf32>, tensor<8x64xi64>) -> tensor<50304x768xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$grad, Ckpt_IndexTensor:$indices,
                       I64Attr:$num_embeddings,
                       OptionalAttr<I64Attr>:$padding_idx);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $indices `num_embeddings` `=` $num_embeddings
    (`padding_idx` `=` $padding_idx^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Ckpt_CrossEntropyGradOp : Ckpt_InferringOp<"cross_entropy_grad",
    Ckpt_CostedWithScratch> {
  let summary = "logits gradient of ckpt.cross_entropy";
  let description = [{
    Computes `grad * (softmax(logits) - one_hot(labels)) / N` for `[N, C]`
    logits, where `grad` is the scalar gradient of the loss. With
    `ignore_index`, the rows with that label get a zero gradient and `N`
    counts the others.

    Example:

    ```mlir
    %dl = ckpt.cross_entropy_grad %g, %logits, %labels
        : (tensor<f32>, tensor<512x50304xf32>, tensor<512xi64>) -> tensor<512x50304xf32>
    ```
  }];
  let arguments = (ins Ckpt_ScalarFloatTensor:$grad, Ckpt_FloatTensor:$logits,
                       Ckpt_IndexTensor:$labels,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $logits `,` $labels (`ignore_index` `=` $ignore_index^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Ckpt_MseLossGradOp : Ckpt_InferringOp<"mse_loss_grad",
    [Ckpt_LowersHalfFloats] # Ckpt_Costed> {
  let summary = "input gradient of ckpt.mse_loss";
  let description = [{
    Computes `grad * 2 * (input - target) / numel` where `grad` is the
    scalar gradient of the loss; the target's gradient is its negation.

    Example:

    ```mlir
    %dx = ckpt.mse_loss_grad %g, %y, %t
        : (tensor<f32>, tensor<8x512xf32>, tensor<8x512xf32>) -> tensor<8x512xf32>
    ```
  }];
  let arguments = (ins Ckpt_ScalarFloatTensor:$grad, Ckpt_FloatTensor:$input,
                       Ckpt_FloatTensor:$target);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    operands attr-dict `:` functional-type(operands, results)
  }];
}

def Ckpt_ReduceMaxGradOp : Ckpt_InferringOp<"reduce_max_grad",
    Ckpt_CostedWithScratch> {
  let summary = "input gradient of ckpt.reduce_max";
  let description = [{
    Distributes `grad` evenly over the elements of `input` that equal the
    reduced maximum `output` (as `torch.amax`'s backward does). `dims` and
    `keepdim` are the forward op's.

    Example:

    ```mlir
    %dx = ckpt.reduce_max_grad %dy, %x, %m dims = [1]
        : (tensor<8xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$input,
                       Ckpt_FloatTensor:$output,
                       OptionalAttr<DenseI64ArrayAttr>:$dims,
                       UnitAttr:$keepdim);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $input `,` $output (`dims` `=` $dims^)? (`keepdim` $keepdim^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Ckpt_ReduceNormGradOp : Ckpt_InferringOp<"reduce_norm_grad",
    [Ckpt_LowersHalfFloats] # Ckpt_Costed> {
  let summary = "input gradient of ckpt.reduce_norm";
  let description = [{
    `input * (grad / output)`, with `output` the Euclidean norm, and 0
    where the norm is 0 (its subgradient there, as the backward of
    `torch.linalg.vector_norm` takes it: a norm of a row of zeros, clamped
    by `F.normalize`, passes no gradient, where the square root of the
    sum of squares would give 0 * inf). `dims` and `keepdim` are the
    forward op's.

    Example:

    ```mlir
    %dx = ckpt.reduce_norm_grad %dy, %x, %n dims = [1] keepdim
        : (tensor<8x1xf32>, tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$input,
                       Ckpt_FloatTensor:$output,
                       OptionalAttr<DenseI64ArrayAttr>:$dims,
                       UnitAttr:$keepdim);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $input `,` $output (`dims` `=` $dims^)? (`keepdim` $keepdim^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Ckpt_DropoutGradOp : Ckpt_Op<"dropout_grad", [Pure,
    AllTypesMatch<["grad", "result"]>, Ckpt_LowersHalfFloats] # Ckpt_Costed> {
  let summary = "input gradient of an explicit ckpt.dropout";
  let description = [{
    Regenerates the mask of the explicit `ckpt.dropout` with the same `rng`
    state, `offset` and `p`, and applies it to `grad` with the same
    `1 / (1 - p)` scale. Nothing but the random state is saved.

    Example:

    ```mlir
    %dx = ckpt.dropout_grad %dy rng %state offset = 0 p = 1.000000e-01 : tensor<8x512x512xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$grad, Ckpt_RngType:$rng,
                       I64Attr:$offset, F64Attr:$p);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `rng` $rng `offset` `=` $offset `p` `=` $p attr-dict `:` type($grad)
  }];
  let hasVerifier = 1;
}

def Ckpt_SliceGradOp : Ckpt_Op<"slice_grad", [Pure, Ckpt_LowersHalfFloats]
                                              # Ckpt_Costed> {
  let summary = "input gradient of ckpt.slice";
  let description = [{
    Scatters `grad` back into a zero tensor of the result's (the forward
    input's) shape at the positions the forward `ckpt.slice` with the same
    `dim`, `start`, `end` and `step` read.

    Example:

    ```mlir
    %dx = ckpt.slice_grad %dq dim = 2 start = 0 end = 768
        : tensor<8x64x768xf32> -> tensor<8x64x2304xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$grad, I64Attr:$dim, I64Attr:$start,
                       I64Attr:$end, DefaultValuedAttr<I64Attr, "1">:$step);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `dim` `=` $dim `start` `=` $start `end` `=` $end
    (`step` `=` $step^)? attr-dict `:` type($grad) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Ckpt_Conv2dInputGradOp : Ckpt_Op<"conv2d_input_grad",
    [Pure] # Ckpt_CostedWithScratch> {
  let summary = "input gradient of ckpt.conv2d";
  let description = [{
    Computes the gradient of `ckpt.conv2d`'s input from the gradient of its
    result, `grad`, and the forward `weight`, for the same `stride`,
    `padding`, `dilation` and `groups`. The result type is the forward
    input's, written out because the rounding of the output size loses
    it: convolving a tensor of the result type with `weight` must give
    `grad`'s type.

    Example:

    ```mlir
    %dx = ckpt.conv2d_input_grad %dy, %w stride = [2, 2] padding = [1, 1]
        : (tensor<8x16x16x16xf32>, tensor<16x3x3x3xf32>) -> tensor<8x3x32x32xf32>
    ```
  }];
  let arguments = !con((ins Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$weight),
                       Ckpt_ConvAttributes);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = !strconcat("$grad `,` $weight",
      Ckpt_ConvAttributeSyntax,
      "attr-dict `:` functional-type(operands, results)");
  let extraClassDeclaration = Ckpt_ConvLowering;
  let hasVerifier = 1;
}

def Ckpt_Conv2dWeightGradOp : Ckpt_Op<"conv2d_weight_grad",
    [Pure] # Ckpt_CostedWithScratch> {
  let summary = "weight gradient of ckpt.conv2d";
  let description = [{
    Computes the gradient of `ckpt.conv2d`'s weight from the gradient of
    its result, `grad`, and the forward `input`, for the same `stride`,
    `padding`, `dilation` and `groups`. The result type is the weight's,
    written out (the kernel size does not follow from the operands):
    convolving `input` with a tensor of the result type must give
    `grad`'s type.

    Example:

    ```mlir
    %dw = ckpt.conv2d_weight_grad %dy, %x stride = [2, 2] padding = [1, 1]
        : (tensor<8x16x16x16xf32>, tensor<8x3x32x32xf32>) -> tensor<16x3x3x3xf32>
    ```
  }];
  let arguments = !con((ins Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$input),
                       Ckpt_ConvAttributes);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = !strconcat("$grad `,` $input",
      Ckpt_ConvAttributeSyntax,
      "attr-dict `:` functional-type(operands, results)");
  let extraClassDeclaration = Ckpt_ConvLowering;
  let hasVerifier = 1;
}

def Ckpt_MaxPool2dGradOp : Ckpt_Op<"max_pool2d_grad",
    [Pure] # Ckpt_CostedWithScratch> {
  let summary = "input gradient of ckpt.max_pool2d";
  let description = [{
    Adds each element of `grad` to the input position its window's maximum
    came from (`indices`, as `ckpt.max_pool2d` returns them); positions
    that several windows chose accumulate, in the order of the output
    positions. The result type is the forward input's; `kernel`, `stride`
    and `padding` are the forward op's, so each input position visits only
    the windows that contain it.

    Example:

    ```mlir
    %dx = ckpt.max_pool2d_grad %dy, %i kernel = [3, 3] stride = [2, 2] padding = [1, 1]
        : (tensor<8x16x16x16xf32>, tensor<8x16x16x16xi64>) -> tensor<8x16x32x32xf32>
    ```
  }];
  let arguments = !con((ins Ckpt_FloatTensor:$grad, Ckpt_IndexTensor:$indices),
                       Ckpt_PoolAttributes);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = !strconcat("$grad `,` $indices",
      Ckpt_PoolAttributeSyntax,
      "attr-dict `:` functional-type(operands, results)");
  let hasVerifier = 1;
  let extraClassDeclaration = Ckpt_PoolStride;
}

def Ckpt_AvgPool2dGradOp : Ckpt_Op<"avg_pool2d_grad",
    [Pure] # Ckpt_CostedWithScratch> {
  let summary = "input gradient of ckpt.avg_pool2d";
  let description = [{
    Spreads each element of `grad`, divided by its window's divisor, over
    the unpadded input positions of its window, with the forward op's
    `kernel`, `stride`, `padding` and `count_include_pad`; overlapping
    windows accumulate in the order of the output positions. The result
    type is the forward input's.

    Example:

    ```mlir
    %dx = ckpt.avg_pool2d_grad %dy kernel = [2, 2] : tensor<8x16x16x16xf32> -> tensor<8x16x32x32xf32>
    ```
  }];
  let arguments = !con((ins Ckpt_FloatTensor:$grad), Ckpt_PoolAttributes,
                       (ins DefaultValuedAttr<BoolAttr, "true">:$count_include_pad));
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = !strconcat("$grad", Ckpt_PoolAttributeSyntax,
      "(`count_include_pad` `=` $count_include_pad^)? attr-dict `:` ",
      "type($grad) `->` type($result)");
  let hasVerifier = 1;
  let extraClassDeclaration = Ckpt_PoolStride;
}

def Ckpt_UpsampleNearest2dGradOp : Ckpt_InferringOp<"upsample_nearest2d_grad",
    Ckpt_Costed> {
  let summary = "input gradient of ckpt.upsample_nearest2d";
  let description = [{
    Sums each `scale[0] x scale[1]` block of `grad` (`[N, C, OH, OW]`,
    both sizes multiples of the scale) into one element, giving
    `[N, C, OH / scale[0], OW / scale[1]]`.

    Example:

    ```mlir
    %dx = ckpt.upsample_nearest2d_grad %dy scale = [2, 2] : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$grad, DenseI64ArrayAttr:$scale);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `scale` `=` $scale attr-dict `:` type($grad) `->` type($result)
  }];
}

def Ckpt_BatchNormGradOp : Ckpt_InferringOp<"batch_norm_grad",
                                            Ckpt_CostedWithScratch> {
  let summary = "gradients of ckpt.batch_norm";
  let description = [{
    Computes the gradients of `ckpt.batch_norm`'s input, weight and bias
    from the gradient of its output, `grad`, and the forward `input`,
    `mean` and `rstd` (plus the `weight` when the forward op has one), as
    PyTorch's training-mode backward. The weight and bias gradients are
    `[C]`; they are unused when the forward op has no weight or bias. The
    per-channel sums of `f32` values accumulate in `f64`.

    Example:

    ```mlir
    %dx, %dw, %db = ckpt.batch_norm_grad %dy, %x, %mean, %rstd weight %g
        : (tensor<8x16x32x32xf32>, tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
        -> (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>)
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$input,
                       Ckpt_FloatTensor:$mean, Ckpt_FloatTensor:$rstd,
                       Optional<Ckpt_FloatTensor>:$weight);
  let results = (outs Ckpt_FloatTensor:$input_grad,
                      Ckpt_FloatTensor:$weight_grad,
                      Ckpt_FloatTensor:$bias_grad);
  let assemblyFormat = [{
    $grad `,` $input `,` $mean `,` $rstd (`weight` $weight^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Ckpt_ScaledDotProductAttentionGradOp : Ckpt_InferringOp<
    "scaled_dot_product_attention_grad",
    [AttrSizedOperandSegments] # Ckpt_CostedWithScratch> {
  let summary = "gradients of ckpt.scaled_dot_product_attention";
  let description = [{
    The gradients of query, key and value of `ckpt.scaled_dot_product_attention`
    from the gradient of its output, `grad`, as flash attention computes
    them: the weights are recomputed from the forward `query`, `key`,
    `mask` and log-sum-exp `lse`, and the dropout mask is drawn again from
    the same `rng` state and `offset`. `result` is the forward output,
    whose row dot products with `grad` give the softmax correction. The key
    and value gradients sum over the query heads that share a key head.

    Example:

    ```mlir
    %dq, %dk, %dv = ckpt.scaled_dot_product_attention_grad %do, %q, %k, %v, %o, %lse causal scale = 1.250000e-01
        : (tensor<2x8x64x64xf32>, tensor<2x8x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x8x64x64xf32>, tensor<2x8x64xf32>)
        -> (tensor<2x8x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>)
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$query,
                       Ckpt_FloatTensor:$key, Ckpt_FloatTensor:$value,
                       Ckpt_FloatTensor:$result, Ckpt_FloatTensor:$lse,
                       Optional<Ckpt_FloatTensor>:$mask,
                       Optional<Ckpt_RngType>:$rng,
                       OptionalAttr<I64Attr>:$offset,
                       UnitAttr:$causal, F64Attr:$scale,
                       DefaultValuedAttr<F64Attr, "0.0">:$p);
  let results = (outs Ckpt_FloatTensor:$query_grad,
                      Ckpt_FloatTensor:$key_grad,
                      Ckpt_FloatTensor:$value_grad);
  let assemblyFormat = [{
    $grad `,` $query `,` $key `,` $value `,` $result `,` $lse
    (`mask` $mask^)? (`rng` $rng^ `offset` `=` $offset)?
    (`causal` $causal^)? `scale` `=` $scale (`p` `=` $p^)? attr-dict `:`
    functional-type(operands, results)
  }];
  // The verifier also checks the dropout operands.
  let extraClassDefinition = "";
}

//===----------------------------------------------------------------------===//
// Segments
//===----------------------------------------------------------------------===//

def Ckpt_CheckpointOp : Ckpt_Op<"checkpoint", [
    IsolatedFromAbove, RecursiveMemoryEffects, SingleBlock,
    Ckpt_LowersHalfFloats]> {
  let summary = "a user-marked recompute segment (torch.utils.checkpoint)";
  let description = [{
    Marks a segment of the forward graph whose activations should be
    recomputed during backward instead of saved, like
    `torch.utils.checkpoint`. The region is isolated from above: the
    segment's inputs (tensors, and the random state its random ops read)
    enter as block arguments bound to the operands, and
    `ckpt.yield` returns the segment's outputs as the op's results. Only the
    inputs are kept for backward; everything the segment computes is
    recomputed.

    Example:

    ```mlir
    %y = ckpt.checkpoint(%in = %x, %wt = %w) : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32> {
      %h = ckpt.linear %in, %wt : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
      %g = ckpt.gelu %h : tensor<8x64xf32>
      ckpt.yield %g : tensor<8x64xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyTypeOf<[Ckpt_AnyTensor, Ckpt_RngType]>>:$inputs);
  let results = (outs Variadic<Ckpt_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Ckpt_RecomputeOp : Ckpt_Op<"recompute", [
    IsolatedFromAbove, RecursiveMemoryEffects, SingleBlock,
    Ckpt_LowersHalfFloats]> {
  let summary = "forward ops run again during backward (made by ckpt-insert-recompute)";
  let description = [{
    Recomputes forward values of a checkpoint segment right before the
    backward ops that read them. Its inputs are the values the recompute
    starts from (the segment's kept boundary: inputs, parameters, random
    state); its body holds copies of the forward ops that produce the
    yielded values, in forward order and with the same attributes
    (including random offsets), so each result equals, bit for bit, the
    forward value it replaces. The syntax is that of `ckpt.checkpoint`.

    Example:

    ```mlir
    %h, %g = ckpt.recompute(%in = %x, %wt = %w) : (tensor<8x64xf32>, tensor<64x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
      %h = ckpt.linear %in, %wt : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
      %g = ckpt.gelu %h : tensor<8x64xf32>
      ckpt.yield %h, %g : tensor<8x64xf32>, tensor<8x64xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyTypeOf<[Ckpt_AnyTensor, Ckpt_RngType]>>:$inputs);
  let results = (outs Variadic<Ckpt_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Ckpt_FusedPointwiseOp : Ckpt_Op<"fused_pointwise", [
    IsolatedFromAbove, RecursiveMemoryEffects, SingleBlock,
    Ckpt_LowersHalfFloats]> {
  let summary = "a chain of pointwise ops run as one (made by ckpt-fuse-pointwise)";
  let description = [{
    Runs its body, pointwise ops only (add, gelu, relu_grad, cast, ...),
    as one loop over its result's elements: each element of the yielded
    value is computed from the inputs' elements without storing the body's
    other values. Every body op's result has the shape of the op's result
    (element types may differ, as across a `ckpt.cast`); inputs broadcast
    to it as the body ops' operands do. Each body value is rounded to its
    element type as the unfused op would store it, so the result has the
    same bits as the ops run one by one.

    The memory simulator counts the op's result alone: the body's values
    never take memory. The body's ops keep their costs (FLOPs), and the op
    has no scratch. The syntax is that of `ckpt.checkpoint`.

    Example:

    ```mlir
    %y = ckpt.fused_pointwise(%a = %x, %b = %bias) : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8x64xf32> {
      %h = ckpt.add %a, %b : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
      %g = ckpt.gelu %h : tensor<8x64xf32>
      ckpt.yield %g : tensor<8x64xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Ckpt_AnyTensor>:$inputs);
  let results = (outs Ckpt_AnyTensor:$result);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Ckpt_YieldOp : Ckpt_Op<"yield", [Pure, Terminator, ReturnLike,
    Ckpt_LowersHalfFloats,
    ParentOneOf<["CheckpointOp", "RecomputeOp", "FusedPointwiseOp"]>]> {
  let summary = "returns the outputs of a segment or of a fused pointwise chain";
  let description = [{
    Terminates the body of `ckpt.checkpoint`, `ckpt.recompute` and
    `ckpt.fused_pointwise`; its operands become the enclosing op's results
    and must match their types.

    Example:

    ```mlir
    ckpt.yield %g : tensor<8x64xf32>
    ```
  }];
  let arguments = (ins Variadic<Ckpt_AnyTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Not recomputable on purpose
//===----------------------------------------------------------------------===//

// Resources of the ops that are not recomputable on purpose. Their names are
// defined in CkptDialect.h.
def Ckpt_IOResource : Resource<"::ckpt::IOResource">;
def Ckpt_CommunicationResource : Resource<"::ckpt::CommunicationResource">;

def Ckpt_PrintOp : Ckpt_Op<"print",
    [MemoryEffects<[MemWrite<Ckpt_IOResource>]>] # Ckpt_Costed> {
  let summary = "prints a tensor (I/O: never recomputed)";
  let description = [{
    Writes `input` to standard output, preceded by the optional `prefix`.
    The op writes to the I/O resource, so it is never deleted as dead code
    and never cloned into a recompute segment: a recomputed print would
    print twice.

    Example:

    ```mlir
    ckpt.print %h prefix = "hidden" : tensor<8x512xf32>
    ```
  }];
  let arguments = (ins Ckpt_AnyTensor:$input, OptionalAttr<StrAttr>:$prefix);
  let assemblyFormat = [{
    $input (`prefix` `=` $prefix^)? attr-dict `:` type($input)
  }];
}

def Ckpt_AllReduceOp : Ckpt_Op<"all_reduce", [SameOperandsAndResultType,
    MemoryEffects<[MemRead<Ckpt_CommunicationResource>,
                   MemWrite<Ckpt_CommunicationResource>]>] # Ckpt_Costed> {
  let summary = "collective reduction across ranks (never recomputed)";
  let description = [{
    Combines `input` across all ranks of the process group with
    `reduction` (`sum`, the default and elided when printed, `mean` or
    `max`). A collective must run the same number of times on every rank,
    so it reads and writes the communication resource and is never cloned
    into a recompute segment.

    Example:

    ```mlir
    %g = ckpt.all_reduce %x reduction = mean : tensor<512xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input,
      DefaultValuedAttr<Ckpt_ReductionKind, "::ckpt::ReductionKind::Sum">:$reduction);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`reduction` `=` $reduction^)? attr-dict `:` type($input)
  }];
}

def Ckpt_IndexAddOp : Ckpt_InferringOp<"index_add",
    [DeclareOpInterfaceMethods<Ckpt_DeterminismOpInterface>] # Ckpt_Costed> {
  let summary = "accumulates rows into a tensor at indices (torch.index_add)";
  let description = [{
    Returns a copy of `input` where, for each `i`, slice `i` of `source`
    along `dim` is added to slice `index[i]` of the copy. `index` is 1-D
    with as many entries as `source` has along `dim`; `source` matches
    `input` in every other dimension.

    `deterministic = false` allows accumulation in any order (atomics on a
    GPU), so repeated runs can round differently: such an op is never
    recomputed. The default is `true`.

    Example:

    ```mlir
    %y = ckpt.index_add %acc, %idx, %rows dim = 0 deterministic = false
        : (tensor<100x64xf32>, tensor<32xi64>, tensor<32x64xf32>) -> tensor<100x64xf32>
    ```
  }];
  let arguments = (ins Ckpt_FloatTensor:$input, Ckpt_IndexTensor:$index,
                       Ckpt_FloatTensor:$source, I64Attr:$dim,
                       DefaultValuedAttr<BoolAttr, "true">:$deterministic);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    operands `dim` `=` $dim (`deterministic` `=` $deterministic^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

#endif // CKPT_OPS_TD
