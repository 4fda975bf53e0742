func.func @short(%x: tensor<4xf32> {ckpt.param}) -> tensor<f32> attributes {ckpt.training_step} {
  %l = ckpt.reduce_sum %x : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
