// Gradient rules of elementwise ops: broadcasting sums gradients back to the
// operand's shape, several uses accumulate, and each rule reads only the
// forward values it declares as saved.
// RUN: ckpt-opt %s --ckpt-autodiff=keep-forward=false | FileCheck %s

// CHECK-LABEL: func.func @broadcast_add_train
//  CHECK-SAME:   (%[[A:.+]]: tensor<4x8xf32> {ckpt.param}, %[[B:.+]]: tensor<8xf32> {ckpt.param})
//  CHECK-SAME:   -> (tensor<f32>, tensor<4x8xf32>, tensor<8xf32>) attributes {ckpt.training_step}
//       CHECK:   %[[Y:.+]] = ckpt.add %[[A]], %[[B]]
//       CHECK:   %[[L:.+]] = ckpt.reduce_sum %[[Y]]
//       CHECK:   %[[ONE:.+]] = arith.constant {ckpt.backward} dense<1.000000e+00> : tensor<f32>
//       CHECK:   %[[R:.+]] = ckpt.reshape %[[ONE]] {ckpt.backward} : tensor<f32> -> tensor<1x1xf32>
//       CHECK:   %[[DY:.+]] = ckpt.broadcast_to %[[R]] {ckpt.backward} : tensor<1x1xf32> -> tensor<4x8xf32>
//       CHECK:   %[[S:.+]] = ckpt.reduce_sum %[[DY]] dims = [0] keepdim {ckpt.backward}
//       CHECK:   %[[DB:.+]] = ckpt.reshape %[[S]] {ckpt.backward} : tensor<1x8xf32> -> tensor<8xf32>
//       CHECK:   return %[[L]], %[[DY]], %[[DB]]
func.func @broadcast_add(%a: tensor<4x8xf32> {ckpt.param}, %b: tensor<8xf32> {ckpt.param}) -> tensor<f32> {
  %y = ckpt.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %l = ckpt.reduce_sum %y : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// s = a - b, m = s * a, d = m / b: every rule, and both gradients accumulate.
// CHECK-LABEL: func.func @sub_mul_div_train
//  CHECK-SAME:   (%[[A:.+]]: tensor<4x8xf32> {ckpt.param}, %[[B:.+]]: tensor<4x1xf32> {ckpt.param})
//       CHECK:   %[[S:.+]] = ckpt.sub %[[A]], %[[B]]
//       CHECK:   %[[M:.+]] = ckpt.mul %[[S]], %[[A]]
//       CHECK:   ckpt.div %[[M]], %[[B]]
//       CHECK:   %[[DD:.+]] = ckpt.broadcast_to
//       CHECK:   %[[DM:.+]] = ckpt.div %[[DD]], %[[B]] {ckpt.backward}
//       CHECK:   %[[NUM:.+]] = ckpt.mul %[[DD]], %[[M]] {ckpt.backward}
//       CHECK:   %[[SQ:.+]] = ckpt.mul %[[B]], %[[B]] {ckpt.backward}
//       CHECK:   %[[Q:.+]] = ckpt.div %[[NUM]], %[[SQ]] {ckpt.backward}
//       CHECK:   %[[NQ:.+]] = ckpt.neg %[[Q]] {ckpt.backward}
//       CHECK:   %[[DB1:.+]] = ckpt.reduce_sum %[[NQ]] dims = [1] keepdim {ckpt.backward} : tensor<4x8xf32> -> tensor<4x1xf32>
//       CHECK:   %[[DS:.+]] = ckpt.mul %[[DM]], %[[A]] {ckpt.backward}
//       CHECK:   %[[DA1:.+]] = ckpt.mul %[[DM]], %[[S]] {ckpt.backward}
//       CHECK:   %[[SUMDS:.+]] = ckpt.reduce_sum %[[DS]] dims = [1] keepdim {ckpt.backward}
//       CHECK:   %[[DB2:.+]] = ckpt.neg %[[SUMDS]] {ckpt.backward}
//       CHECK:   %[[DA:.+]] = ckpt.add %[[DA1]], %[[DS]] {ckpt.backward}
//       CHECK:   %[[DB:.+]] = ckpt.add %[[DB1]], %[[DB2]] {ckpt.backward}
//       CHECK:   return %{{.+}}, %[[DA]], %[[DB]]
func.func @sub_mul_div(%a: tensor<4x8xf32> {ckpt.param}, %b: tensor<4x1xf32> {ckpt.param}) -> tensor<f32> {
  %s = ckpt.sub %a, %b : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %m = ckpt.mul %s, %a : tensor<4x8xf32>
  %d = ckpt.div %m, %b : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %l = ckpt.reduce_sum %d : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// Unary ops: exp reads its result, log its input, tanh/sigmoid/relu their
// result, silu/gelu their input; neg reads nothing.
// CHECK-LABEL: func.func @unary_train
//  CHECK-SAME:   (%[[X:.+]]: tensor<8xf64> {ckpt.param})
//       CHECK:   %[[N:.+]] = ckpt.neg %[[X]] : tensor<8xf64>
//       CHECK:   %[[E:.+]] = ckpt.exp %[[N]]
//       CHECK:   %[[LG:.+]] = ckpt.log %[[E]]
//       CHECK:   %[[T:.+]] = ckpt.tanh %[[LG]]
//       CHECK:   %[[SG:.+]] = ckpt.sigmoid %[[T]]
//       CHECK:   %[[R:.+]] = ckpt.relu %[[SG]]
//       CHECK:   %[[SL:.+]] = ckpt.silu %[[R]]
//       CHECK:   %[[G:.+]] = ckpt.gelu %[[SL]] approximate = tanh
//       CHECK:   %[[D0:.+]] = ckpt.broadcast_to
//       CHECK:   %[[D1:.+]] = ckpt.gelu_grad %[[D0]], %[[SL]] approximate = tanh {ckpt.backward}
//       CHECK:   %[[D2:.+]] = ckpt.silu_grad %[[D1]], %[[R]] {ckpt.backward}
//       CHECK:   %[[D3:.+]] = ckpt.relu_grad %[[D2]], %[[R]] {ckpt.backward}
//       CHECK:   %[[D4:.+]] = ckpt.sigmoid_grad %[[D3]], %[[SG]] {ckpt.backward}
//       CHECK:   %[[D5:.+]] = ckpt.tanh_grad %[[D4]], %[[T]] {ckpt.backward}
//       CHECK:   %[[D6:.+]] = ckpt.div %[[D5]], %[[E]] {ckpt.backward}
//       CHECK:   %[[D7:.+]] = ckpt.mul %[[D6]], %[[E]] {ckpt.backward}
//       CHECK:   %[[D8:.+]] = ckpt.neg %[[D7]] {ckpt.backward}
//       CHECK:   return %{{.+}}, %[[D8]]
func.func @unary(%x: tensor<8xf64> {ckpt.param}) -> tensor<f64> {
  %n = ckpt.neg %x : tensor<8xf64>
  %e = ckpt.exp %n : tensor<8xf64>
  %lg = ckpt.log %e : tensor<8xf64>
  %t = ckpt.tanh %lg : tensor<8xf64>
  %sg = ckpt.sigmoid %t : tensor<8xf64>
  %r = ckpt.relu %sg : tensor<8xf64>
  %sl = ckpt.silu %r : tensor<8xf64>
  %g = ckpt.gelu %sl approximate = tanh : tensor<8xf64>
  %l = ckpt.reduce_sum %g : tensor<8xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// where: the mask routes the gradient; the condition gets none.
// CHECK-LABEL: func.func @where_train
//  CHECK-SAME:   (%[[C:.+]]: tensor<4x1xi1>, %[[T:.+]]: tensor<4x8xf32> {ckpt.param}, %[[F:.+]]: tensor<8xf32> {ckpt.param})
//       CHECK:   %[[DY:.+]] = ckpt.broadcast_to
//       CHECK:   %[[Z:.+]] = arith.constant {ckpt.backward} dense<0.000000e+00> : tensor<f32>
//       CHECK:   %[[DT:.+]] = ckpt.where %[[C]], %[[DY]], %[[Z]] {ckpt.backward}
//       CHECK:   %[[WF:.+]] = ckpt.where %[[C]], %[[Z]], %[[DY]] {ckpt.backward}
//       CHECK:   %[[SF:.+]] = ckpt.reduce_sum %[[WF]] dims = [0] keepdim {ckpt.backward}
//       CHECK:   %[[DF:.+]] = ckpt.reshape %[[SF]] {ckpt.backward} : tensor<1x8xf32> -> tensor<8xf32>
//       CHECK:   return %{{.+}}, %[[DT]], %[[DF]]
func.func @where(%c: tensor<4x1xi1>, %t: tensor<4x8xf32> {ckpt.param}, %f: tensor<8xf32> {ckpt.param}) -> tensor<f32> {
  %y = ckpt.where %c, %t, %f : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %l = ckpt.reduce_sum %y : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// A cast's gradient is the result's gradient cast back to the operand's
// type; the rule reads no forward value, so the cast saves nothing.
// CHECK-LABEL: func.func @cast_train
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x8xf64> {ckpt.param})
//       CHECK:   %[[C:.+]] = ckpt.cast %[[X]] : tensor<4x8xf64> -> tensor<4x8xf32>
//       CHECK:   %[[DC:.+]] = ckpt.tanh_grad
//       CHECK:   %[[DX:.+]] = ckpt.cast %[[DC]] {ckpt.backward} : tensor<4x8xf32> -> tensor<4x8xf64>
//       CHECK:   return %{{.+}}, %[[DX]]
func.func @cast(%x: tensor<4x8xf64> {ckpt.param}) -> tensor<f32> {
  %c = ckpt.cast %x : tensor<4x8xf64> -> tensor<4x8xf32>
  %t = ckpt.tanh %c : tensor<4x8xf32>
  %l = ckpt.reduce_sum %t : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
