// The article's running example: a stack of 12 residual MLP blocks,
//   y = x + Linear(4D->D)(GELU(Linear(D->4D)(LayerNorm(x))))
// with B=8, L=512, D=512 in fp32; the loss is the mean of the output.
// Per block, autograd saves the LayerNorm input and statistics, the first
// Linear's input, the GELU input and the second Linear's input.
func.func @mlp_stack(%x: tensor<8x512x512xf32>,
                     %ln0_w: tensor<512xf32> {ckpt.param},
                     %ln0_b: tensor<512xf32> {ckpt.param},
                     %fc0_w: tensor<2048x512xf32> {ckpt.param},
                     %fc0_b: tensor<2048xf32> {ckpt.param},
                     %proj0_w: tensor<512x2048xf32> {ckpt.param},
                     %proj0_b: tensor<512xf32> {ckpt.param},
                     %ln1_w: tensor<512xf32> {ckpt.param},
                     %ln1_b: tensor<512xf32> {ckpt.param},
                     %fc1_w: tensor<2048x512xf32> {ckpt.param},
                     %fc1_b: tensor<2048xf32> {ckpt.param},
                     %proj1_w: tensor<512x2048xf32> {ckpt.param},
                     %proj1_b: tensor<512xf32> {ckpt.param},
                     %ln2_w: tensor<512xf32> {ckpt.param},
                     %ln2_b: tensor<512xf32> {ckpt.param},
                     %fc2_w: tensor<2048x512xf32> {ckpt.param},
                     %fc2_b: tensor<2048xf32> {ckpt.param},
                     %proj2_w: tensor<512x2048xf32> {ckpt.param},
                     %proj2_b: tensor<512xf32> {ckpt.param},
                     %ln3_w: tensor<512xf32> {ckpt.param},
                     %ln3_b: tensor<512xf32> {ckpt.param},
                     %fc3_w: tensor<2048x512xf32> {ckpt.param},
                     %fc3_b: tensor<2048xf32> {ckpt.param},
                     %proj3_w: tensor<512x2048xf32> {ckpt.param},
                     %proj3_b: tensor<512xf32> {ckpt.param},
                     %ln4_w: tensor<512xf32> {ckpt.param},
                     %ln4_b: tensor<512xf32> {ckpt.param},
                     %fc4_w: tensor<2048x512xf32> {ckpt.param},
                     %fc4_b: tensor<2048xf32> {ckpt.param},
                     %proj4_w: tensor<512x2048xf32> {ckpt.param},
                     %proj4_b: tensor<512xf32> {ckpt.param},
                     %ln5_w: tensor<512xf32> {ckpt.param},
                     %ln5_b: tensor<512xf32> {ckpt.param},
                     %fc5_w: tensor<2048x512xf32> {ckpt.param},
                     %fc5_b: tensor<2048xf32> {ckpt.param},
                     %proj5_w: tensor<512x2048xf32> {ckpt.param},
                     %proj5_b: tensor<512xf32> {ckpt.param},
                     %ln6_w: tensor<512xf32> {ckpt.param},
                     %ln6_b: tensor<512xf32> {ckpt.param},
                     %fc6_w: tensor<2048x512xf32> {ckpt.param},
                     %fc6_b: tensor<2048xf32> {ckpt.param},
                     %proj6_w: tensor<512x2048xf32> {ckpt.param},
                     %proj6_b: tensor<512xf32> {ckpt.param},
                     %ln7_w: tensor<512xf32> {ckpt.param},
                     %ln7_b: tensor<512xf32> {ckpt.param},
                     %fc7_w: tensor<2048x512xf32> {ckpt.param},
                     %fc7_b: tensor<2048xf32> {ckpt.param},
                     %proj7_w: tensor<512x2048xf32> {ckpt.param},
                     %proj7_b: tensor<512xf32> {ckpt.param},
                     %ln8_w: tensor<512xf32> {ckpt.param},
                     %ln8_b: tensor<512xf32> {ckpt.param},
                     %fc8_w: tensor<2048x512xf32> {ckpt.param},
                     %fc8_b: tensor<2048xf32> {ckpt.param},
                     %proj8_w: tensor<512x2048xf32> {ckpt.param},
                     %proj8_b: tensor<512xf32> {ckpt.param},
                     %ln9_w: tensor<512xf32> {ckpt.param},
                     %ln9_b: tensor<512xf32> {ckpt.param},
                     %fc9_w: tensor<2048x512xf32> {ckpt.param},
                     %fc9_b: tensor<2048xf32> {ckpt.param},
                     %proj9_w: tensor<512x2048xf32> {ckpt.param},
                     %proj9_b: tensor<512xf32> {ckpt.param},
                     %ln10_w: tensor<512xf32> {ckpt.param},
                     %ln10_b: tensor<512xf32> {ckpt.param},
                     %fc10_w: tensor<2048x512xf32> {ckpt.param},
                     %fc10_b: tensor<2048xf32> {ckpt.param},
                     %proj10_w: tensor<512x2048xf32> {ckpt.param},
                     %proj10_b: tensor<512xf32> {ckpt.param},
                     %ln11_w: tensor<512xf32> {ckpt.param},
                     %ln11_b: tensor<512xf32> {ckpt.param},
                     %fc11_w: tensor<2048x512xf32> {ckpt.param},
                     %fc11_b: tensor<2048xf32> {ckpt.param},
                     %proj11_w: tensor<512x2048xf32> {ckpt.param},
                     %proj11_b: tensor<512xf32> {ckpt.param}) -> tensor<f32> {
  // block 0
  %n0, %mean0, %rstd0 = ckpt.layer_norm %x weight %ln0_w bias %ln0_b normalized_shape = [512]
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
  %h0 = ckpt.linear %n0, %fc0_w, %fc0_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
  %g0 = ckpt.gelu %h0 : tensor<8x512x2048xf32>
  %p0 = ckpt.linear %g0, %proj0_w, %proj0_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
  %y0 = ckpt.add %x, %p0 : tensor<8x512x512xf32>
  // block 1
  %n1, %mean1, %rstd1 = ckpt.layer_norm %y0 weight %ln1_w bias %ln1_b normalized_shape = [512]
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
  %h1 = ckpt.linear %n1, %fc1_w, %fc1_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
  %g1 = ckpt.gelu %h1 : tensor<8x512x2048xf32>
  %p1 = ckpt.linear %g1, %proj1_w, %proj1_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
  %y1 = ckpt.add %y0, %p1 : tensor<8x512x512xf32>
  // block 2
  %n2, %mean2, %rstd2 = ckpt.layer_norm %y1 weight %ln2_w bias %ln2_b normalized_shape = [512]
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
  %h2 = ckpt.linear %n2, %fc2_w, %fc2_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
  %g2 = ckpt.gelu %h2 : tensor<8x512x2048xf32>
  %p2 = ckpt.linear %g2, %proj2_w, %proj2_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
  %y2 = ckpt.add %y1, %p2 : tensor<8x512x512xf32>
  // block 3
  %n3, %mean3, %rstd3 = ckpt.layer_norm %y2 weight %ln3_w bias %ln3_b normalized_shape = [512]
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
  %h3 = ckpt.linear %n3, %fc3_w, %fc3_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
  %g3 = ckpt.gelu %h3 : tensor<8x512x2048xf32>
  %p3 = ckpt.linear %g3, %proj3_w, %proj3_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
  %y3 = ckpt.add %y2, %p3 : tensor<8x512x512xf32>
  // block 4
  %n4, %mean4, %rstd4 = ckpt.layer_norm %y3 weight %ln4_w bias %ln4_b normalized_shape = [512]
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
  %h4 = ckpt.linear %n4, %fc4_w, %fc4_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
  %g4 = ckpt.gelu %h4 : tensor<8x512x2048xf32>
  %p4 = ckpt.linear %g4, %proj4_w, %proj4_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
  %y4 = ckpt.add %y3, %p4 : tensor<8x512x512xf32>
  // block 5
  %n5, %mean5, %rstd5 = ckpt.layer_norm %y4 weight %ln5_w bias %ln5_b normalized_shape = [512]
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
  %h5 = ckpt.linear %n5, %fc5_w, %fc5_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
  %g5 = ckpt.gelu %h5 : tensor<8x512x2048xf32>
  %p5 = ckpt.linear %g5, %proj5_w, %proj5_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
  %y5 = ckpt.add %y4, %p5 : tensor<8x512x512xf32>
  // block 6
  %n6, %mean6, %rstd6 = ckpt.layer_norm %y5 weight %ln6_w bias %ln6_b normalized_shape = [512]
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
  %h6 = ckpt.linear %n6, %fc6_w, %fc6_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
  %g6 = ckpt.gelu %h6 : tensor<8x512x2048xf32>
  %p6 = ckpt.linear %g6, %proj6_w, %proj6_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
  %y6 = ckpt.add %y5, %p6 : tensor<8x512x512xf32>
  // block 7
  %n7, %mean7, %rstd7 = ckpt.layer_norm %y6 weight %ln7_w bias %ln7_b normalized_shape = [512]
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
  %h7 = ckpt.linear %n7, %fc7_w, %fc7_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
  %g7 = ckpt.gelu %h7 : tensor<8x512x2048xf32>
  %p7 = ckpt.linear %g7, %proj7_w, %proj7_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
  %y7 = ckpt.add %y6, %p7 : tensor<8x512x512xf32>
  // block 8
  %n8, %mean8, %rstd8 = ckpt.layer_norm %y7 weight %ln8_w bias %ln8_b normalized_shape = [512]
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
  %h8 = ckpt.linear %n8, %fc8_w, %fc8_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
  %g8 = ckpt.gelu %h8 : tensor<8x512x2048xf32>
  %p8 = ckpt.linear %g8, %proj8_w, %proj8_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
  %y8 = ckpt.add %y7, %p8 : tensor<8x512x512xf32>
  // block 9
  %n9, %mean9, %rstd9 = ckpt.layer_norm %y8 weight %ln9_w bias %ln9_b normalized_shape = [512]
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
  %h9 = ckpt.linear %n9, %fc9_w, %fc9_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
  %g9 = ckpt.gelu %h9 : tensor<8x512x2048xf32>
  %p9 = ckpt.linear %g9, %proj9_w, %proj9_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
  %y9 = ckpt.add %y8, %p9 : tensor<8x512x512xf32>
  // block 10
  %n10, %mean10, %rstd10 = ckpt.layer_norm %y9 weight %ln10_w bias %ln10_b normalized_shape = [512]
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
  %h10 = ckpt.linear %n10, %fc10_w, %fc10_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
  %g10 = ckpt.gelu %h10 : tensor<8x512x2048xf32>
  %p10 = ckpt.linear %g10, %proj10_w, %proj10_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
  %y10 = ckpt.add %y9, %p10 : tensor<8x512x512xf32>
  // block 11
  %n11, %mean11, %rstd11 = ckpt.layer_norm %y10 weight %ln11_w bias %ln11_b normalized_shape = [512]
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
  %h11 = ckpt.linear %n11, %fc11_w, %fc11_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
  %g11 = ckpt.gelu %h11 : tensor<8x512x2048xf32>
  %p11 = ckpt.linear %g11, %proj11_w, %proj11_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
  %y11 = ckpt.add %y10, %p11 : tensor<8x512x512xf32>
  %loss = ckpt.reduce_mean %y11 : tensor<8x512x512xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
