// Finite differences in f64 against the flash-style gradients of
// scaled_dot_product_attention: grouped-query heads (4 query heads share 2
// key heads) with a causal mask, an additive mask that broadcasts over
// batch and heads (one key masked out for every query), a per-head mask,
// and dropout on the weights drawn from an explicit random state (the
// gradient draws the same mask again).
// RUN: %check_gradients | FileCheck %s
// CHECK: gradient check: passed

func.func @attention(%q: tensor<2x4x5x3xf64> {ckpt.param}, %k: tensor<2x2x6x3xf64> {ckpt.param},
                     %v: tensor<2x2x6x2xf64> {ckpt.param}, %heads: tensor<1x4x5x6xf64>,
                     %rng: !ckpt.rng) -> tensor<f64> {
  %c:2 = ckpt.scaled_dot_product_attention %q, %k, %v causal scale = 0.5
      : (tensor<2x4x5x3xf64>, tensor<2x2x6x3xf64>, tensor<2x2x6x2xf64>) -> (tensor<2x4x5x2xf64>, tensor<2x4x5xf64>)
  %mask = arith.constant dense<[[0.0, 0.0, 0xFFF0000000000000, 0.0, 0.0, 0.0]]> : tensor<1x6xf64>
  %m:2 = ckpt.scaled_dot_product_attention %q, %k, %v mask %mask scale = 0.75
      : (tensor<2x4x5x3xf64>, tensor<2x2x6x3xf64>, tensor<2x2x6x2xf64>, tensor<1x6xf64>) -> (tensor<2x4x5x2xf64>, tensor<2x4x5xf64>)
  %h:2 = ckpt.scaled_dot_product_attention %q, %k, %v mask %heads scale = 0.6
      : (tensor<2x4x5x3xf64>, tensor<2x2x6x3xf64>, tensor<2x2x6x2xf64>, tensor<1x4x5x6xf64>) -> (tensor<2x4x5x2xf64>, tensor<2x4x5xf64>)
  %d:2 = ckpt.scaled_dot_product_attention %q, %k, %v rng %rng offset = 0 scale = 0.5 p = 0.25
      : (tensor<2x4x5x3xf64>, tensor<2x2x6x3xf64>, tensor<2x2x6x2xf64>, !ckpt.rng) -> (tensor<2x4x5x2xf64>, tensor<2x4x5xf64>)
  %a = ckpt.mul %c#0, %m#0 : tensor<2x4x5x2xf64>
  %b = ckpt.add %a, %h#0 : tensor<2x4x5x2xf64>
  %e = ckpt.mul %b, %d#0 : tensor<2x4x5x2xf64>
  %loss = ckpt.reduce_sum %e : tensor<2x4x5x2xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
