// Memory analysis needs static shapes whose byte sizes fit 64 bits: an
// unknown dimension is named, with the binding that fixes it.
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

// -----

// A value of unknown size inside the step is named at its op.
func.func @unknown_result(%x: tensor<2x3xf32> {ckpt.param}) -> tensor<f32> {
  // expected-error @below {{'ckpt.reshape' op result 0 ('tensor<?xf32>') has unknown size in dimension 0; memory and cost need static shapes}}
  %r = ckpt.reshape %x : tensor<2x3xf32> -> tensor<?xf32>
  %m = ckpt.mul %r, %r : tensor<?xf32>
  %l = ckpt.reduce_sum %m : tensor<?xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// No ckpt op reads %x, so no op verifier sees its 2^64 bytes; the memory
// analysis does.
// expected-error @below {{'func.func' op argument 0 ('tensor<4611686018427387904xf32>'): byte size overflows 64 bits}}
func.func @overflowing_argument(%x: tensor<4611686018427387904xf32>, %w: tensor<4xf32> {ckpt.param}) -> (tensor<f32>, tensor<4611686018427387904xf32>) {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l, %x : tensor<f32>, tensor<4611686018427387904xf32>
}
