// A U-Net-shaped graph of linear layers: three levels down, three up, each
// up level adding the activation of its down level (a skip connection that
// stays alive across the levels between), dropout at the bottom. With one
// activation per cut the forward is one stage from the first skip to its
// add; ilp and dp on stage-crossings=3 cut it between every level.
func.func @unet(%x: tensor<128x128xf32>, %d0: tensor<128x128xf32> {ckpt.param},
                %d1: tensor<128x128xf32> {ckpt.param}, %d2: tensor<128x128xf32> {ckpt.param},
                %u2: tensor<128x128xf32> {ckpt.param}, %u1: tensor<128x128xf32> {ckpt.param},
                %u0: tensor<128x128xf32> {ckpt.param}) -> tensor<f32> {
  %l0 = ckpt.linear %x, %d0 : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %s0 = ckpt.gelu %l0 : tensor<128x128xf32>
  %l1 = ckpt.linear %s0, %d1 : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %s1 = ckpt.gelu %l1 : tensor<128x128xf32>
  %l2 = ckpt.linear %s1, %d2 : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %s2 = ckpt.tanh %l2 : tensor<128x128xf32>
  %b = ckpt.dropout %s2 p = 1.000000e-01 : tensor<128x128xf32>
  %m2 = ckpt.linear %b, %u2 : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %a2 = ckpt.add %m2, %s2 : tensor<128x128xf32>
  %g2 = ckpt.gelu %a2 : tensor<128x128xf32>
  %m1 = ckpt.linear %g2, %u1 : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %a1 = ckpt.add %m1, %s1 : tensor<128x128xf32>
  %g1 = ckpt.gelu %a1 : tensor<128x128xf32>
  %m0 = ckpt.linear %g1, %u0 : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %a0 = ckpt.add %m0, %s0 : tensor<128x128xf32>
  %g0 = ckpt.tanh %a0 : tensor<128x128xf32>
  %loss = ckpt.reduce_mean %g0 : tensor<128x128xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
