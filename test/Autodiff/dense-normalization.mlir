// Gradient rules of linear, matmul and the normalisations.
// RUN: ckpt-opt %s --ckpt-autodiff=keep-forward=false | FileCheck %s

// linear saves its input for dW (the weight is a parameter); dx is not
// built because the input needs no gradient. dW = dy^T x reads dy
// transposed, with no transposed copy.
// CHECK-LABEL: func.func @linear_train
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x3x4xf32>, %[[W:.+]]: tensor<5x4xf32> {ckpt.param}, %[[B:.+]]: tensor<5xf32> {ckpt.param})
//   CHECK-NOT:   ckpt.matmul {{.*}}%[[W]]
//       CHECK:   %[[DY:.+]] = ckpt.broadcast_to {{.*}} -> tensor<2x3x5xf32>
//       CHECK:   %[[DY2:.+]] = ckpt.reshape %[[DY]] {ckpt.backward} : tensor<2x3x5xf32> -> tensor<6x5xf32>
//       CHECK:   %[[X2:.+]] = ckpt.reshape %[[X]] {ckpt.backward} : tensor<2x3x4xf32> -> tensor<6x4xf32>
//       CHECK:   %[[DW:.+]] = ckpt.matmul %[[DY2]], %[[X2]] transpose_lhs {ckpt.backward} : (tensor<6x5xf32>, tensor<6x4xf32>) -> tensor<5x4xf32>
//       CHECK:   %[[SB:.+]] = ckpt.reduce_sum %[[DY]] dims = [0, 1] keepdim {ckpt.backward}
//       CHECK:   %[[DB:.+]] = ckpt.reshape %[[SB]] {ckpt.backward} : tensor<1x1x5xf32> -> tensor<5xf32>
//       CHECK:   return %{{.+}}, %[[DW]], %[[DB]]
func.func @linear(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32> {ckpt.param}, %b: tensor<5xf32> {ckpt.param}) -> tensor<f32> {
  %y = ckpt.linear %x, %w, %b : (tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  %l = ckpt.reduce_sum %y : tensor<2x3x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// A rank-1 input: dx = dy W on a 1-row matrix.
// CHECK-LABEL: func.func @linear_input_train
//  CHECK-SAME:   (%[[X:.+]]: tensor<4xf32> {ckpt.param}, %[[W:.+]]: tensor<5x4xf32>)
//       CHECK:   %[[DY:.+]] = ckpt.reshape %{{.+}} {ckpt.backward} : tensor<5xf32> -> tensor<1x5xf32>
//       CHECK:   %[[DX:.+]] = ckpt.matmul %[[DY]], %[[W]] {ckpt.backward} : (tensor<1x5xf32>, tensor<5x4xf32>) -> tensor<1x4xf32>
//       CHECK:   %[[R:.+]] = ckpt.reshape %[[DX]] {ckpt.backward} : tensor<1x4xf32> -> tensor<4xf32>
//       CHECK:   return %{{.+}}, %[[R]]
func.func @linear_input(%x: tensor<4xf32> {ckpt.param}, %w: tensor<5x4xf32>) -> tensor<f32> {
  %y = ckpt.linear %x, %w : (tensor<4xf32>, tensor<5x4xf32>) -> tensor<5xf32>
  %l = ckpt.reduce_sum %y : tensor<5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// matmul with a broadcast batch: dB sums over the batch. dA = dC B^T and
// dB = A^T dC read B and A transposed.
// CHECK-LABEL: func.func @matmul_train
//  CHECK-SAME:   (%[[A:.+]]: tensor<2x3x4xf32> {ckpt.param}, %[[B:.+]]: tensor<4x5xf32> {ckpt.param})
//   CHECK-NOT:   ckpt.transpose
//       CHECK:   %[[DC:.+]] = ckpt.broadcast_to {{.*}} -> tensor<2x3x5xf32>
//       CHECK:   %[[DA:.+]] = ckpt.matmul %[[DC]], %[[B]] transpose_rhs {ckpt.backward} : (tensor<2x3x5xf32>, tensor<4x5xf32>) -> tensor<2x3x4xf32>
//       CHECK:   %[[P:.+]] = ckpt.matmul %[[A]], %[[DC]] transpose_lhs {ckpt.backward} : (tensor<2x3x4xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
//       CHECK:   %[[S:.+]] = ckpt.reduce_sum %[[P]] dims = [0] keepdim {ckpt.backward}
//       CHECK:   %[[DB:.+]] = ckpt.reshape %[[S]] {ckpt.backward} : tensor<1x4x5xf32> -> tensor<4x5xf32>
//       CHECK:   return %{{.+}}, %[[DA]], %[[DB]]
func.func @matmul(%a: tensor<2x3x4xf32> {ckpt.param}, %b: tensor<4x5xf32> {ckpt.param}) -> tensor<f32> {
  %y = ckpt.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %l = ckpt.reduce_sum %y : tensor<2x3x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// A product read transposed: each operand's gradient comes out in its own
// layout. With C = A^T B^T, dA = B^T dC^T, read as (B, dC) both
// transposed, and dB = dC^T A^T as (dC, A) both transposed.
// CHECK-LABEL: func.func @matmul_transposed_train
//  CHECK-SAME:   (%[[A:.+]]: tensor<4x3xf32> {ckpt.param}, %[[B:.+]]: tensor<5x4xf32> {ckpt.param})
//   CHECK-NOT:   ckpt.transpose
//       CHECK:   %[[DC:.+]] = ckpt.broadcast_to {{.*}} -> tensor<3x5xf32>
//       CHECK:   %[[DA:.+]] = ckpt.matmul %[[B]], %[[DC]] transpose_lhs transpose_rhs {ckpt.backward} : (tensor<5x4xf32>, tensor<3x5xf32>) -> tensor<4x3xf32>
//       CHECK:   %[[DB:.+]] = ckpt.matmul %[[DC]], %[[A]] transpose_lhs transpose_rhs {ckpt.backward} : (tensor<3x5xf32>, tensor<4x3xf32>) -> tensor<5x4xf32>
//       CHECK:   return %{{.+}}, %[[DA]], %[[DB]]
func.func @matmul_transposed(%a: tensor<4x3xf32> {ckpt.param}, %b: tensor<5x4xf32> {ckpt.param}) -> tensor<f32> {
  %y = ckpt.matmul %a, %b transpose_lhs transpose_rhs : (tensor<4x3xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  %l = ckpt.reduce_sum %y : tensor<3x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// One operand read transposed: dA = dC B (B already as op(B)^T), and
// dB = dC^T A.
// CHECK-LABEL: func.func @matmul_rhs_transposed_train
//  CHECK-SAME:   (%[[A:.+]]: tensor<3x4xf32> {ckpt.param}, %[[B:.+]]: tensor<5x4xf32> {ckpt.param})
//       CHECK:   %[[DC:.+]] = ckpt.broadcast_to {{.*}} -> tensor<3x5xf32>
//       CHECK:   %[[DA:.+]] = ckpt.matmul %[[DC]], %[[B]] {ckpt.backward} : (tensor<3x5xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
//       CHECK:   %[[DB:.+]] = ckpt.matmul %[[DC]], %[[A]] transpose_lhs {ckpt.backward} : (tensor<3x5xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
//       CHECK:   return %{{.+}}, %[[DA]], %[[DB]]
func.func @matmul_rhs_transposed(%a: tensor<3x4xf32> {ckpt.param}, %b: tensor<5x4xf32> {ckpt.param}) -> tensor<f32> {
  %y = ckpt.matmul %a, %b transpose_rhs : (tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  %l = ckpt.reduce_sum %y : tensor<3x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// softmax and log_softmax read their result; layer_norm its input and
// statistics (and weight); rms_norm its input and rstd. The weight used by
// both norms accumulates its two gradients.
// CHECK-LABEL: func.func @norms_train
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x8xf32> {ckpt.param}, %[[G:.+]]: tensor<8xf32> {ckpt.param}, %[[B:.+]]: tensor<8xf32> {ckpt.param})
//       CHECK:   %[[Y:.+]], %[[MEAN:.+]], %[[RSTD:.+]] = ckpt.layer_norm %[[X]]
//       CHECK:   %[[R:.+]], %[[RRSTD:.+]] = ckpt.rms_norm %[[Y]]
//       CHECK:   %[[S:.+]] = ckpt.softmax %[[R]] dim = 1
//       CHECK:   %[[T:.+]] = ckpt.log_softmax %[[S]] dim = 0
//       CHECK:   %[[D1:.+]] = ckpt.log_softmax_grad %{{.+}}, %[[T]] dim = 0 {ckpt.backward}
//       CHECK:   %[[D2:.+]] = ckpt.softmax_grad %[[D1]], %[[S]] dim = 1 {ckpt.backward}
//       CHECK:   %[[D3:.+]], %[[DG1:.+]] = ckpt.rms_norm_grad %[[D2]], %[[Y]], %[[RRSTD]] weight %[[G]] normalized_shape = [8] {ckpt.backward}
//       CHECK:   %[[DX:.+]], %[[DG2:.+]], %[[DB:.+]] = ckpt.layer_norm_grad %[[D3]], %[[X]], %[[MEAN]], %[[RSTD]] weight %[[G]] normalized_shape = [8] {ckpt.backward}
//       CHECK:   %[[DG:.+]] = ckpt.add %[[DG1]], %[[DG2]] {ckpt.backward}
//       CHECK:   return %{{.+}}, %[[DX]], %[[DG]], %[[DB]]
func.func @norms(%x: tensor<2x8xf32> {ckpt.param}, %g: tensor<8xf32> {ckpt.param}, %b: tensor<8xf32> {ckpt.param}) -> tensor<f32> {
  %y:3 = ckpt.layer_norm %x weight %g bias %b normalized_shape = [8] : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  %r:2 = ckpt.rms_norm %y#0 weight %g normalized_shape = [8] : (tensor<2x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>)
  %s = ckpt.softmax %r#0 dim = 1 : tensor<2x8xf32>
  %t = ckpt.log_softmax %s dim = 0 : tensor<2x8xf32>
  %l = ckpt.reduce_sum %t : tensor<2x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
