func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = ckpt.checkpoint(%in = %x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    %g = ckpt.gelu %in : tensor<4x8x
