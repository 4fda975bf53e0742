// Softmax over short rows: the row maximum and sum of exponentials of the
// forward and the row sum of the gradient are scratch the ops declare, so
// the measured peak is the simulated one to the byte. log_softmax and
// layer_norm (whose mean and rstd are made in place of their sums) follow;
// the layer norm has a bias, whose gradient the lowering would otherwise
// not compute at all while the simulator counts it.
// RUN: ckpt-opt %s --ckpt-pipeline=strategy=none | ckpt-run - --seed 1 --check-peak=1e-9 | FileCheck %s
// CHECK: peak bytes: measured [[PEAK:[0-9]+]] ({{.*}}), simulated [[PEAK]] (+0.00%)
// CHECK: peak bytes without returned gradients: measured [[REST:[0-9]+]] ({{.*}}), simulated [[REST]] (+0.00%)
func.func @f(%x: tensor<512x4xf32> {ckpt.param}, %w: tensor<4xf32> {ckpt.param}, %b: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %s = ckpt.softmax %x dim = 1 : tensor<512x4xf32>
  %t = ckpt.log_softmax %s dim = 1 : tensor<512x4xf32>
  %n:3 = ckpt.layer_norm %t weight %w bias %b normalized_shape = [4] : (tensor<512x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<512x4xf32>, tensor<512x1xf32>, tensor<512x1xf32>)
  %l = ckpt.reduce_mean %n#0 : tensor<512x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
