func.func @f(%x: tensor<?x4xf32> {ckpt.dim_names = ["B", ""]}) -> tensor<f32> {
  %l = ckpt.reduce_sum %x : tensor<?x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
