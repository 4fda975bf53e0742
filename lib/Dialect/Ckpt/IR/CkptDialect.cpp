//===- CkptDialect.cpp - the ckpt dialect ---------------------------------===//
//
// Registers the ops and types and checks the dialect's discardable
// attributes: `ckpt.param` on floating-point tensor arguments of functions,
// `ckpt.dim_names` on tensor arguments, the unit markers
// `ckpt.training_step` (functions) and `ckpt.backward` (ops) that autodiff
// sets, and `ckpt.rng_counters` (functions).
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ckpt;

#include "ckpt/Dialect/Ckpt/IR/CkptOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "ckpt/Dialect/Ckpt/IR/CkptOpsTypes.cpp.inc"

void CkptDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ckpt/Dialect/Ckpt/IR/CkptOpsTypes.cpp.inc"
      >();
}

void CkptDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "ckpt/Dialect/Ckpt/IR/CkptOps.cpp.inc"
      >();
}

LogicalResult CkptDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned /*regionIndex*/,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  // Only FunctionOpInterface verifies argument attributes, and it also does
  // so for declarations, which have no entry block to read types from.
  Type type = cast<FunctionOpInterface>(op).getArgumentTypes()[argIndex];
  if (attr.getName() == kDimNamesAttrName) {
    // Buffers keep the attributes of the tensors they replace.
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    auto tensor = dyn_cast<ShapedType>(type);
    if (!names || !tensor || !tensor.hasRank() ||
        names.size() != static_cast<size_t>(tensor.getRank()) ||
        !llvm::all_of(names, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitError()
             << "'" << kDimNamesAttrName << "' on argument " << argIndex
             << " must be an array with one string per dimension of its "
                "tensor type "
             << type;
    return success();
  }
  if (attr.getName() != kParamAttrName)
    return op->emitError() << "unknown ckpt argument attribute '"
                           << attr.getName().getValue() << "'";
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << kParamAttrName
                           << "' is a unit attribute and takes no value";
  auto tensor = dyn_cast<ShapedType>(type);
  if (!tensor || !isa<RankedTensorType, MemRefType>(type) ||
      !isa<FloatType>(tensor.getElementType()))
    return op->emitError() << "'" << kParamAttrName << "' on argument "
                           << argIndex << " of type " << type
                           << ": parameters must be floating-point tensors";
  return success();
}

LogicalResult CkptDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kParamAttrName)
    return op->emitError() << "'" << kParamAttrName
                           << "' belongs on function arguments, not on ops";
  if (name == kRngCountersAttrName) {
    auto counters = dyn_cast<IntegerAttr>(attr.getValue());
    if (!counters || !counters.getType().isSignlessInteger(64) ||
        counters.getInt() < 0 || !isa<FunctionOpInterface>(op))
      return op->emitError()
             << "'" << name << "' is a non-negative i64 on functions";
    return success();
  }
  if (name == kBudgetAttrName) {
    auto budget = dyn_cast<IntegerAttr>(attr.getValue());
    if (!budget || !budget.getType().isSignlessInteger(64) ||
        budget.getInt() <= 0 || !isa<FunctionOpInterface>(op))
      return op->emitError()
             << "'" << name << "' is a positive i64 (bytes) on training steps";
    return success();
  }
  if (name == kMicrobatchesInFlightAttrName) {
    auto count = dyn_cast<IntegerAttr>(attr.getValue());
    if (!count || !count.getType().isSignlessInteger(64) ||
        count.getInt() < 2 || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name
                             << "' is an i64 of at least 2 on training steps";
    return success();
  }
  if (name == kTorchCallsAttrName) {
    if (!isa<DictionaryAttr>(attr.getValue()) || !isa<ModuleOp>(op))
      return op->emitError()
             << "'" << name << "' is a dictionary on modules";
    return success();
  }
  if (name == kPlanAttrName) {
    if (!isa<StringAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError()
             << "'" << name << "' is a string on training steps";
    return success();
  }
  if (name == kRecomputeAtAttrName) {
    auto entries = dyn_cast<ArrayAttr>(attr.getValue());
    auto isEntry = [](Attribute entry) {
      auto sites = dyn_cast<DenseI64ArrayAttr>(entry);
      return isa<UnitAttr>(entry) ||
             (sites && llvm::all_of(sites.asArrayRef(),
                                    [](int64_t id) { return id >= 0; }));
    };
    if (!entries || entries.size() != op->getNumResults() ||
        !llvm::all_of(entries, isEntry))
      return op->emitError()
             << "'" << name
             << "' is an array with one entry per result: unit (kept) or an "
                "array<i64> of the non-negative ids of the sites recomputing "
                "it";
    if (op->hasAttr(kBackwardAttrName))
      return op->emitError() << "'" << name << "' marks forward ops only";
    if (!isa_and_nonnull<FunctionOpInterface>(op->getParentOp()))
      return op->emitError() << "'" << name
                             << "' marks the top-level ops of a training step "
                                "only";
    return success();
  }
  if (name == kSitesAttrName) {
    auto sites = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!sites || !llvm::all_of(sites.asArrayRef(),
                                [](int64_t id) { return id >= 0; }))
      return op->emitError() << "'" << name
                             << "' is an array<i64> of non-negative site ids";
    if (!op->hasAttr(kBackwardAttrName))
      return op->emitError()
             << "'" << name << "' marks backward ops only: sites run during "
                                "backward";
    if (!isa_and_nonnull<FunctionOpInterface>(op->getParentOp()))
      return op->emitError() << "'" << name
                             << "' marks the top-level ops of a training step "
                                "only";
    return success();
  }
  if (name != kTrainingStepAttrName && name != kBackwardAttrName &&
      name != kKeepAttrName)
    return op->emitError() << "unknown ckpt attribute '" << name << "'";
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << name
                           << "' is a unit attribute and takes no value";
  if (name == kTrainingStepAttrName && !isa<FunctionOpInterface>(op))
    return op->emitError() << "'" << name << "' marks functions only";
  if (name == kKeepAttrName && !op->getParentOfType<CheckpointOp>())
    return op->emitError() << "'" << name
                           << "' marks ops inside checkpoint segments only";
  return success();
}
