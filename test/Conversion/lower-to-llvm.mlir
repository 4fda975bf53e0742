// The CPU pipeline ends in the LLVM dialect; heap allocation calls malloc
// and free (which LLVM knows return fresh memory, and which ckpt-run serves
// with its counting allocator).
// RUN: ckpt-opt %s --ckpt-autodiff --ckpt-lower-to-llvm | FileCheck %s

// CHECK: llvm.func @free(!llvm.ptr)
// CHECK: llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-LABEL: llvm.func @f_train
// CHECK: llvm.call @malloc
// CHECK: llvm.call @free
// CHECK-NOT: ckpt.
// CHECK-NOT: memref.alloc
func.func @f(%x: tensor<8x4xf32>, %w: tensor<3x4xf32> {ckpt.param}) -> tensor<f32> {
  %h = ckpt.linear %x, %w : (tensor<8x4xf32>, tensor<3x4xf32>) -> tensor<8x3xf32>
  %g = ckpt.gelu %h : tensor<8x3xf32>
  %l = ckpt.reduce_mean %g : tensor<8x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// With free-after-last-use=false the frees stay where ownership-based
// deallocation puts them: at the end of the step.
// RUN: ckpt-opt %s --pass-pipeline='builtin.module(ckpt-autodiff,ckpt-lower-to-llvm{free-after-last-use=false})' | FileCheck %s --check-prefix=LATE
// RUN: ckpt-opt %s --pass-pipeline='builtin.module(ckpt-autodiff,ckpt-lower-to-llvm)' | FileCheck %s --check-prefix=EARLY
// LATE-LABEL: llvm.func @f_train
// LATE: llvm.call @malloc
// LATE-NOT: llvm.call @free
// LATE: llvm.call @malloc
// EARLY-LABEL: llvm.func @f_train
// EARLY: llvm.call @malloc
// EARLY: llvm.call @free
// EARLY: llvm.call @malloc
