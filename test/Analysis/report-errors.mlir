// The memory analyses walk straight-line code: a training step written by
// hand with several blocks is an error at the function, pointing at the
// block that follows the first.
// RUN: ckpt-opt %s --ckpt-report -split-input-file -verify-diagnostics -o /dev/null

// expected-error @below {{'func.func' op has 2 blocks, but memory analysis needs straight-line code (one block: no branches, loops or unreachable blocks)}}
func.func @two_blocks_train(%w: tensor<4xf32> {ckpt.param}) -> (tensor<f32>, tensor<4xf32>) attributes {ckpt.training_step} {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  cf.br ^bb1
^bb1:
  // expected-note @below {{block 1 begins here}}
  return %l, %w : tensor<f32>, tensor<4xf32>
}
