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
  %ab = ckpt.abs %a : tensor<3x4xf64>
  %cl = ckpt.clamp %a min = -5.0e-01 max = 5.0e-01 : tensor<3x4xf64>
  %lo = ckpt.clamp %d min = 0.0 : tensor<3x4xf64>
  %hi = ckpt.clamp %d max = 0.25 : tensor<3x4xf64>
  %cube = ckpt.pow %a exponent = 3.0 : tensor<3x4xf64>
  %sq = ckpt.sqrt %e : tensor<3x1xf64>
  %pw = ckpt.pow %e exponent = 1.5 : tensor<3x1xf64>
  %z1 = ckpt.mul %ab, %cl : tensor<3x4xf64>
  %z2 = ckpt.add %z1, %cube : tensor<3x4xf64>
  %z3 = ckpt.mul %lo, %hi : tensor<3x4xf64>
  %z4 = ckpt.add %z2, %z3 : tensor<3x4xf64>
  %z5 = ckpt.mul %sq, %pw : tensor<3x1xf64>
  %z6 = ckpt.mul %z4, %z5 : (tensor<3x4xf64>, tensor<3x1xf64>) -> tensor<3x4xf64>
  %sum = ckpt.add %y, %z6 : tensor<3x4xf64>
  %loss = ckpt.reduce_sum %sum : tensor<3x4xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
