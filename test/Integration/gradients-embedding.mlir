// Finite differences in f64 against the gradient of embedding, with a
// repeated index so rows accumulate.
// RUN: %check_gradients | FileCheck %s
// CHECK: gradient check: passed

func.func @lookup(%tokens: tensor<3x4xi64>, %table: tensor<5x6xf64> {ckpt.param},
                  %w: tensor<2x6xf64> {ckpt.param}, %labels: tensor<12xi64>) -> tensor<f64> {
  %e = ckpt.embedding %tokens, %table : (tensor<3x4xi64>, tensor<5x6xf64>) -> tensor<3x4x6xf64>
  %t = ckpt.tanh %e : tensor<3x4x6xf64>
  %f = ckpt.reshape %t : tensor<3x4x6xf64> -> tensor<12x6xf64>
  %logits = ckpt.linear %f, %w : (tensor<12x6xf64>, tensor<2x6xf64>) -> tensor<12x2xf64>
  %loss = ckpt.cross_entropy %logits, %labels : (tensor<12x2xf64>, tensor<12xi64>) -> tensor<f64>
  return %loss : tensor<f64>
}
