// Small inputs, but an intermediate of 2^48 x 4 f32 elements: 4 PiB, which
// the step's own allocation cannot get.
func.func @f(%w: tensor<4xf32>) -> tensor<f32> {
  %b = ckpt.broadcast_to %w : tensor<4xf32> -> tensor<281474976710656x4xf32>
  %l = ckpt.reduce_sum %b : tensor<281474976710656x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
