//===- BindDims.cpp - sizes for named dimensions of unknown size ----------===//
//
// Parses `bind=NAME=SIZE,...`, gives the argument dimensions with those
// names (`ckpt.dim_names`) their sizes, and re-infers every op's result
// types in program order so the whole function becomes static.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Support/CheckedMath.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace ckpt {
#define GEN_PASS_DEF_CKPTBINDDIMSPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace ckpt

using namespace mlir;
using namespace ckpt;

/// Parses "B=8,L=512"; reports the first malformed entry.
static FailureOr<llvm::StringMap<int64_t>> parseBindings(StringRef text,
                                                         Operation *diagOwner) {
  llvm::StringMap<int64_t> bindings;
  SmallVector<StringRef> entries;
  text.split(entries, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef entry : entries) {
    auto [name, size] = entry.trim().split('=');
    int64_t value;
    if (name.trim().empty() || size.trim().getAsInteger(10, value) || value < 0)
      return diagOwner->emitError()
             << "bind expects NAME=SIZE entries with non-negative sizes, "
                "separated by commas; got '"
             << entry << "'";
    if (!bindings.try_emplace(name.trim(), value).second)
      return diagOwner->emitError()
             << "bind gives the dimension '" << name.trim() << "' twice";
  }
  return bindings;
}

/// The result type of a reshape or broadcast whose written type has unknown
/// dimensions, from its (now static) input; null when it cannot be told.
static Type refineShapeOp(Operation *op) {
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> shape(result.getShape());
  if (isa<ReshapeOp>(op)) {
    std::optional<uint64_t> elements = getStaticElementCount(input);
    std::optional<uint64_t> known = checkedProduct(llvm::make_filter_range(
        shape, [](int64_t size) { return !ShapedType::isDynamic(size); }));
    int64_t unknown = -1;
    for (auto [i, size] : llvm::enumerate(shape)) {
      if (!ShapedType::isDynamic(size))
        continue;
      if (unknown >= 0)
        return Type(); // several unknowns: ambiguous
      unknown = i;
    }
    if (unknown >= 0 && elements && known && *known > 0)
      shape[unknown] = *elements / *known;
  } else if (isa<BroadcastToOp>(op)) {
    int64_t offset = result.getRank() - input.getRank();
    for (int64_t i = 0; i < input.getRank(); ++i)
      if (ShapedType::isDynamic(shape[offset + i]) && input.getDimSize(i) != 1)
        shape[offset + i] = input.getDimSize(i);
  }
  return RankedTensorType::get(shape, result.getElementType());
}

static LogicalResult reinferOp(Operation &op);

/// Re-infers the result types of the ops of `block`, in order.
static LogicalResult reinfer(Block &block) {
  for (Operation &op : block) {
    if (failed(reinferOp(op)))
      return failure();
    // Sizes that bind gave may multiply past 64 bits: an error here, not
    // IR that stops verifying.
    if (failed(verifyByteSizesFit(&op)))
      return failure();
  }
  return success();
}

/// Re-infers the result types of `op` from its operands (for a segment,
/// through its body).
static LogicalResult reinferOp(Operation &op) {
  if (auto segment = dyn_cast<CheckpointOp>(op)) {
    Block &body = segment.getBodyBlock();
    for (auto [arg, input] :
         llvm::zip_equal(body.getArguments(), segment.getInputs()))
      arg.setType(input.getType());
    if (failed(reinfer(body)))
      return failure();
    for (auto [result, value] :
         llvm::zip_equal(segment.getResults(),
                         cast<YieldOp>(body.getTerminator()).getValues()))
      result.setType(value.getType());
    return success();
  }
  if (auto inferring = dyn_cast<InferTypeOpInterface>(op)) {
    SmallVector<Type> types;
    if (failed(inferring.inferReturnTypes(
            op.getContext(), op.getLoc(), op.getOperands(),
            op.getRawDictionaryAttrs(), op.getPropertiesStorage(),
            op.getRegions(), types)))
      return failure();
    for (auto [result, type] : llvm::zip_equal(op.getResults(), types))
      result.setType(type);
    return success();
  }
  if (isa<ReshapeOp, BroadcastToOp>(op))
    if (Type refined = refineShapeOp(&op))
      op.getResult(0).setType(refined);
  return success();
}

namespace {

struct CkptBindDimsPass
    : public ckpt::impl::CkptBindDimsPassBase<CkptBindDimsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<llvm::StringMap<int64_t>> bindings = parseBindings(bind, module);
    if (failed(bindings))
      return signalPassFailure();
    llvm::StringSet<> used;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && failed(bindFunction(func, *bindings, used)))
        return signalPassFailure();
    for (const auto &binding : *bindings)
      if (!used.contains(binding.getKey()))
        module.emitWarning()
            << "no argument dimension is named '" << binding.getKey() << "'";
  }

  LogicalResult bindFunction(func::FuncOp func,
                             const llvm::StringMap<int64_t> &bindings,
                             llvm::StringSet<> &used) {
    for (BlockArgument arg : func.getArguments()) {
      auto names = func.getArgAttrOfType<ArrayAttr>(
          arg.getArgNumber(), CkptDialect::kDimNamesAttrName);
      if (!names)
        continue;
      auto type = cast<RankedTensorType>(arg.getType());
      SmallVector<int64_t> shape(type.getShape());
      for (auto [dim, name] :
           llvm::enumerate(names.getAsValueRange<StringAttr>())) {
        auto it = bindings.find(name);
        if (name.empty() || it == bindings.end())
          continue;
        used.insert(name);
        if (!ShapedType::isDynamic(shape[dim]) && shape[dim] != it->second)
          return func.emitError()
                 << "argument " << arg.getArgNumber() << " dimension " << dim
                 << " ('" << name << "') has size " << shape[dim]
                 << " but bind gives " << it->second;
        shape[dim] = it->second;
      }
      arg.setType(RankedTensorType::get(shape, type.getElementType()));
    }
    if (failed(reinfer(func.getBody().front())))
      return failure();
    Block &entry = func.getBody().front();
    func.setFunctionType(
        FunctionType::get(func.getContext(), entry.getArgumentTypes(),
                          entry.getTerminator()->getOperandTypes()));
    return success();
  }
};

} // namespace
