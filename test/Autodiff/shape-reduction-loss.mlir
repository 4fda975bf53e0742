// Gradient rules of shape ops, reductions, lookup and losses.
// RUN: ckpt-opt %s --ckpt-autodiff=keep-forward=false | FileCheck %s

// reshape and transpose invert themselves; slice scatters back; concat
// slices its gradient; broadcast_to sums it.
// CHECK-LABEL: func.func @shape_train
//       CHECK:   %[[DC:.+]] = ckpt.broadcast_to {{.*}} -> tensor<8x2xf32>
//       CHECK:   %[[DS:.+]] = ckpt.slice %[[DC]] dim = 0 start = 0 end = 4 {ckpt.backward} : tensor<8x2xf32> -> tensor<4x2xf32>
//       CHECK:   %[[DF:.+]] = ckpt.slice %[[DC]] dim = 0 start = 4 end = 8 {ckpt.backward} : tensor<8x2xf32> -> tensor<4x2xf32>
//       CHECK:   %[[DB:.+]] = ckpt.reshape %[[DF]] {ckpt.backward} : tensor<4x2xf32> -> tensor<2x2x2xf32>
//       CHECK:   %[[SY:.+]] = ckpt.reduce_sum %[[DB]] dims = [0] keepdim {ckpt.backward}
//       CHECK:   %[[DY:.+]] = ckpt.reshape %[[SY]] {ckpt.backward} : tensor<1x2x2xf32> -> tensor<2x2xf32>
//       CHECK:   %[[DT:.+]] = ckpt.slice_grad %[[DS]] dim = 1 start = 0 end = 3 step = 2 {ckpt.backward} : tensor<4x2xf32> -> tensor<4x3xf32>
//       CHECK:   %[[DR:.+]] = ckpt.transpose %[[DT]] permutation = [1, 0] {ckpt.backward} : tensor<4x3xf32> -> tensor<3x4xf32>
//       CHECK:   %[[DX:.+]] = ckpt.reshape %[[DR]] {ckpt.backward} : tensor<3x4xf32> -> tensor<2x6xf32>
//       CHECK:   return %{{.+}}, %[[DX]], %[[DY]]

// The mean divides by the reduced count; the max and the norm route
// through their saved input and result.
// CHECK-LABEL: func.func @reductions_train
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3x4xf32> {ckpt.param})
//       CHECK:   %[[M:.+]] = ckpt.reduce_max %[[X]] dims = [2]
//       CHECK:   %[[N2:.+]] = ckpt.reduce_norm %[[X]] dims = [0]
//       CHECK:   %[[DN:.+]] = ckpt.reduce_norm_grad %{{.+}}, %[[X]], %[[N2]] dims = [0] {ckpt.backward}
//       CHECK:   %[[B:.+]] = ckpt.broadcast_to %{{.+}} {ckpt.backward} : tensor<2x1xf32> -> tensor<2x3xf32>
//       CHECK:   %[[N:.+]] = arith.constant {ckpt.backward} dense<3.000000e+00> : tensor<f32>
//       CHECK:   %[[DM:.+]] = ckpt.div %[[B]], %[[N]] {ckpt.backward}
//       CHECK:   %[[DX:.+]] = ckpt.reduce_max_grad %[[DM]], %[[X]], %[[M]] dims = [2] {ckpt.backward}
//       CHECK:   %[[D:.+]] = ckpt.add %[[DN]], %[[DX]] {ckpt.backward}
//       CHECK:   return %{{.+}}, %[[D]]

// Indices and labels get no gradient; the logits' two uses accumulate; the
// MSE target's gradient is the negated input gradient.
// CHECK-LABEL: func.func @losses_train
//  CHECK-SAME:   (%[[TOK:.+]]: tensor<2x3xi64>, %[[LAB:.+]]: tensor<6xi64>, %[[E:.+]]: tensor<10x4xf32> {ckpt.param}, %[[W:.+]]: tensor<10x4xf32> {ckpt.param}, %[[T:.+]]: tensor<6x10xf32> {ckpt.param})
//  CHECK-SAME:   -> (tensor<f32>, tensor<10x4xf32>, tensor<10x4xf32>, tensor<6x10xf32>)
//       CHECK:   %[[H:.+]] = ckpt.reshape
//       CHECK:   %[[LOGITS:.+]] = ckpt.linear %[[H]], %[[W]]
//       CHECK:   %[[ONE:.+]] = arith.constant {ckpt.backward} dense<1.000000e+00>
//       CHECK:   %[[G1:.+]] = ckpt.mse_loss_grad %[[ONE]], %[[LOGITS]], %[[T]] {ckpt.backward}
//       CHECK:   %[[DT:.+]] = ckpt.neg %[[G1]] {ckpt.backward}
//       CHECK:   %[[G2:.+]] = ckpt.cross_entropy_grad %[[ONE]], %[[LOGITS]], %[[LAB]] {ckpt.backward}
//       CHECK:   %[[DL:.+]] = ckpt.add %[[G1]], %[[G2]] {ckpt.backward}
//       CHECK:   %[[DH:.+]] = ckpt.matmul %[[DL]], %[[W]] {ckpt.backward}
//       CHECK:   %[[DW:.+]] = ckpt.matmul %[[DL]], %[[H]] transpose_lhs {ckpt.backward}
//       CHECK:   %[[DE3:.+]] = ckpt.reshape %[[DH]] {ckpt.backward} : tensor<6x4xf32> -> tensor<2x3x4xf32>
//       CHECK:   %[[DE:.+]] = ckpt.embedding_grad %[[DE3]], %[[TOK]] num_embeddings = 10 {ckpt.backward}
//       CHECK:   return %{{.+}}, %[[DE]], %[[DW]], %[[DT]]

func.func @shape(%x: tensor<2x6xf32> {ckpt.param}, %y: tensor<2x2xf32> {ckpt.param}) -> tensor<f32> {
  %r = ckpt.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
  %t = ckpt.transpose %r permutation = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
  %s = ckpt.slice %t dim = 1 start = 0 end = 3 step = 2 : tensor<4x3xf32> -> tensor<4x2xf32>
  %b = ckpt.broadcast_to %y : tensor<2x2xf32> -> tensor<2x2x2xf32>
  %f = ckpt.reshape %b : tensor<2x2x2xf32> -> tensor<4x2xf32>
  %c = ckpt.concat %s, %f dim = 0 : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  %l = ckpt.reduce_sum %c : tensor<8x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @reductions(%x: tensor<2x3x4xf32> {ckpt.param}) -> tensor<f32> {
  %m = ckpt.reduce_max %x dims = [2] : tensor<2x3x4xf32> -> tensor<2x3xf32>
  %a = ckpt.reduce_mean %m dims = [1] keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
  %n = ckpt.reduce_norm %x dims = [0] : tensor<2x3x4xf32> -> tensor<3x4xf32>
  %s = ckpt.reduce_sum %a : tensor<2x1xf32> -> tensor<f32>
  %t = ckpt.reduce_sum %n : tensor<3x4xf32> -> tensor<f32>
  %l = ckpt.add %s, %t : tensor<f32>
  return %l : tensor<f32>
}
func.func @losses(%tokens: tensor<2x3xi64>, %labels: tensor<6xi64>, %emb: tensor<10x4xf32> {ckpt.param},
                  %w: tensor<10x4xf32> {ckpt.param}, %target: tensor<6x10xf32> {ckpt.param}) -> tensor<f32> {
  %e = ckpt.embedding %tokens, %emb : (tensor<2x3xi64>, tensor<10x4xf32>) -> tensor<2x3x4xf32>
  %h = ckpt.reshape %e : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %logits = ckpt.linear %h, %w : (tensor<6x4xf32>, tensor<10x4xf32>) -> tensor<6x10xf32>
  %ce = ckpt.cross_entropy %logits, %labels : (tensor<6x10xf32>, tensor<6xi64>) -> tensor<f32>
  %mse = ckpt.mse_loss %logits, %target : (tensor<6x10xf32>, tensor<6x10xf32>) -> tensor<f32>
  %l = ckpt.add %ce, %mse : tensor<f32>
  return %l : tensor<f32>
}
