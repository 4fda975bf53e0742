// Diagnostics of ckpt-autodiff's loss-scale: 2^25 exceeds f16's largest
// value (65504), so an f16 loss cannot carry it, and 2^-25 is below f16's
// smallest subnormal (2^-24), so an f16 parameter's gradient cannot be
// unscaled by it. f32 takes both.
// RUN: ckpt-opt %s --ckpt-autodiff=loss-scale=33554432 -split-input-file -verify-diagnostics

// expected-error @below {{'func.func' op cannot scale its loss by 3.355443e+07: the scale is not representable in the loss's 'f16'}}
func.func @f16_loss(%w: tensor<4xf16> {ckpt.param}) -> tensor<f16> {
  %l = ckpt.reduce_sum %w : tensor<4xf16> -> tensor<f16>
  return %l : tensor<f16>
}

// -----

// expected-error @below {{'func.func' op cannot scale its loss by 3.355443e+07: parameter 1's 'f16' cannot represent 1/3.355443e+07 to unscale its gradient}}
func.func @f16_param(%w: tensor<4xf32> {ckpt.param}, %v: tensor<4xf16> {ckpt.param}) -> tensor<f32> {
  %c = ckpt.cast %v : tensor<4xf16> -> tensor<4xf32>
  %m = ckpt.mul %w, %c : tensor<4xf32>
  %l = ckpt.reduce_sum %m : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @f32(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
