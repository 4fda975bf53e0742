// function= picks one forward graph; keep-forward=false drops it.
// RUN: ckpt-opt %s --ckpt-autodiff="function=second keep-forward=false" | FileCheck %s
// RUN: not ckpt-opt %s --ckpt-autodiff=function=missing 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK:     func.func @first(
// CHECK-NOT: func.func @first_train
// CHECK-NOT: func.func @second(
// CHECK:     func.func @second_train(
// MISSING: error: no function named 'missing'

func.func @first(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @second(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_mean %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
