//===- SavedTensors.cpp - forward values that backward reads --------------===//
//
// A saved tensor is a top-level forward value of a training step with at
// least one backward user. Sizes come from static shapes; a reshape is a
// view, so totals count the buffer behind a tensor and its views once.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/SavedTensors.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace ckpt;

StringRef ckpt::getValueKindName(ValueKind kind, bool plural) {
  switch (kind) {
  case ValueKind::Parameter:
    return plural ? "parameters" : "parameter";
  case ValueKind::Activation:
    return plural ? "activations" : "activation";
  case ValueKind::Constant:
    return plural ? "constants" : "constant";
  case ValueKind::Gradient:
    return plural ? "gradients" : "gradient";
  case ValueKind::Temporary:
    return plural ? "temporaries" : "temporary";
  }
  llvm_unreachable("unknown value kind");
}

bool ckpt::isBackwardOp(Operation *op) {
  return op->hasAttr(CkptDialect::kBackwardAttrName);
}

ValueKind ckpt::classifyValue(func::FuncOp step, Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return step.getArgAttr(arg.getArgNumber(), CkptDialect::kParamAttrName)
               ? ValueKind::Parameter
               : ValueKind::Activation;
  Operation *producer = value.getDefiningOp();
  if (isa<arith::ConstantOp>(producer))
    return ValueKind::Constant;
  if (!isBackwardOp(producer))
    return ValueKind::Activation;
  return llvm::any_of(value.getUsers(),
                      [](Operation *user) { return isa<func::ReturnOp>(user); })
             ? ValueKind::Gradient
             : ValueKind::Temporary;
}

LogicalResult ckpt::verifySingleBlock(func::FuncOp func, StringRef user) {
  Region &body = func.getBody();
  if (body.empty() || body.hasOneBlock())
    return success();
  InFlightDiagnostic diag =
      func.emitOpError() << "has " << body.getBlocks().size() << " blocks, but "
                         << user
                         << " needs straight-line code (one block: no "
                            "branches, loops or unreachable blocks)";
  diag.attachNote(std::next(body.begin())->front().getLoc())
      << "block 1 begins here";
  return diag;
}

LogicalResult ckpt::verifyStaticArguments(func::FuncOp func) {
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.hasStaticShape())
      continue;
    auto names = func.getArgAttrOfType<ArrayAttr>(
        arg.getArgNumber(), CkptDialect::kDimNamesAttrName);
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      if (!type.isDynamicDim(dim))
        continue;
      InFlightDiagnostic diag = func.emitError()
                                << "argument " << arg.getArgNumber()
                                << " has unknown size in dimension " << dim;
      StringRef name =
          names ? cast<StringAttr>(names[dim]).getValue() : StringRef();
      if (name.empty())
        return diag << "; name it with {" << CkptDialect::kDimNamesAttrName
                    << " = [...]} and give it a size with "
                       "--ckpt-bind-dims=bind=NAME=SIZE";
      return diag << " ('" << name << "'); give it a size with "
                  << "--ckpt-bind-dims=bind=" << name << "=SIZE";
    }
  }
  return success();
}

FailureOr<SavedTensorAnalysis> SavedTensorAnalysis::compute(func::FuncOp step) {
  if (failed(verifySingleBlock(step, "memory analysis")) ||
      failed(verifyStaticArguments(step)))
    return failure();
  SavedTensorAnalysis analysis;
  auto record = [&](Value value, Operation *producer) -> LogicalResult {
    SmallVector<Operation *> consumers;
    for (Operation *user : value.getUsers())
      if (isBackwardOp(user) && !llvm::is_contained(consumers, user))
        consumers.push_back(user);
    if (consumers.empty())
      return success();
    llvm::sort(consumers, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    FailureOr<uint64_t> bytes =
        getValueBytes(value, producer ? producer : step.getOperation());
    if (failed(bytes))
      return failure();
    Value buffer = value;
    while (auto view = buffer.getDefiningOp<ReshapeOp>())
      buffer = view.getInput();
    analysis.saved.push_back({value, buffer, producer, std::move(consumers),
                              classifyValue(step, value), *bytes});
    return success();
  };
  Block &entry = step.getBody().front();
  for (BlockArgument arg : entry.getArguments())
    if (failed(record(arg, nullptr)))
      return failure();
  for (Operation &op : entry) {
    if (isBackwardOp(&op))
      continue;
    for (Value result : op.getResults())
      if (failed(record(result, &op)))
        return failure();
  }
  return analysis;
}

uint64_t SavedTensorAnalysis::getBytes(ValueKind kind) const {
  uint64_t total = 0;
  llvm::DenseSet<Value> counted;
  for (const SavedTensor &tensor : saved)
    if (tensor.kind == kind && counted.insert(tensor.buffer).second)
      total = llvm::SaturatingAdd(total, tensor.bytes);
  return total;
}

size_t SavedTensorAnalysis::getCount(ValueKind kind) const {
  return llvm::count_if(saved, [&](const SavedTensor &tensor) {
    return tensor.kind == kind;
  });
}
