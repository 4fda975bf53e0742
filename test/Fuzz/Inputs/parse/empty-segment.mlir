func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = ckpt.checkpoint(%in = %x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  }
  return %s : tensor<4x8xf32>
}
