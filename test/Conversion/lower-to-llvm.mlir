// The CPU pipeline ends in the LLVM dialect, with heap allocation through
// the countable generic functions.
// RUN: ckpt-opt %s --ckpt-autodiff --ckpt-lower-to-llvm | FileCheck %s

// CHECK: llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
// CHECK: llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
// CHECK-LABEL: llvm.func @f_train
// CHECK: llvm.call @_mlir_memref_to_llvm_alloc
// CHECK: llvm.call @_mlir_memref_to_llvm_free
// CHECK-NOT: ckpt.
// CHECK-NOT: memref.alloc
func.func @f(%x: tensor<8x4xf32>, %w: tensor<3x4xf32> {ckpt.param}) -> tensor<f32> {
  %h = ckpt.linear %x, %w : (tensor<8x4xf32>, tensor<3x4xf32>) -> tensor<8x3xf32>
  %g = ckpt.gelu %h : tensor<8x3xf32>
  %l = ckpt.reduce_mean %g : tensor<8x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}
