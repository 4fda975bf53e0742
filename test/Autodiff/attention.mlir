// Attention's gradient is flash attention's: it reads q, k, v, the output
// and the row log-sum-exp (here 2x4x6 f32, 192 bytes) and recomputes the
// weights (2x4x6x6, never saved); ckpt-thread-rng gives attention with dropout its counters (one
// per 4 of the 2x4x6x6 weights) after the dropout before it, and the
// gradient draws the same weights' mask again. Attention without dropout
// draws nothing and gets no state.
// RUN: ckpt-opt %s --ckpt-thread-rng --ckpt-autodiff=keep-forward=false --ckpt-report="remarks=1 output=%t" -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @attention_train
//  CHECK-SAME:   attributes {ckpt.rng_counters = 120 : i64, ckpt.training_step}
//       CHECK:   %[[D:.+]] = ckpt.dropout %{{.+}} rng %[[RNG:.+]] offset = 0 p = 5.000000e-01
//       CHECK:   %[[A:.+]], %[[AL:.+]] = ckpt.scaled_dot_product_attention %[[D]], %[[K:.+]], %[[V:.+]] rng %[[RNG]] offset = 48 causal scale = 5.000000e-01 p = 2.500000e-01
//       CHECK:   %[[B:.+]], %[[BL:.+]] = ckpt.scaled_dot_product_attention %[[A]], %[[K]], %[[V]] scale = 2.500000e-01 :
//       CHECK:   ckpt.scaled_dot_product_attention_grad %{{.+}}, %[[A]], %[[K]], %[[V]], %[[B]], %[[BL]] scale = 2.500000e-01 {ckpt.backward}
//       CHECK:   ckpt.scaled_dot_product_attention_grad %{{.+}}, %[[D]], %[[K]], %[[V]], %[[A]], %[[AL]] rng %[[RNG]] offset = 48 causal scale = 5.000000e-01 p = 2.500000e-01 {ckpt.backward}
//       CHECK:   ckpt.rng_advance %[[RNG]] counters = 120

// expected-remark @below {{saved parameter %arg1: 'tensor<2x2x6x4xf32>', 384 bytes, read by 2 backward op(s)}}
// expected-remark @below {{saved parameter %arg2: 'tensor<2x2x6x4xf32>', 384 bytes, read by 2 backward op(s)}}
// expected-remark @below {{saved activation %arg3: '!ckpt.rng', 16 bytes, read by 3 backward op(s)}}
// expected-remark @below {{training step @attention_train: saved activations 2704 bytes in 6 tensors}}
func.func @attention(%q: tensor<2x4x6x4xf32> {ckpt.param}, %k: tensor<2x2x6x4xf32> {ckpt.param},
                     %v: tensor<2x2x6x4xf32> {ckpt.param}) -> tensor<f32> {
  // expected-remark @below {{saved activation %0: 'tensor<2x4x6x4xf32>', 768 bytes, read by 1 backward op(s)}}
  %d = ckpt.dropout %q p = 0.5 : tensor<2x4x6x4xf32>
  // expected-remark @below {{saved activation %result: 'tensor<2x4x6x4xf32>', 768 bytes, read by 2 backward op(s)}}
  // expected-remark @below {{saved activation %lse: 'tensor<2x4x6xf32>', 192 bytes, read by 1 backward op(s)}}
  %a:2 = ckpt.scaled_dot_product_attention %d, %k, %v causal scale = 0.5 p = 0.25
      : (tensor<2x4x6x4xf32>, tensor<2x2x6x4xf32>, tensor<2x2x6x4xf32>) -> (tensor<2x4x6x4xf32>, tensor<2x4x6xf32>)
  // expected-remark @below {{saved activation %result_0: 'tensor<2x4x6x4xf32>', 768 bytes, read by 1 backward op(s)}}
  // expected-remark @below {{saved activation %lse_1: 'tensor<2x4x6xf32>', 192 bytes, read by 1 backward op(s)}}
  %b:2 = ckpt.scaled_dot_product_attention %a#0, %k, %v scale = 0.25
      : (tensor<2x4x6x4xf32>, tensor<2x2x6x4xf32>, tensor<2x2x6x4xf32>) -> (tensor<2x4x6x4xf32>, tensor<2x4x6xf32>)
  %l = ckpt.reduce_sum %b#0 : tensor<2x4x6x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
