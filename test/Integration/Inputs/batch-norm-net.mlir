// Two conv2d + batch_norm layers with 2048 values per channel, returning
// the updated running statistics after the loss.
func.func @bnnet(%x: tensor<8x16x16x16xf32>, %w1: tensor<16x16x3x3xf32> {ckpt.param},
                 %g1: tensor<16xf32> {ckpt.param}, %b1: tensor<16xf32> {ckpt.param},
                 %rm1: tensor<16xf32>, %rv1: tensor<16xf32>,
                 %w2: tensor<16x16x3x3xf32> {ckpt.param},
                 %g2: tensor<16xf32> {ckpt.param}, %b2: tensor<16xf32> {ckpt.param},
                 %rm2: tensor<16xf32>, %rv2: tensor<16xf32>, %target: tensor<8x16x16x16xf32>)
    -> (tensor<f32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %c1 = ckpt.conv2d %x, %w1 padding = [1, 1] : (tensor<8x16x16x16xf32>, tensor<16x16x3x3xf32>) -> tensor<8x16x16x16xf32>
  %n1:3 = ckpt.batch_norm %c1 weight %g1 bias %b1
      : (tensor<8x16x16x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16x16x16xf32>, tensor<16xf32>, tensor<16xf32>)
  %n1_stats:2 = ckpt.batch_norm_update_stats %c1, %n1#1 running_mean %rm1 running_var %rv1
      : (tensor<8x16x16x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>)
  %a1 = ckpt.relu %n1#0 : tensor<8x16x16x16xf32>
  %c2 = ckpt.conv2d %a1, %w2 padding = [1, 1] : (tensor<8x16x16x16xf32>, tensor<16x16x3x3xf32>) -> tensor<8x16x16x16xf32>
  %n2:3 = ckpt.batch_norm %c2 weight %g2 bias %b2
      : (tensor<8x16x16x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16x16x16xf32>, tensor<16xf32>, tensor<16xf32>)
  %n2_stats:2 = ckpt.batch_norm_update_stats %c2, %n2#1 running_mean %rm2 running_var %rv2
      : (tensor<8x16x16x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>)
  %loss = ckpt.mse_loss %n2#0, %target : (tensor<8x16x16x16xf32>, tensor<8x16x16x16xf32>) -> tensor<f32>
  return %loss, %n1_stats#0, %n1_stats#1, %n2_stats#0, %n2_stats#1 : tensor<f32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}
