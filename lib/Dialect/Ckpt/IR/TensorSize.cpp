//===- TensorSize.cpp - element counts and bytes of tensors ---------------===//
//
// Sizes are products of dimensions; every product and sum is checked, so an
// absurd shape is reported instead of wrapping around.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"

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

std::optional<uint64_t> ckpt::getStaticElementCount(ShapedType type) {
  uint64_t count = 1;
  for (int64_t size : type.getShape()) {
    if (ShapedType::isDynamic(size) || size < 0)
      return std::nullopt;
    bool overflow = false;
    count = llvm::SaturatingMultiply(count, static_cast<uint64_t>(size),
                                     &overflow);
    if (overflow)
      return std::nullopt;
  }
  return count;
}

std::optional<uint64_t> ckpt::getStaticTensorBytes(Type type) {
  if (isa<RngType>(type))
    return kRandomStateBytes;
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  std::optional<uint64_t> count = getStaticElementCount(tensor);
  if (!count)
    return std::nullopt;
  bool overflow = false;
  uint64_t bytes = llvm::SaturatingMultiply(
      *count, getElementByteWidth(tensor.getElementType()), &overflow);
  if (overflow)
    return std::nullopt;
  return bytes;
}

FailureOr<uint64_t> ckpt::getValueBytes(Value value, Operation *diagOwner) {
  std::optional<uint64_t> bytes = getStaticTensorBytes(value.getType());
  if (!bytes)
    return diagOwner->emitError()
           << "value of type " << value.getType()
           << " has no static size; memory analysis needs static shapes";
  return *bytes;
}

uint64_t ckpt::getTotalTensorBytes(TypeRange types) {
  uint64_t total = 0;
  for (Type type : types)
    total = llvm::SaturatingAdd(total, getStaticTensorBytes(type).value_or(0));
  return total;
}

static LogicalResult verifyStaticSize(Operation *op, Type type,
                                      StringRef role, unsigned index) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return success();
  for (auto [dim, size] : llvm::enumerate(tensor.getShape()))
    if (ShapedType::isDynamic(size))
      return op->emitError() << role << " " << index << " (" << type
                             << ") has unknown size in dimension " << dim
                             << "; memory and cost need static shapes";
  if (!getStaticTensorBytes(type))
    return op->emitError() << role << " " << index << " (" << type
                           << ") has more bytes than fit in 64 bits";
  return success();
}

LogicalResult ckpt::verifyStaticSizes(Operation *op) {
  for (auto [index, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(verifyStaticSize(op, type, "operand", index)))
      return failure();
  for (auto [index, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(verifyStaticSize(op, type, "result", index)))
      return failure();
  return success();
}

std::string ckpt::formatBytes(uint64_t bytes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << bytes << " B";
  static const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024.0 && unit < 3) {
    value /= 1024.0;
    ++unit;
  }
  if (unit >= 0)
    os << " (" << llvm::format("%.3f", value) << " " << units[unit] << ")";
  return text;
}
