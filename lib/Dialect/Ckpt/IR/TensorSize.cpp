//===- TensorSize.cpp - element counts and bytes of tensors ---------------===//
//
// Sizes are products of dimensions; every product and sum is checked, so an
// absurd shape is reported instead of wrapping around.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"
#include "ckpt/Support/CheckedMath.h"

#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace ckpt;

uint64_t ckpt::getElementByteWidth(Type elementType) {
  return llvm::divideCeil(elementType.getIntOrFloatBitWidth(), 8);
}

Type ckpt::getComputeType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

uint64_t ckpt::getWidenedAccumulatorBytes(ShapedType type) {
  Type compute = getComputeType(type.getElementType());
  if (compute == type.getElementType())
    return 0;
  return llvm::SaturatingMultiply(getStaticElementCount(type).value_or(0),
                                  getElementByteWidth(compute));
}

std::optional<uint64_t> ckpt::getStaticElementCount(ShapedType type) {
  return checkedProduct(type.getShape());
}

std::optional<uint64_t> ckpt::getStaticTensorBytes(Type type) {
  if (isa<RngType>(type))
    return kRandomStateBytes;
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  return checkedProduct(tensor.getShape(),
                        getElementByteWidth(tensor.getElementType()));
}

/// Emits, through `emitError`, why `type` (described by `what`) has no byte
/// size: a dimension of unknown size (unless `allowUnknown`), or more bytes
/// than 64 bits count.
static LogicalResult
verifyByteSize(Type type, const Twine &what,
               llvm::function_ref<InFlightDiagnostic()> emitError,
               bool allowUnknown = false) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return success();
  for (auto [dim, size] : llvm::enumerate(tensor.getShape()))
    if (ShapedType::isDynamic(size))
      return allowUnknown
                 ? success()
                 : emitError() << what << " (" << type
                               << ") has unknown size in dimension " << dim
                               << "; memory and cost need static shapes";
  if (!getStaticTensorBytes(type))
    return emitError() << what << " (" << type
                       << "): byte size overflows 64 bits";
  return success();
}

/// "argument N" or "result N", for diagnostics about `value`.
static std::string describeValue(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return "argument " + std::to_string(arg.getArgNumber());
  return "result " + std::to_string(cast<OpResult>(value).getResultNumber());
}

FailureOr<uint64_t> ckpt::getValueBytes(Value value, Operation *diagOwner) {
  if (failed(verifyByteSize(value.getType(), describeValue(value),
                            [&] { return diagOwner->emitOpError(); })))
    return failure();
  return *getStaticTensorBytes(value.getType());
}

uint64_t ckpt::getTotalTensorBytes(TypeRange types) {
  uint64_t total = 0;
  for (Type type : types)
    total = llvm::SaturatingAdd(total, getStaticTensorBytes(type).value_or(0));
  return total;
}

/// `verifyByteSize` on every operand and result of `op`.
static LogicalResult verifyOperandAndResultSizes(Operation *op,
                                                 bool allowUnknown) {
  auto emitError = [op] { return op->emitOpError(); };
  for (auto [index, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(verifyByteSize(type, "operand " + Twine(index), emitError,
                              allowUnknown)))
      return failure();
  for (auto [index, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(verifyByteSize(type, "result " + Twine(index), emitError,
                              allowUnknown)))
      return failure();
  return success();
}

LogicalResult ckpt::verifyStaticSizes(Operation *op) {
  return verifyOperandAndResultSizes(op, /*allowUnknown=*/false);
}

LogicalResult ckpt::verifyByteSizesFit(Operation *op) {
  return verifyOperandAndResultSizes(op, /*allowUnknown=*/true);
}
