// The shape of the training step: forward kept, step appended with the loss
// and one gradient per parameter in argument order; activity analysis; zero
// gradients for parameters that do not reach the loss; segments exported.
// RUN: ckpt-opt %s --ckpt-autodiff -split-input-file -verify-diagnostics | FileCheck %s

// The forward stays; the step follows it. Values that do not depend on a
// parameter (%c) and values the loss does not read (%unused) get no
// backward ops; a non-parameter input gets no gradient.
// CHECK-LABEL: func.func @activity(
//       CHECK:   return
// CHECK-LABEL: func.func @activity_train
//  CHECK-SAME:   (%[[X:.+]]: tensor<4xf32>, %[[W:.+]]: tensor<4xf32> {ckpt.param})
//  CHECK-SAME:   -> (tensor<f32>, tensor<4xf32>)
//       CHECK:   %[[C:.+]] = ckpt.exp %[[X]]
//       CHECK:   %[[U:.+]] = ckpt.tanh %[[W]]
//       CHECK:   %[[M:.+]] = ckpt.mul %[[C]], %[[W]]
//       CHECK:   %[[L:.+]] = ckpt.reduce_sum %[[M]]
//   CHECK-NOT:   ckpt.tanh_grad
//   CHECK-NOT:   ckpt.exp {{.*}}ckpt.backward
//       CHECK:   %[[DW:.+]] = ckpt.mul %{{.+}}, %[[C]] {ckpt.backward}
//  CHECK-NEXT:   return %[[L]], %[[DW]] : tensor<f32>, tensor<4xf32>
func.func @activity(%x: tensor<4xf32>, %w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %c = ckpt.exp %x : tensor<4xf32>
  %unused = ckpt.tanh %w : tensor<4xf32>
  %m = ckpt.mul %c, %w : tensor<4xf32>
  %l = ckpt.reduce_sum %m : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A parameter that never reaches the loss gets a zero gradient and a
// warning; one used twice accumulates.
// CHECK-LABEL: func.func @zero_and_accumulate_train
//  CHECK-SAME:   (%[[A:.+]]: tensor<3xf32> {ckpt.param}, %[[B:.+]]: tensor<2xf32> {ckpt.param})
//       CHECK:   %[[S:.+]] = ckpt.mul %[[A]], %[[A]]
//       CHECK:   %[[D1:.+]] = ckpt.mul %[[G:.+]], %[[A]] {ckpt.backward}
//       CHECK:   %[[D2:.+]] = ckpt.mul %[[G]], %[[A]] {ckpt.backward}
//       CHECK:   %[[DA:.+]] = ckpt.add %[[D1]], %[[D2]] {ckpt.backward}
//       CHECK:   %[[ZERO:.+]] = arith.constant {ckpt.backward} dense<0.000000e+00> : tensor<2xf32>
//       CHECK:   return %{{.+}}, %[[DA]], %[[ZERO]]
// expected-warning @below {{parameter 1 of 'zero_and_accumulate_train' does not influence the loss; its gradient is zero}}
func.func @zero_and_accumulate(%a: tensor<3xf32> {ckpt.param}, %b: tensor<2xf32> {ckpt.param}) -> tensor<f32> {
  %s = ckpt.mul %a, %a : tensor<3xf32>
  %l = ckpt.reduce_sum %s : tensor<3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Backward reads values computed inside a segment: the segment returns them
// as extra results, which are its saved tensors. Block arguments read by
// backward are replaced by the segment's inputs.
// CHECK-LABEL: func.func @segment_train
//  CHECK-SAME:   (%[[X:.+]]: tensor<4xf32> {ckpt.param})
//       CHECK:   %[[S:.+]]:3 = ckpt.checkpoint(%[[IN:.+]] = %[[X]]) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
//  CHECK-NEXT:     %[[E:.+]] = ckpt.exp %[[IN]]
//  CHECK-NEXT:     %[[T:.+]] = ckpt.tanh %[[E]]
//  CHECK-NEXT:     %[[M:.+]] = ckpt.mul %[[T]], %[[IN]]
//  CHECK-NEXT:     ckpt.yield %[[M]], %[[E]], %[[T]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
//  CHECK-NEXT:   }
//       CHECK:   ckpt.reduce_sum %[[S]]#0
//       CHECK:   ckpt.mul %{{.+}}, %[[X]] {ckpt.backward}
//       CHECK:   ckpt.mul %{{.+}}, %[[S]]#2 {ckpt.backward}
//       CHECK:   ckpt.tanh_grad %{{.+}}, %[[S]]#2 {ckpt.backward}
//       CHECK:   ckpt.mul %{{.+}}, %[[S]]#1 {ckpt.backward}
func.func @segment(%x: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %y = ckpt.checkpoint(%in = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %e = ckpt.exp %in : tensor<4xf32>
    %t = ckpt.tanh %e : tensor<4xf32>
    %m = ckpt.mul %t, %in : tensor<4xf32>
    ckpt.yield %m : tensor<4xf32>
  }
  %l = ckpt.reduce_sum %y : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Results after the loss are auxiliary: the step returns them after the
// loss and before the gradients, undifferentiated. %t depends on the
// parameter but gets no tanh_grad; %m, which the loss also reads, gets the
// loss's gradient only.
// CHECK-LABEL: func.func @auxiliary_train
//  CHECK-SAME:   (%[[X:.+]]: tensor<4xf32>, %[[W:.+]]: tensor<4xf32> {ckpt.param})
//  CHECK-SAME:   -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
//       CHECK:   %[[T:.+]] = ckpt.tanh %[[W]]
//       CHECK:   %[[M:.+]] = ckpt.mul %[[X]], %[[W]]
//       CHECK:   %[[L:.+]] = ckpt.reduce_sum %[[M]]
//   CHECK-NOT:   ckpt.tanh_grad
//       CHECK:   %[[DW:.+]] = ckpt.mul %{{.+}}, %[[X]] {ckpt.backward}
//  CHECK-NEXT:   return %[[L]], %[[T]], %[[M]], %[[DW]] : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
func.func @auxiliary(%x: tensor<4xf32>, %w: tensor<4xf32> {ckpt.param})
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %t = ckpt.tanh %w : tensor<4xf32>
  %m = ckpt.mul %x, %w : tensor<4xf32>
  %l = ckpt.reduce_sum %m : tensor<4xf32> -> tensor<f32>
  return %l, %t, %m : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// With random state the order is loss, auxiliary results, gradients, then
// the advanced state; an auxiliary result may come from a segment.
// CHECK-LABEL: func.func @auxiliary_state_train
//  CHECK-SAME:   -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>, !ckpt.rng)
//       CHECK:   %[[D:.+]] = ckpt.checkpoint
//       CHECK:   %[[L:.+]] = ckpt.reduce_sum %[[D]]
//       CHECK:   %[[DW:.+]] = ckpt.dropout_grad
//       CHECK:   %[[NEXT:.+]] = ckpt.rng_advance
//  CHECK-NEXT:   return %[[L]], %[[D]], %[[DW]], %[[NEXT]] : tensor<f32>, tensor<4xf32>, tensor<4xf32>, !ckpt.rng
func.func @auxiliary_state(%w: tensor<4xf32> {ckpt.param}, %rng: !ckpt.rng)
    -> (tensor<f32>, tensor<4xf32>) {
  %d = ckpt.checkpoint(%in = %w, %state = %rng) : (tensor<4xf32>, !ckpt.rng) -> tensor<4xf32> {
    %y = ckpt.dropout %in rng %state offset = 0 p = 5.000000e-01 : tensor<4xf32>
    ckpt.yield %y : tensor<4xf32>
  }
  %l = ckpt.reduce_sum %d : tensor<4xf32> -> tensor<f32>
  return %l, %d : tensor<f32>, tensor<4xf32>
}
