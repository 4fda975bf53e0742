// 2^32 * 2^32 * 4 f32 elements: 2^68 bytes, which no 64-bit count holds.
func.func @f(%w: tensor<4xf32>) -> tensor<f32> {
  %b = ckpt.broadcast_to %w : tensor<4xf32> -> tensor<4294967296x4294967296x4xf32>
  %l = ckpt.reduce_sum %b : tensor<4294967296x4294967296x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
