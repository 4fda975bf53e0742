// Central finite differences agree with the gradients through casts both
// ways: an f32 parameter widened to f64, and an f64 one rounded to f32 and
// back. The differences step by f32's precision (the least precise value
// the loss depends on), so they agree within 1e-4 rather than 1e-6.
// Before, the check wrote f64 steps into the f32 parameter's buffer (it
// took the loss's type for every parameter's) and crashed.
// RUN: %check_gradients --tolerance 1e-4 | FileCheck %s
// CHECK: gradient check: passed

func.func @casts(%x: tensor<3x4xf32> {ckpt.param}, %w: tensor<4x4xf64> {ckpt.param}) -> tensor<f64> {
  %wide = ckpt.cast %x : tensor<3x4xf32> -> tensor<3x4xf64>
  %h = ckpt.linear %wide, %w : (tensor<3x4xf64>, tensor<4x4xf64>) -> tensor<3x4xf64>
  %narrow = ckpt.cast %h : tensor<3x4xf64> -> tensor<3x4xf32>
  %t = ckpt.tanh %narrow : tensor<3x4xf32>
  %back = ckpt.cast %t : tensor<3x4xf32> -> tensor<3x4xf64>
  %l = ckpt.reduce_sum %back : tensor<3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
