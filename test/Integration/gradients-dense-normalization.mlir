// Finite differences in f64 against the gradients of linear, matmul
// (broadcast batch; operands read transposed, one or both), layer_norm,
// rms_norm, softmax and log_softmax.
// RUN: %check_gradients | FileCheck %s
// CHECK: gradient check: passed

func.func @dense(%x: tensor<2x3x4xf64> {ckpt.param}, %w: tensor<5x4xf64> {ckpt.param},
                 %b: tensor<5xf64> {ckpt.param}, %k: tensor<5x3xf64> {ckpt.param},
                 %g: tensor<3xf64> {ckpt.param}, %be: tensor<3xf64> {ckpt.param},
                 %r: tensor<3xf64> {ckpt.param}, %c: tensor<4x5xf64> {ckpt.param},
                 %j: tensor<3x6xf64> {ckpt.param}, %v: tensor<1x3x6xf64> {ckpt.param}) -> tensor<f64> {
  %h = ckpt.linear %x, %w, %b : (tensor<2x3x4xf64>, tensor<5x4xf64>, tensor<5xf64>) -> tensor<2x3x5xf64>
  %m = ckpt.matmul %h, %k : (tensor<2x3x5xf64>, tensor<5x3xf64>) -> tensor<2x3x3xf64>
  %n:3 = ckpt.layer_norm %m weight %g bias %be normalized_shape = [3]
      : (tensor<2x3x3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<2x3x3xf64>, tensor<2x3x1xf64>, tensor<2x3x1xf64>)
  %q:2 = ckpt.rms_norm %n#0 weight %r normalized_shape = [3]
      : (tensor<2x3x3xf64>, tensor<3xf64>) -> (tensor<2x3x3xf64>, tensor<2x3x1xf64>)
  %all:3 = ckpt.layer_norm %q#0 normalized_shape = [3, 3]
      : (tensor<2x3x3xf64>) -> (tensor<2x3x3xf64>, tensor<2x1x1xf64>, tensor<2x1x1xf64>)
  %s = ckpt.softmax %all#0 dim = 2 : tensor<2x3x3xf64>
  %t = ckpt.log_softmax %s dim = 1 : tensor<2x3x3xf64>
  %u = ckpt.mul %t, %m : tensor<2x3x3xf64>
  %mean = ckpt.reduce_mean %u : tensor<2x3x3xf64> -> tensor<f64>
  %p = ckpt.matmul %h, %c transpose_rhs : (tensor<2x3x5xf64>, tensor<4x5xf64>) -> tensor<2x3x4xf64>
  %o = ckpt.matmul %j, %p transpose_lhs : (tensor<3x6xf64>, tensor<2x3x4xf64>) -> tensor<2x6x4xf64>
  %z = ckpt.matmul %o, %v transpose_lhs transpose_rhs : (tensor<2x6x4xf64>, tensor<1x3x6xf64>) -> tensor<2x4x3xf64>
  %zz = ckpt.mul %z, %z : tensor<2x4x3xf64>
  %square = ckpt.reduce_mean %zz : tensor<2x4x3xf64> -> tensor<f64>
  %loss = ckpt.add %mean, %square : tensor<f64>
  return %loss : tensor<f64>
}
