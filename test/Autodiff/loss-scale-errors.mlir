// Diagnostics of ckpt-autodiff's loss-scale: it must be a positive power
// of two, so that unscaling is exact.
// RUN: ckpt-opt %s --ckpt-autodiff=loss-scale=3 -verify-diagnostics
// RUN: ckpt-opt %s --ckpt-autodiff=loss-scale=0 -verify-diagnostics
// RUN: ckpt-opt %s --ckpt-autodiff=loss-scale=-4 -verify-diagnostics

// expected-error @below {{loss-scale must be a positive power of two, so that unscaling the gradients is exact}}
func.func @f(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
