// A small convolutional network: two conv -> batch_norm -> relu stages
// with a max-pool between them, a nearest upsample back to full size, a
// skip connection, an average pool and a classifier.
func.func @small_cnn(%image: tensor<4x3x16x16xf32>, %labels: tensor<4xi64>,
                  %w1: tensor<8x3x3x3xf32> {ckpt.param}, %g1: tensor<8xf32> {ckpt.param},
                  %b1: tensor<8xf32> {ckpt.param}, %rm1: tensor<8xf32>, %rv1: tensor<8xf32>,
                  %w2: tensor<8x4x3x3xf32> {ckpt.param}, %c2: tensor<8xf32> {ckpt.param},
                  %g2: tensor<8xf32> {ckpt.param}, %b2: tensor<8xf32> {ckpt.param},
                  %rm2: tensor<8xf32>, %rv2: tensor<8xf32>,
                  %wc: tensor<10x128xf32> {ckpt.param}, %bc: tensor<10xf32> {ckpt.param})
    -> tensor<f32> {
  %c1 = ckpt.conv2d %image, %w1 padding = [1, 1]
      : (tensor<4x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<4x8x16x16xf32>
  %n1:3 = ckpt.batch_norm %c1 weight %g1 bias %b1
      : (tensor<4x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>)
  %n1_stats:2 = ckpt.batch_norm_update_stats %c1, %n1#1 running_mean %rm1 running_var %rv1
      : (tensor<4x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  %a1 = ckpt.relu %n1#0 : tensor<4x8x16x16xf32>
  %p1:2 = ckpt.max_pool2d %a1 kernel = [3, 3] stride = [2, 2] padding = [1, 1]
      : (tensor<4x8x16x16xf32>) -> (tensor<4x8x8x8xf32>, tensor<4x8x8x8xi64>)
  %c2o = ckpt.conv2d %p1#0, %w2 bias %c2 padding = [2, 2] dilation = [2, 2] groups = 2
      : (tensor<4x8x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<4x8x8x8xf32>
  %n2:3 = ckpt.batch_norm %c2o weight %g2 bias %b2
      : (tensor<4x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %n2_stats:2 = ckpt.batch_norm_update_stats %c2o, %n2#1 running_mean %rm2 running_var %rv2
      : (tensor<4x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  %a2 = ckpt.relu %n2#0 : tensor<4x8x8x8xf32>
  %u = ckpt.upsample_nearest2d %a2 scale = [2, 2] : tensor<4x8x8x8xf32> -> tensor<4x8x16x16xf32>
  %s = ckpt.add %u, %a1 : tensor<4x8x16x16xf32>
  %v = ckpt.avg_pool2d %s kernel = [4, 4] : tensor<4x8x16x16xf32> -> tensor<4x8x4x4xf32>
  %f = ckpt.reshape %v : tensor<4x8x4x4xf32> -> tensor<4x128xf32>
  %logits = ckpt.linear %f, %wc, %bc : (tensor<4x128xf32>, tensor<10x128xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %loss = ckpt.cross_entropy %logits, %labels : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
