// No ckpt op reads %x, so no op verifier sees its 2^64 bytes; the memory
// simulator does.
func.func @f(%x: tensor<4611686018427387904xf32>, %w: tensor<4xf32>) -> (tensor<f32>, tensor<4611686018427387904xf32>) {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l, %x : tensor<f32>, tensor<4611686018427387904xf32>
}
