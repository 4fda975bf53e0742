// The vision classifiers' pools with ceil_mode (squeezenet, googlenet) and
// a batch norm with its running statistics, forward and gradient.
func.func @pools(%x: tensor<2x4x8x8xf32>, %k: tensor<4x4x3x3xf32> {ckpt.param},
                 %rm: tensor<4xf32>, %rv: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %c = ckpt.conv2d %x, %k padding = [1, 1] : (tensor<2x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<2x4x8x8xf32>
  %n:3 = ckpt.batch_norm %c : (tensor<2x4x8x8xf32>) -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
  %r:2 = ckpt.batch_norm_update_stats %c, %n#1 running_mean %rm running_var %rv
      : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %m:2 = ckpt.max_pool2d %n#0 kernel = [3, 3] stride = [2, 2] ceil_mode = true
      : (tensor<2x4x8x8xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x4x4x4xi64>)
  %a = ckpt.avg_pool2d %m#0 kernel = [3, 3] stride = [2, 2] padding = [1, 1] ceil_mode = true count_include_pad = false
      : tensor<2x4x4x4xf32> -> tensor<2x4x3x3xf32>
  %l = ckpt.reduce_mean %a : tensor<2x4x3x3xf32> -> tensor<f32>
  return %l, %r#0, %r#1 : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
