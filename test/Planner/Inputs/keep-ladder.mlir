// Two residual blocks, each one stage (the tanh makes the first block's
// input an activation), whose linear layers differ in cost per result
// element: the first (64 to 256 features) 128 FLOPs, the second (256 to
// 64) 512. dp's keep thresholds are 64 (both kept) and 128 (only the
// second kept), so a segment may keep the second's small result and
// recompute the first's large one.
func.func @ladder(%x: tensor<512x64xf32>, %w0: tensor<256x64xf32> {ckpt.param},
                  %w1: tensor<64x256xf32> {ckpt.param}, %w2: tensor<256x64xf32> {ckpt.param},
                  %w3: tensor<64x256xf32> {ckpt.param}) -> tensor<f32> {
  %x0 = ckpt.tanh %x : tensor<512x64xf32>
  %h0 = ckpt.linear %x0, %w0 : (tensor<512x64xf32>, tensor<256x64xf32>) -> tensor<512x256xf32>
  %g0 = ckpt.gelu %h0 : tensor<512x256xf32>
  %p0 = ckpt.linear %g0, %w1 : (tensor<512x256xf32>, tensor<64x256xf32>) -> tensor<512x64xf32>
  %q0 = ckpt.gelu %p0 : tensor<512x64xf32>
  %y0 = ckpt.add %x0, %q0 : tensor<512x64xf32>
  %h1 = ckpt.linear %y0, %w2 : (tensor<512x64xf32>, tensor<256x64xf32>) -> tensor<512x256xf32>
  %g1 = ckpt.gelu %h1 : tensor<512x256xf32>
  %p1 = ckpt.linear %g1, %w3 : (tensor<512x256xf32>, tensor<64x256xf32>) -> tensor<512x64xf32>
  %q1 = ckpt.gelu %p1 : tensor<512x64xf32>
  %y1 = ckpt.add %y0, %q1 : tensor<512x64xf32>
  %l = ckpt.reduce_mean %y1 : tensor<512x64xf32> -> tensor<f32>
  return %l : tensor<f32>
}
