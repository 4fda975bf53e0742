// Attention's dropout drops exactly what ckpt.dropout drops from the same
// state and offset on the [N, H, L, S] weights: attention with p = 0.375
// equals matmul, softmax, dropout and matmul with repeated key heads to the
// bit (the largest difference is 0), and a dropout at another offset does
// not (so the mask matters).
// RUN: ckpt-run %s --function same --seed 5 | FileCheck %s --check-prefix=SAME
// RUN: ckpt-run %s --function other --seed 5 | FileCheck %s --check-prefix=OTHER
// SAME: result 0: sum 0, l2 0
// SAME: result 1: sum {{-?[1-9]}}
// OTHER: result 0: sum {{[1-9]}}

func.func @same(%q: tensor<2x4x5x3xf64>, %k: tensor<2x2x6x3xf64>, %v: tensor<2x2x6x2xf64>, %rng: !ckpt.rng) -> (tensor<f64>, tensor<f64>) {
  %a:2 = ckpt.scaled_dot_product_attention %q, %k, %v rng %rng offset = 7 scale = 0.5 p = 0.375
      : (tensor<2x4x5x3xf64>, tensor<2x2x6x3xf64>, tensor<2x2x6x2xf64>, !ckpt.rng) -> (tensor<2x4x5x2xf64>, tensor<2x4x5xf64>)
  %k5 = ckpt.reshape %k : tensor<2x2x6x3xf64> -> tensor<2x2x1x6x3xf64>
  %kb = ckpt.broadcast_to %k5 : tensor<2x2x1x6x3xf64> -> tensor<2x2x2x6x3xf64>
  %kr = ckpt.reshape %kb : tensor<2x2x2x6x3xf64> -> tensor<2x4x6x3xf64>
  %kt = ckpt.transpose %kr permutation = [0, 1, 3, 2] : tensor<2x4x6x3xf64> -> tensor<2x4x3x6xf64>
  %v5 = ckpt.reshape %v : tensor<2x2x6x2xf64> -> tensor<2x2x1x6x2xf64>
  %vb = ckpt.broadcast_to %v5 : tensor<2x2x1x6x2xf64> -> tensor<2x2x2x6x2xf64>
  %vr = ckpt.reshape %vb : tensor<2x2x2x6x2xf64> -> tensor<2x4x6x2xf64>
  %s = ckpt.matmul %q, %kt : (tensor<2x4x5x3xf64>, tensor<2x4x3x6xf64>) -> tensor<2x4x5x6xf64>
  %half = arith.constant dense<0.5> : tensor<f64>
  %ss = ckpt.mul %s, %half : (tensor<2x4x5x6xf64>, tensor<f64>) -> tensor<2x4x5x6xf64>
  %p = ckpt.softmax %ss dim = 3 : tensor<2x4x5x6xf64>
  %pd = ckpt.dropout %p rng %rng offset = 7 p = 0.375 : tensor<2x4x5x6xf64>
  %o = ckpt.matmul %pd, %vr : (tensor<2x4x5x6xf64>, tensor<2x4x6x2xf64>) -> tensor<2x4x5x2xf64>
  %d = ckpt.sub %a#0, %o : tensor<2x4x5x2xf64>
  %ad = ckpt.abs %d : tensor<2x4x5x2xf64>
  %m = ckpt.reduce_max %ad : tensor<2x4x5x2xf64> -> tensor<f64>
  %total = ckpt.reduce_sum %a#0 : tensor<2x4x5x2xf64> -> tensor<f64>
  return %m, %total : tensor<f64>, tensor<f64>
}

func.func @other(%q: tensor<2x4x5x3xf64>, %k: tensor<2x2x6x3xf64>, %v: tensor<2x2x6x2xf64>, %rng: !ckpt.rng) -> (tensor<f64>, tensor<f64>) {
  %a:2 = ckpt.scaled_dot_product_attention %q, %k, %v rng %rng offset = 7 scale = 0.5 p = 0.375
      : (tensor<2x4x5x3xf64>, tensor<2x2x6x3xf64>, tensor<2x2x6x2xf64>, !ckpt.rng) -> (tensor<2x4x5x2xf64>, tensor<2x4x5xf64>)
  %k5 = ckpt.reshape %k : tensor<2x2x6x3xf64> -> tensor<2x2x1x6x3xf64>
  %kb = ckpt.broadcast_to %k5 : tensor<2x2x1x6x3xf64> -> tensor<2x2x2x6x3xf64>
  %kr = ckpt.reshape %kb : tensor<2x2x2x6x3xf64> -> tensor<2x4x6x3xf64>
  %kt = ckpt.transpose %kr permutation = [0, 1, 3, 2] : tensor<2x4x6x3xf64> -> tensor<2x4x3x6xf64>
  %v5 = ckpt.reshape %v : tensor<2x2x6x2xf64> -> tensor<2x2x1x6x2xf64>
  %vb = ckpt.broadcast_to %v5 : tensor<2x2x1x6x2xf64> -> tensor<2x2x2x6x2xf64>
  %vr = ckpt.reshape %vb : tensor<2x2x2x6x2xf64> -> tensor<2x4x6x2xf64>
  %s = ckpt.matmul %q, %kt : (tensor<2x4x5x3xf64>, tensor<2x4x3x6xf64>) -> tensor<2x4x5x6xf64>
  %half = arith.constant dense<0.5> : tensor<f64>
  %ss = ckpt.mul %s, %half : (tensor<2x4x5x6xf64>, tensor<f64>) -> tensor<2x4x5x6xf64>
  %p = ckpt.softmax %ss dim = 3 : tensor<2x4x5x6xf64>
  %pd = ckpt.dropout %p rng %rng offset = 8 p = 0.375 : tensor<2x4x5x6xf64>
  %o = ckpt.matmul %pd, %vr : (tensor<2x4x5x6xf64>, tensor<2x4x6x2xf64>) -> tensor<2x4x5x2xf64>
  %d = ckpt.sub %a#0, %o : tensor<2x4x5x2xf64>
  %ad = ckpt.abs %d : tensor<2x4x5x2xf64>
  %m = ckpt.reduce_max %ad : tensor<2x4x5x2xf64> -> tensor<f64>
  %total = ckpt.reduce_sum %a#0 : tensor<2x4x5x2xf64> -> tensor<f64>
  return %m, %total : tensor<f64>, tensor<f64>
}
