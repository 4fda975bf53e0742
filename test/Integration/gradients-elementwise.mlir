// Central finite differences in f64 agree with the gradients of every
// pointwise op (broadcasting included), to 1e-6 relative error.
// RUN: %check_gradients | FileCheck %s
// CHECK: gradient check: passed

func.func @pointwise(%a: tensor<3x4xf64> {ckpt.param}, %b: tensor<4xf64> {ckpt.param},
                     %c: tensor<3x1xf64> {ckpt.param}, %m: tensor<3x4xi1>) -> tensor<f64> {
  %s = ckpt.add %a, %b : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  %d = ckpt.sub %s, %c : (tensor<3x4xf64>, tensor<3x1xf64>) -> tensor<3x4xf64>
  %p = ckpt.mul %d, %a : tensor<3x4xf64>
  %e = ckpt.exp %c : tensor<3x1xf64>
  %rs = ckpt.rsqrt %e : tensor<3x1xf64>
  %q = ckpt.div %p, %rs : (tensor<3x4xf64>, tensor<3x1xf64>) -> tensor<3x4xf64>
  %n = ckpt.neg %q : tensor<3x4xf64>
  %t = ckpt.tanh %n : tensor<3x4xf64>
  %g = ckpt.sigmoid %t : tensor<3x4xf64>
  %l = ckpt.log %g : tensor<3x4xf64>
  %r = ckpt.relu %a : tensor<3x4xf64>
  %u = ckpt.silu %l : tensor<3x4xf64>
  %v = ckpt.gelu %u : tensor<3x4xf64>
  %w = ckpt.gelu %r approximate = tanh : tensor<3x4xf64>
  %x = ckpt.where %m, %v, %w : (tensor<3x4xi1>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %y = ckpt.mul %x, %v : tensor<3x4xf64>
  %loss = ckpt.reduce_sum %y : tensor<3x4xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
