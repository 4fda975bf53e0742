// Two residual MLP blocks; the user wrapped the second one in a checkpoint
// segment, as `x = checkpoint(block, x)` does in PyTorch. The segment's
// inputs (the residual stream and the block's parameters) enter as block
// arguments; only they are kept for backward, and everything inside the
// segment is recomputed when backward reaches it.
func.func @checkpointed_mlp(%x: tensor<4x32x64xf32>, %target: tensor<4x32x64xf32>,
                            %fc0_w: tensor<256x64xf32> {ckpt.param}, %fc0_b: tensor<256xf32> {ckpt.param},
                            %proj0_w: tensor<64x256xf32> {ckpt.param}, %proj0_b: tensor<64xf32> {ckpt.param},
                            %fc1_w: tensor<256x64xf32> {ckpt.param}, %fc1_b: tensor<256xf32> {ckpt.param},
                            %proj1_w: tensor<64x256xf32> {ckpt.param}, %proj1_b: tensor<64xf32> {ckpt.param})
    -> tensor<f32> {
  // block 0: saved as usual
  %h0 = ckpt.linear %x, %fc0_w, %fc0_b
      : (tensor<4x32x64xf32>, tensor<256x64xf32>, tensor<256xf32>) -> tensor<4x32x256xf32>
  %g0 = ckpt.gelu %h0 : tensor<4x32x256xf32>
  %p0 = ckpt.linear %g0, %proj0_w, %proj0_b
      : (tensor<4x32x256xf32>, tensor<64x256xf32>, tensor<64xf32>) -> tensor<4x32x64xf32>
  %y0 = ckpt.add %x, %p0 : tensor<4x32x64xf32>

  // block 1: recomputed during backward
  %y1 = ckpt.checkpoint(%in = %y0, %w1 = %fc1_w, %b1 = %fc1_b, %w2 = %proj1_w, %b2 = %proj1_b)
      : (tensor<4x32x64xf32>, tensor<256x64xf32>, tensor<256xf32>, tensor<64x256xf32>, tensor<64xf32>)
      -> tensor<4x32x64xf32> {
    %h1 = ckpt.linear %in, %w1, %b1
        : (tensor<4x32x64xf32>, tensor<256x64xf32>, tensor<256xf32>) -> tensor<4x32x256xf32>
    %g1 = ckpt.gelu %h1 : tensor<4x32x256xf32>
    %p1 = ckpt.linear %g1, %w2, %b2
        : (tensor<4x32x256xf32>, tensor<64x256xf32>, tensor<64xf32>) -> tensor<4x32x64xf32>
    %r1 = ckpt.add %in, %p1 : tensor<4x32x64xf32>
    ckpt.yield %r1 : tensor<4x32x64xf32>
  }

  %loss = ckpt.mse_loss %y1, %target : (tensor<4x32x64xf32>, tensor<4x32x64xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
