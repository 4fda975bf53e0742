// Memory analysis needs static shapes: an unknown dimension is named, with
// the binding that fixes it.
// RUN: ckpt-opt %s --ckpt-autodiff --ckpt-report -split-input-file -verify-diagnostics -o /dev/null

// expected-error @below {{argument 0 has unknown size in dimension 0 ('B'); give it a size with --ckpt-bind-dims=bind=B=SIZE}}
func.func @named(%x: tensor<?x4xf32> {ckpt.dim_names = ["B", ""]}, %w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %m = ckpt.mul %x, %w : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %l = ckpt.reduce_sum %m : tensor<?x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @below {{argument 0 has unknown size in dimension 1; name it with {ckpt.dim_names = [...]} and give it a size with --ckpt-bind-dims=bind=NAME=SIZE}}
func.func @unnamed(%x: tensor<4x?xf32>, %w: tensor<4x1xf32> {ckpt.param}) -> tensor<f32> {
  %m = ckpt.mul %x, %w : (tensor<4x?xf32>, tensor<4x1xf32>) -> tensor<4x?xf32>
  %l = ckpt.reduce_sum %m : tensor<4x?xf32> -> tensor<f32>
  return %l : tensor<f32>
}
