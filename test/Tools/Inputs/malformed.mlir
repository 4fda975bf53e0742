func.func @f(%x: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %x : tensor<4xf32> ->
  return %l : tensor<f32>
}
