// The gradient of sum(dropout(w)) with respect to w is the dropout mask
// scaled by 1 / (1 - p): comparing gradients compares masks.
func.func @mask(%w: tensor<64x1000xf32> {ckpt.param}) -> tensor<f32> {
  %d = ckpt.dropout %w p = 2.500000e-01 : tensor<64x1000xf32>
  %s = ckpt.reduce_sum %d : tensor<64x1000xf32> -> tensor<f32>
  return %s : tensor<f32>
}
