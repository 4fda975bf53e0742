// Grouped-query causal attention with dropout between projections.
func.func @attention(%x: tensor<2x16x16xf32>, %wq: tensor<32x16xf32> {ckpt.param},
                     %wk: tensor<16x16xf32> {ckpt.param}, %wv: tensor<16x16xf32> {ckpt.param}) -> tensor<f32> {
  %q = ckpt.linear %x, %wq : (tensor<2x16x16xf32>, tensor<32x16xf32>) -> tensor<2x16x32xf32>
  %k = ckpt.linear %x, %wk : (tensor<2x16x16xf32>, tensor<16x16xf32>) -> tensor<2x16x16xf32>
  %v = ckpt.linear %x, %wv : (tensor<2x16x16xf32>, tensor<16x16xf32>) -> tensor<2x16x16xf32>
  %q4 = ckpt.reshape %q : tensor<2x16x32xf32> -> tensor<2x16x4x8xf32>
  %k4 = ckpt.reshape %k : tensor<2x16x16xf32> -> tensor<2x16x2x8xf32>
  %v4 = ckpt.reshape %v : tensor<2x16x16xf32> -> tensor<2x16x2x8xf32>
  %qh = ckpt.transpose %q4 permutation = [0, 2, 1, 3] : tensor<2x16x4x8xf32> -> tensor<2x4x16x8xf32>
  %kh = ckpt.transpose %k4 permutation = [0, 2, 1, 3] : tensor<2x16x2x8xf32> -> tensor<2x2x16x8xf32>
  %vh = ckpt.transpose %v4 permutation = [0, 2, 1, 3] : tensor<2x16x2x8xf32> -> tensor<2x2x16x8xf32>
  %o:2 = ckpt.scaled_dot_product_attention %qh, %kh, %vh causal scale = 0.35355339059327373 p = 0.1
      : (tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  %l = ckpt.reduce_mean %o#0 : tensor<2x4x16x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
