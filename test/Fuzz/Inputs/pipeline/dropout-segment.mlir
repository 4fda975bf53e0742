// strategy=dp budget=2KB stage-crossings=2
// Dropout inside a manual segment beside a skip connection: the plan must
// replay the random mask and keep the segment legal.
func.func @f(%x: tensor<4x8xf32>, %w0: tensor<8x8xf32> {ckpt.param},
             %w1: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  %h = ckpt.linear %x, %w0 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %s = ckpt.checkpoint(%in = %h, %w = %w1) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    %d = ckpt.dropout %in p = 0.25 : tensor<4x8xf32>
    %g = ckpt.gelu %d : tensor<4x8xf32>
    %y = ckpt.linear %g, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    ckpt.yield %y : tensor<4x8xf32>
  }
  %a = ckpt.add %h, %s : tensor<4x8xf32>
  %l = ckpt.reduce_mean %a : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
