// Attention's scratch (the weights of every head and their row sums; in
// the gradient the weights, their gradients and the row dot products) is
// what the ops declare, so the measured peak is the simulated one to the
// byte, with grouped-query heads, a causal mask and dropout. Only q, k, v,
// the output and the log-sum-exp are saved for backward (1 KiB of
// log-sum-exp, never the 64 KiB of weights).
// RUN: ckpt-opt %s --ckpt-pipeline=strategy=none | ckpt-run - --seed 1 --check-peak=1e-9 | FileCheck %s
// RUN: ckpt-opt %s --ckpt-pipeline=strategy=none --ckpt-report=output=- -o /dev/null | FileCheck %s --check-prefix=SAVED
// CHECK: peak bytes: measured [[PEAK:[0-9]+]] ({{.*}}), simulated [[PEAK]] (+0.00%)
// CHECK: peak bytes without returned gradients: measured [[REST:[0-9]+]] ({{.*}}), simulated [[REST]] (+0.00%)
// SAVED: ckpt.scaled_dot_product_attention peak-attention.mlir:26:10 %result 2x4x32x8 f32 8192
// SAVED: ckpt.scaled_dot_product_attention peak-attention.mlir:26:10 %lse 2x4x32 f32 1024
// SAVED: saved activations: 7 tensors, 29712 B
// SAVED: simulated peak: 124948 B (122.020 KiB) while running ckpt.scaled_dot_product_attention_grad
func.func @f(%x: tensor<2x32x16xf32>, %wq: tensor<32x16xf32> {ckpt.param},
             %wk: tensor<16x16xf32> {ckpt.param}, %wv: tensor<16x16xf32> {ckpt.param}) -> tensor<f32> {
  %q = ckpt.linear %x, %wq : (tensor<2x32x16xf32>, tensor<32x16xf32>) -> tensor<2x32x32xf32>
  %k = ckpt.linear %x, %wk : (tensor<2x32x16xf32>, tensor<16x16xf32>) -> tensor<2x32x16xf32>
  %v = ckpt.linear %x, %wv : (tensor<2x32x16xf32>, tensor<16x16xf32>) -> tensor<2x32x16xf32>
  %q4 = ckpt.reshape %q : tensor<2x32x32xf32> -> tensor<2x32x4x8xf32>
  %k4 = ckpt.reshape %k : tensor<2x32x16xf32> -> tensor<2x32x2x8xf32>
  %v4 = ckpt.reshape %v : tensor<2x32x16xf32> -> tensor<2x32x2x8xf32>
  %qh = ckpt.transpose %q4 permutation = [0, 2, 1, 3] : tensor<2x32x4x8xf32> -> tensor<2x4x32x8xf32>
  %kh = ckpt.transpose %k4 permutation = [0, 2, 1, 3] : tensor<2x32x2x8xf32> -> tensor<2x2x32x8xf32>
  %vh = ckpt.transpose %v4 permutation = [0, 2, 1, 3] : tensor<2x32x2x8xf32> -> tensor<2x2x32x8xf32>
  %o:2 = ckpt.scaled_dot_product_attention %qh, %kh, %vh causal scale = 0.35355339059327373 p = 0.1
      : (tensor<2x4x32x8xf32>, tensor<2x2x32x8xf32>, tensor<2x2x32x8xf32>) -> (tensor<2x4x32x8xf32>, tensor<2x4x32xf32>)
  %l = ckpt.reduce_mean %o#0 : tensor<2x4x32x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
