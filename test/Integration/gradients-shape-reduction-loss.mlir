// Finite differences in f64 against the gradients of the shape ops,
// reductions (the Euclidean norm too), cross-entropy (also with an ignored label, on rows 1 and 3
// of a constant labelling) and MSE.
// RUN: %check_gradients | FileCheck %s
// CHECK: gradient check: passed

func.func @shapes(%x: tensor<2x6xf64> {ckpt.param}, %y: tensor<3xf64> {ckpt.param},
                  %labels: tensor<4xi64>, %target: tensor<4x5xf64>) -> tensor<f64> {
  %r = ckpt.reshape %x : tensor<2x6xf64> -> tensor<3x4xf64>
  %t = ckpt.transpose %r permutation = [1, 0] : tensor<3x4xf64> -> tensor<4x3xf64>
  %s = ckpt.slice %t dim = 1 start = 0 end = 3 step = 2 : tensor<4x3xf64> -> tensor<4x2xf64>
  %b = ckpt.broadcast_to %y : tensor<3xf64> -> tensor<4x3xf64>
  %c = ckpt.concat %s, %b dim = 1 : (tensor<4x2xf64>, tensor<4x3xf64>) -> tensor<4x5xf64>
  %mx = ckpt.reduce_max %c dims = [1] keepdim : tensor<4x5xf64> -> tensor<4x1xf64>
  %sh = ckpt.sub %c, %mx : (tensor<4x5xf64>, tensor<4x1xf64>) -> tensor<4x5xf64>
  %mean = ckpt.reduce_mean %sh dims = [0] : tensor<4x5xf64> -> tensor<5xf64>
  %norm = ckpt.reduce_norm %sh dims = [0] keepdim : tensor<4x5xf64> -> tensor<1x5xf64>
  %normed = ckpt.div %c, %norm : (tensor<4x5xf64>, tensor<1x5xf64>) -> tensor<4x5xf64>
  %nsum = ckpt.reduce_sum %normed dims = [0] : tensor<4x5xf64> -> tensor<5xf64>
  %mn = ckpt.add %mean, %nsum : tensor<5xf64>
  %sum = ckpt.reduce_sum %mn : tensor<5xf64> -> tensor<f64>
  %ce = ckpt.cross_entropy %c, %labels : (tensor<4x5xf64>, tensor<4xi64>) -> tensor<f64>
  %partial = arith.constant dense<[2, -100, 4, -100]> : tensor<4xi64>
  %ignoring = ckpt.cross_entropy %sh, %partial ignore_index = -100 : (tensor<4x5xf64>, tensor<4xi64>) -> tensor<f64>
  %mse = ckpt.mse_loss %sh, %target : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<f64>
  %ces = ckpt.add %ce, %ignoring : tensor<f64>
  %l1 = ckpt.add %ces, %mse : tensor<f64>
  %loss = ckpt.add %l1, %sum : tensor<f64>
  return %loss : tensor<f64>
}
