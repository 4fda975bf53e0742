// Three residual MLP blocks with a print after the second block's first
// linear layer: the dp tests' chain. The print cannot be recomputed, so dp
// keeps it as a stage of its own and may recompute the ops around it.
func.func @chain(%x: tensor<512x64xf32>, %w0: tensor<256x64xf32> {ckpt.param},
                 %w1: tensor<64x256xf32> {ckpt.param}, %w2: tensor<256x64xf32> {ckpt.param},
                 %w3: tensor<64x256xf32> {ckpt.param}, %w4: tensor<256x64xf32> {ckpt.param},
                 %w5: tensor<64x256xf32> {ckpt.param}) -> tensor<f32> {
  %h0 = ckpt.linear %x, %w0 : (tensor<512x64xf32>, tensor<256x64xf32>) -> tensor<512x256xf32>
  %g0 = ckpt.gelu %h0 : tensor<512x256xf32>
  %p0 = ckpt.linear %g0, %w1 : (tensor<512x256xf32>, tensor<64x256xf32>) -> tensor<512x64xf32>
  %y0 = ckpt.add %x, %p0 : tensor<512x64xf32>
  %h1 = ckpt.linear %y0, %w2 : (tensor<512x64xf32>, tensor<256x64xf32>) -> tensor<512x256xf32>
  ckpt.print %h1 : tensor<512x256xf32>
  %g1 = ckpt.gelu %h1 : tensor<512x256xf32>
  %p1 = ckpt.linear %g1, %w3 : (tensor<512x256xf32>, tensor<64x256xf32>) -> tensor<512x64xf32>
  %y1 = ckpt.add %y0, %p1 : tensor<512x64xf32>
  %h2 = ckpt.linear %y1, %w4 : (tensor<512x64xf32>, tensor<256x64xf32>) -> tensor<512x256xf32>
  %g2 = ckpt.tanh %h2 : tensor<512x256xf32>
  %p2 = ckpt.linear %g2, %w5 : (tensor<512x256xf32>, tensor<64x256xf32>) -> tensor<512x64xf32>
  %y2 = ckpt.add %y1, %p2 : tensor<512x64xf32>
  %l = ckpt.reduce_mean %y2 : tensor<512x64xf32> -> tensor<f32>
  return %l : tensor<f32>
}
