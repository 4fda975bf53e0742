// An explicit dropout's gradient draws the same mask again from the same
// state and counters; it saves nothing but the random state (16 bytes: seed
// and base counter), and the step
// returns the state advanced past the counters it drew.
// RUN: ckpt-opt %s --ckpt-thread-rng --ckpt-autodiff=keep-forward=false --ckpt-report="remarks=1 output=%t" -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @dropout_train
//  CHECK-SAME:   (%[[X:.+]]: tensor<2x8xf32> {ckpt.param}, %[[RNG:.+]]: !ckpt.rng)
//  CHECK-SAME:   -> (tensor<f32>, tensor<2x8xf32>, !ckpt.rng) attributes {ckpt.rng_counters = 8 : i64, ckpt.training_step}
//       CHECK:   %[[A:.+]] = ckpt.dropout %[[X]] rng %[[RNG]] offset = 0 p = 2.500000e-01
//       CHECK:   %[[B:.+]] = ckpt.dropout %[[A]] rng %[[RNG]] offset = 4 p = 5.000000e-01
//       CHECK:   %[[DB:.+]] = ckpt.dropout_grad %{{.+}} rng %[[RNG]] offset = 4 p = 5.000000e-01 {ckpt.backward}
//       CHECK:   %[[DA:.+]] = ckpt.dropout_grad %[[DB]] rng %[[RNG]] offset = 0 p = 2.500000e-01 {ckpt.backward}
//       CHECK:   %[[NEXT:.+]] = ckpt.rng_advance %[[RNG]] counters = 8 {ckpt.backward}
//       CHECK:   return %{{.+}}, %[[DA]], %[[NEXT]]

// expected-remark @below {{saved activation %arg1: '!ckpt.rng', 16 bytes, read by 3 backward op(s)}}
// expected-remark @below {{training step @dropout_train: saved activations 16 bytes in 1 tensors}}
func.func @dropout(%x: tensor<2x8xf32> {ckpt.param}) -> tensor<f32> {
  %a = ckpt.dropout %x p = 0.25 : tensor<2x8xf32>
  %b = ckpt.dropout %a p = 0.5 : tensor<2x8xf32>
  %l = ckpt.reduce_sum %b : tensor<2x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
