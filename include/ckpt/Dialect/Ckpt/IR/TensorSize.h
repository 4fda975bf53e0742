//===- TensorSize.h - element counts and bytes of tensors -----------------===//
//
// Exact sizes of statically shaped tensors, with overflow detected rather
// than wrapped. Memory is counted as elements times element width; `i1` is
// stored as one byte.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_TENSORSIZE_H
#define CKPT_DIALECT_CKPT_IR_TENSORSIZE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"

#include "ckpt/Support/FormatBytes.h"

#include <cstdint>
#include <optional>

namespace ckpt {

/// Bytes one element occupies in memory.
uint64_t getElementByteWidth(mlir::Type elementType);

/// The type arithmetic on `elementType` runs in, and sums accumulate in:
/// f32 for f16 and bf16 (PyTorch's kernels compute them so), else the type
/// itself.
mlir::Type getComputeType(mlir::Type elementType);

/// Bytes of a tensor of `type`'s shape in its compute type, where that is
/// wider than its element type: the accumulator a 16-bit sum or product
/// fills before it rounds into its result. 0 otherwise.
uint64_t getWidenedAccumulatorBytes(mlir::ShapedType type);

/// Elements of a statically shaped type; nullopt when a dimension is
/// unknown or the count does not fit 64 bits.
std::optional<uint64_t> getStaticElementCount(mlir::ShapedType type);

/// Bytes of the random state `!ckpt.rng`, which lowers to a tensor<2xi64>
/// (seed, base counter): a buffer like any other at run time.
constexpr uint64_t kRandomStateBytes = 2 * sizeof(int64_t);

/// Bytes of a statically shaped tensor or of the random state (other
/// non-tensor types are 0 bytes); nullopt when a dimension is unknown or the
/// size does not fit 64 bits.
std::optional<uint64_t> getStaticTensorBytes(mlir::Type type);

/// Bytes of `value`'s type, or an error at `diagOwner` naming the value and
/// saying which dimension is unknown or that the size overflows 64 bits.
mlir::FailureOr<uint64_t> getValueBytes(mlir::Value value,
                                        mlir::Operation *diagOwner);

/// The sum of the bytes of `types`, saturating; unknown sizes count 0.
/// Callers check sizes with `verifyStaticSizes` first.
uint64_t getTotalTensorBytes(mlir::TypeRange types);

/// Emits an error at `op` naming the first operand or result whose size is
/// unknown (and the dimension) or does not fit 64 bits.
mlir::LogicalResult verifyStaticSizes(mlir::Operation *op);

/// Emits an error at `op` naming the first operand or result of static
/// shape whose byte size does not fit 64 bits; unknown sizes pass.
mlir::LogicalResult verifyByteSizesFit(mlir::Operation *op);

/// The trait every ckpt op has: `verifyByteSizesFit` in its verifier.
template <typename ConcreteType>
class TensorSizesFit
    : public mlir::OpTrait::TraitBase<ConcreteType, TensorSizesFit> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyByteSizesFit(op);
  }
};

} // namespace ckpt

#endif // CKPT_DIALECT_CKPT_IR_TENSORSIZE_H
