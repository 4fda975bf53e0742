//===- CkptInterfaces.td - op semantics for training and planning ---------===//
//
// What autodiff and the planner need to know about an op, implemented next
// to the op: its gradient rule, the forward values that rule reads (the
// saved tensors), its cost, and whether running it twice gives the same bits.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_INTERFACES_TD
#define CKPT_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Ckpt_GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::ckpt";
  let description = [{
    The reverse-mode rule of a differentiable op. Given the gradients of its
    results, the rule builds (at the builder's insertion point) the ops that
    compute the gradients of the operands that need one. The rule may read
    the op's forward values (operands and results); exactly those it reads
    are its saved tensors, and `getSavedValues` must name them.

    Gradients have the type of the value they belong to. A result without a
    gradient is passed as a null value and counts as zero; an operand that
    needs no gradient gets a null value back.
  }];
  let methods = [
    InterfaceMethod<[{
        The forward values (operands or results of this op) that the rule
        reads when the operands marked in `operandNeedsGrad` need gradients.
      }],
      "::llvm::SmallVector<::mlir::Value>", "getSavedValues",
      (ins "::llvm::ArrayRef<bool>":$operandNeedsGrad)>,
    InterfaceMethod<[{
        Builds the gradients of the operands marked in `operandNeedsGrad`
        from `resultGrads` (one per result, null when zero) and appends one
        value per operand to `operandGrads` (null where none is needed).
        Emits an error at the op and fails when the rule does not apply.
      }],
      "::llvm::LogicalResult", "buildGradients",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::ArrayRef<::mlir::Value>":$resultGrads,
           "::llvm::ArrayRef<bool>":$operandNeedsGrad,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>
  ];
}

def Ckpt_CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::ckpt";
  let description = [{
    The cost model of an op on static shapes: floating-point operations,
    bytes moved and the scratch memory its lowering needs. Matrix products
    count 2*M*N*K; pointwise ops count their element count times a per-op
    factor (docs/CostModel.md lists them). Callers check that shapes are
    static before asking.
  }];
  let methods = [
    InterfaceMethod<"Floating-point operations of one execution.",
      "uint64_t", "getFlops", (ins)>,
    InterfaceMethod<"Bytes read from operands.",
      "uint64_t", "getBytesRead", (ins), [{}], [{
        return ::ckpt::getTotalTensorBytes($_op->getOperandTypes());
      }]>,
    InterfaceMethod<"Bytes written to results.",
      "uint64_t", "getBytesWritten", (ins), [{}], [{
        return ::ckpt::getTotalTensorBytes($_op->getResultTypes());
      }]>,
    InterfaceMethod<[{
        Heap bytes the op's lowering allocates besides its results and
        frees before the op ends (per-row statistics, the shape of a pooling
        window), at most live at once. The lowering keeps them live together
        with all operands and results, so the memory simulator adds them
        while the op runs.
      }],
      "uint64_t", "getScratchBytes", (ins), [{}], [{ return 0; }]>
  ];
}

def Ckpt_RandomOpInterface : OpInterface<"RandomOpInterface"> {
  let cppNamespace = "::ckpt";
  let description = [{
    An op that draws Philox counters (docs/Dialect.md, `ckpt.dropout`). In
    its explicit form it reads a `!ckpt.rng` state and a counter offset, so
    it is pure and its draws can be replayed; in its implicit form it has
    neither and reads and advances the hidden generator (a memory effect on
    the random resource). `ckpt-thread-rng` gives implicit ops a state and
    disjoint counter ranges.
  }];
  let methods = [
    InterfaceMethod<"The explicit random state, or null.",
      "::mlir::Value", "getRandomState", (ins), [{}], [{
        return $_op.getRng();
      }]>,
    InterfaceMethod<"The first counter of the explicit form.",
      "std::optional<int64_t>", "getCounterOffset", (ins), [{}], [{
        return $_op.getOffset();
      }]>,
    InterfaceMethod<"Makes the op explicit: it draws from `state` at `offset`.",
      "void", "setRandomState", (ins "::mlir::Value":$state,
                                     "int64_t":$offset), [{}], [{
        $_op.getRngMutable().assign(state);
        $_op.setOffsetAttr(::mlir::Builder($_op.getContext())
                               .getI64IntegerAttr(offset));
      }]>,
    InterfaceMethod<"The Philox counters one execution consumes: 4 values per counter.",
      "uint64_t", "getNumCounters", (ins)>
  ];
}

def Ckpt_DeterminismOpInterface : OpInterface<"DeterminismOpInterface"> {
  let cppNamespace = "::ckpt";
  let description = [{
    Ops that may compute different bits from the same operands (for example
    by accumulating in whatever order atomics happen to run) say so here;
    such an op is never recomputed, because the recomputed value would not
    be the one the forward produced. Ops without the interface are
    deterministic.
  }];
  let methods = [
    InterfaceMethod<"Whether two executions on equal operands give equal bits.",
      "bool", "isDeterministic", (ins)>
  ];
}

// Results that carry no gradient whatever the operands (PyTorch's buffers,
// updated outside autograd): autodiff neither differentiates the op nor
// counts its results as depending on a parameter.
def Ckpt_StopsGradient : NativeOpTrait<"StopsGradient"> {
  let cppNamespace = "::ckpt";
}

// Ops whose lowering handles f16 and bf16: it computes in f32
// (getComputeType), rounds once into 16-bit results, and declares its f32
// accumulators as scratch. ckpt-to-linalg rejects 16-bit operands and
// results of the others, so none computes in 16 bits by accident.
def Ckpt_LowersHalfFloats : NativeOpTrait<"LowersHalfFloats"> {
  let cppNamespace = "::ckpt";
}

// Pointwise ops: each result element is one scalar formula of the operand
// elements at the same (broadcast) index, with no scratch. They lower to one
// map each, and ckpt-fuse-pointwise may compose chains of them into one
// ckpt.fused_pointwise.
def Ckpt_Pointwise : NativeOpTrait<"Pointwise"> {
  let cppNamespace = "::ckpt";
}

#endif // CKPT_INTERFACES_TD
