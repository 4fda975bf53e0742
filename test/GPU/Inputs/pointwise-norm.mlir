// A norm written as pointwise ops (x * rsqrt(mean(x * x) + eps) * w), as
// the importer brings in an RMSNorm module: the GPU kernels take square
// roots for rsqrt and its gradient.
func.func @pointwise_norm(%x: tensor<8x16xf32>, %w: tensor<16x16xf32> {ckpt.param},
                          %g: tensor<16xf32> {ckpt.param}) -> tensor<f32> {
  %h = ckpt.linear %x, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %sq = ckpt.mul %h, %h : tensor<8x16xf32>
  %m = ckpt.reduce_mean %sq dims = [1] keepdim : tensor<8x16xf32> -> tensor<8x1xf32>
  %eps = arith.constant dense<1.0e-06> : tensor<f32>
  %v = ckpt.add %m, %eps : (tensor<8x1xf32>, tensor<f32>) -> tensor<8x1xf32>
  %r = ckpt.rsqrt %v : tensor<8x1xf32>
  %n = ckpt.mul %h, %r : (tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
  %y = ckpt.mul %n, %g : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %l = ckpt.reduce_mean %y : tensor<8x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
