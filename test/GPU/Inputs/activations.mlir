// The pointwise ops of the vision classifiers' activations: ReLU6 and
// hardswish (clamp), abs, sqrt, a power and a row norm, forward and
// gradient, and a loss in another precision (casts).
func.func @activations(%x: tensor<8x16xf32>, %w: tensor<16x16xf32> {ckpt.param}) -> tensor<f32> {
  %h = ckpt.linear %x, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %r6 = ckpt.clamp %h min = 0.0 max = 6.0 : tensor<8x16xf32>
  %a = ckpt.abs %r6 : tensor<8x16xf32>
  %s = ckpt.sqrt %a : tensor<8x16xf32>
  %p = ckpt.pow %s exponent = 3.0 : tensor<8x16xf32>
  %n = ckpt.reduce_norm %p dims = [1] keepdim : tensor<8x16xf32> -> tensor<8x1xf32>
  %q = ckpt.div %p, %n : (tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
  %wide = ckpt.cast %q : tensor<8x16xf32> -> tensor<8x16xf64>
  %m = ckpt.reduce_mean %wide : tensor<8x16xf64> -> tensor<f64>
  %l = ckpt.cast %m : tensor<f64> -> tensor<f32>
  return %l : tensor<f32>
}
