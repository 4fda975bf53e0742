// Sizes that bind gives may make a tensor's byte size overflow 64 bits: an
// error at the first op that sees such a tensor, not IR that stops
// verifying (found by the option fuzzer).
// RUN: ckpt-opt %s --ckpt-bind-dims="bind=B=4,L=1844674407370955161" -verify-diagnostics

func.func @f(%x: tensor<?x?x4xf32> {ckpt.dim_names = ["B", "L", ""]}, %w: tensor<6x4xf32> {ckpt.param}) -> tensor<f32> {
  // expected-error @below {{'ckpt.linear' op operand 0 ('tensor<4x1844674407370955161x4xf32>'): byte size overflows 64 bits}}
  %h = ckpt.linear %x, %w : (tensor<?x?x4xf32>, tensor<6x4xf32>) -> tensor<?x?x6xf32>
  %l = ckpt.reduce_mean %h : tensor<?x?x6xf32> -> tensor<f32>
  return %l : tensor<f32>
}
