// The 12-block MLP stack of mlp_stack.mlir with every block wrapped in a
// checkpoint segment, as `for block in blocks: x = checkpoint(block, x)`
// does in PyTorch: only each block's input (the residual stream, 8 MiB) is
// kept, and a block's activations are recomputed when backward reaches it.
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
  %y0 = ckpt.checkpoint(%in = %x, %ln_w = %ln0_w, %ln_b = %ln0_b, %fc_w = %fc0_w, %fc_b = %fc0_b, %proj_w = %proj0_w, %proj_b = %proj0_b)
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2048x512xf32>, tensor<2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32> {
    %n0, %mean0, %rstd0 = ckpt.layer_norm %in weight %ln_w bias %ln_b normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
    %h0 = ckpt.linear %n0, %fc_w, %fc_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
    %g0 = ckpt.gelu %h0 : tensor<8x512x2048xf32>
    %p0 = ckpt.linear %g0, %proj_w, %proj_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
    %y0 = ckpt.add %in, %p0 : tensor<8x512x512xf32>
    ckpt.yield %y0 : tensor<8x512x512xf32>
  }
  // block 1
  %y1 = ckpt.checkpoint(%in = %y0, %ln_w = %ln1_w, %ln_b = %ln1_b, %fc_w = %fc1_w, %fc_b = %fc1_b, %proj_w = %proj1_w, %proj_b = %proj1_b)
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2048x512xf32>, tensor<2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32> {
    %n1, %mean1, %rstd1 = ckpt.layer_norm %in weight %ln_w bias %ln_b normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
    %h1 = ckpt.linear %n1, %fc_w, %fc_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
    %g1 = ckpt.gelu %h1 : tensor<8x512x2048xf32>
    %p1 = ckpt.linear %g1, %proj_w, %proj_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
    %y1 = ckpt.add %in, %p1 : tensor<8x512x512xf32>
    ckpt.yield %y1 : tensor<8x512x512xf32>
  }
  // block 2
  %y2 = ckpt.checkpoint(%in = %y1, %ln_w = %ln2_w, %ln_b = %ln2_b, %fc_w = %fc2_w, %fc_b = %fc2_b, %proj_w = %proj2_w, %proj_b = %proj2_b)
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2048x512xf32>, tensor<2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32> {
    %n2, %mean2, %rstd2 = ckpt.layer_norm %in weight %ln_w bias %ln_b normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
    %h2 = ckpt.linear %n2, %fc_w, %fc_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
    %g2 = ckpt.gelu %h2 : tensor<8x512x2048xf32>
    %p2 = ckpt.linear %g2, %proj_w, %proj_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
    %y2 = ckpt.add %in, %p2 : tensor<8x512x512xf32>
    ckpt.yield %y2 : tensor<8x512x512xf32>
  }
  // block 3
  %y3 = ckpt.checkpoint(%in = %y2, %ln_w = %ln3_w, %ln_b = %ln3_b, %fc_w = %fc3_w, %fc_b = %fc3_b, %proj_w = %proj3_w, %proj_b = %proj3_b)
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2048x512xf32>, tensor<2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32> {
    %n3, %mean3, %rstd3 = ckpt.layer_norm %in weight %ln_w bias %ln_b normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
    %h3 = ckpt.linear %n3, %fc_w, %fc_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
    %g3 = ckpt.gelu %h3 : tensor<8x512x2048xf32>
    %p3 = ckpt.linear %g3, %proj_w, %proj_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
    %y3 = ckpt.add %in, %p3 : tensor<8x512x512xf32>
    ckpt.yield %y3 : tensor<8x512x512xf32>
  }
  // block 4
  %y4 = ckpt.checkpoint(%in = %y3, %ln_w = %ln4_w, %ln_b = %ln4_b, %fc_w = %fc4_w, %fc_b = %fc4_b, %proj_w = %proj4_w, %proj_b = %proj4_b)
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2048x512xf32>, tensor<2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32> {
    %n4, %mean4, %rstd4 = ckpt.layer_norm %in weight %ln_w bias %ln_b normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
    %h4 = ckpt.linear %n4, %fc_w, %fc_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
    %g4 = ckpt.gelu %h4 : tensor<8x512x2048xf32>
    %p4 = ckpt.linear %g4, %proj_w, %proj_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
    %y4 = ckpt.add %in, %p4 : tensor<8x512x512xf32>
    ckpt.yield %y4 : tensor<8x512x512xf32>
  }
  // block 5
  %y5 = ckpt.checkpoint(%in = %y4, %ln_w = %ln5_w, %ln_b = %ln5_b, %fc_w = %fc5_w, %fc_b = %fc5_b, %proj_w = %proj5_w, %proj_b = %proj5_b)
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2048x512xf32>, tensor<2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32> {
    %n5, %mean5, %rstd5 = ckpt.layer_norm %in weight %ln_w bias %ln_b normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
    %h5 = ckpt.linear %n5, %fc_w, %fc_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
    %g5 = ckpt.gelu %h5 : tensor<8x512x2048xf32>
    %p5 = ckpt.linear %g5, %proj_w, %proj_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
    %y5 = ckpt.add %in, %p5 : tensor<8x512x512xf32>
    ckpt.yield %y5 : tensor<8x512x512xf32>
  }
  // block 6
  %y6 = ckpt.checkpoint(%in = %y5, %ln_w = %ln6_w, %ln_b = %ln6_b, %fc_w = %fc6_w, %fc_b = %fc6_b, %proj_w = %proj6_w, %proj_b = %proj6_b)
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2048x512xf32>, tensor<2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32> {
    %n6, %mean6, %rstd6 = ckpt.layer_norm %in weight %ln_w bias %ln_b normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
    %h6 = ckpt.linear %n6, %fc_w, %fc_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
    %g6 = ckpt.gelu %h6 : tensor<8x512x2048xf32>
    %p6 = ckpt.linear %g6, %proj_w, %proj_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
    %y6 = ckpt.add %in, %p6 : tensor<8x512x512xf32>
    ckpt.yield %y6 : tensor<8x512x512xf32>
  }
  // block 7
  %y7 = ckpt.checkpoint(%in = %y6, %ln_w = %ln7_w, %ln_b = %ln7_b, %fc_w = %fc7_w, %fc_b = %fc7_b, %proj_w = %proj7_w, %proj_b = %proj7_b)
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2048x512xf32>, tensor<2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32> {
    %n7, %mean7, %rstd7 = ckpt.layer_norm %in weight %ln_w bias %ln_b normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
    %h7 = ckpt.linear %n7, %fc_w, %fc_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
    %g7 = ckpt.gelu %h7 : tensor<8x512x2048xf32>
    %p7 = ckpt.linear %g7, %proj_w, %proj_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
    %y7 = ckpt.add %in, %p7 : tensor<8x512x512xf32>
    ckpt.yield %y7 : tensor<8x512x512xf32>
  }
  // block 8
  %y8 = ckpt.checkpoint(%in = %y7, %ln_w = %ln8_w, %ln_b = %ln8_b, %fc_w = %fc8_w, %fc_b = %fc8_b, %proj_w = %proj8_w, %proj_b = %proj8_b)
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2048x512xf32>, tensor<2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32> {
    %n8, %mean8, %rstd8 = ckpt.layer_norm %in weight %ln_w bias %ln_b normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
    %h8 = ckpt.linear %n8, %fc_w, %fc_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
    %g8 = ckpt.gelu %h8 : tensor<8x512x2048xf32>
    %p8 = ckpt.linear %g8, %proj_w, %proj_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
    %y8 = ckpt.add %in, %p8 : tensor<8x512x512xf32>
    ckpt.yield %y8 : tensor<8x512x512xf32>
  }
  // block 9
  %y9 = ckpt.checkpoint(%in = %y8, %ln_w = %ln9_w, %ln_b = %ln9_b, %fc_w = %fc9_w, %fc_b = %fc9_b, %proj_w = %proj9_w, %proj_b = %proj9_b)
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2048x512xf32>, tensor<2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32> {
    %n9, %mean9, %rstd9 = ckpt.layer_norm %in weight %ln_w bias %ln_b normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
    %h9 = ckpt.linear %n9, %fc_w, %fc_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
    %g9 = ckpt.gelu %h9 : tensor<8x512x2048xf32>
    %p9 = ckpt.linear %g9, %proj_w, %proj_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
    %y9 = ckpt.add %in, %p9 : tensor<8x512x512xf32>
    ckpt.yield %y9 : tensor<8x512x512xf32>
  }
  // block 10
  %y10 = ckpt.checkpoint(%in = %y9, %ln_w = %ln10_w, %ln_b = %ln10_b, %fc_w = %fc10_w, %fc_b = %fc10_b, %proj_w = %proj10_w, %proj_b = %proj10_b)
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2048x512xf32>, tensor<2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32> {
    %n10, %mean10, %rstd10 = ckpt.layer_norm %in weight %ln_w bias %ln_b normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
    %h10 = ckpt.linear %n10, %fc_w, %fc_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
    %g10 = ckpt.gelu %h10 : tensor<8x512x2048xf32>
    %p10 = ckpt.linear %g10, %proj_w, %proj_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
    %y10 = ckpt.add %in, %p10 : tensor<8x512x512xf32>
    ckpt.yield %y10 : tensor<8x512x512xf32>
  }
  // block 11
  %y11 = ckpt.checkpoint(%in = %y10, %ln_w = %ln11_w, %ln_b = %ln11_b, %fc_w = %fc11_w, %fc_b = %fc11_b, %proj_w = %proj11_w, %proj_b = %proj11_b)
      : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2048x512xf32>, tensor<2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32> {
    %n11, %mean11, %rstd11 = ckpt.layer_norm %in weight %ln_w bias %ln_b normalized_shape = [512]
        : (tensor<8x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<8x512x512xf32>, tensor<8x512x1xf32>, tensor<8x512x1xf32>)
    %h11 = ckpt.linear %n11, %fc_w, %fc_b : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
    %g11 = ckpt.gelu %h11 : tensor<8x512x2048xf32>
    %p11 = ckpt.linear %g11, %proj_w, %proj_b : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
    %y11 = ckpt.add %in, %p11 : tensor<8x512x512xf32>
    ckpt.yield %y11 : tensor<8x512x512xf32>
  }
  %loss = ckpt.reduce_mean %y11 : tensor<8x512x512xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
