func.func @f(%x: tensor<4xf16> {ckpt.param}) -> tensor<f16> {
  %l = ckpt.reduce_sum %x : tensor<4xf16> -> tensor<f16>
  return %l : tensor<f16>
}
