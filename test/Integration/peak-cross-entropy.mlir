// Cross-entropy over few classes: its lowering keeps three statistics per
// row (maximum, sum of exponentials, the label's logit) and its gradient
// two, as many bytes here as a fifth of the logits. The op declares them
// as scratch, so the measured peak is the simulated one to the byte. With
// an ignored label (here 0, about a fifth of the random labels), both also
// count the rows that are not ignored; without one, they do not.
// RUN: ckpt-opt %s --ckpt-pipeline=strategy=none | ckpt-run - --seed 1 --check-peak=1e-9 | FileCheck %s
// RUN: sed 's/ ignore_index = 0//' %s | ckpt-opt --ckpt-pipeline=strategy=none | ckpt-run - --seed 1 --check-peak=1e-9 | FileCheck %s
// CHECK: peak bytes: measured [[PEAK:[0-9]+]] ({{.*}}), simulated [[PEAK]] (+0.00%)
// CHECK: peak bytes without returned gradients: measured [[REST:[0-9]+]] ({{.*}}), simulated [[REST]] (+0.00%)
func.func @f(%x: tensor<2x5x32x32xf32> {ckpt.param}, %labels: tensor<2x32x32xi64>) -> tensor<f32> {
  %p = ckpt.transpose %x permutation = [0, 2, 3, 1] : tensor<2x5x32x32xf32> -> tensor<2x32x32x5xf32>
  %r = ckpt.reshape %p : tensor<2x32x32x5xf32> -> tensor<2048x5xf32>
  %l1 = ckpt.reshape %labels : tensor<2x32x32xi64> -> tensor<2048xi64>
  %l = ckpt.cross_entropy %r, %l1 ignore_index = 0 : (tensor<2048x5xf32>, tensor<2048xi64>) -> tensor<f32>
  return %l : tensor<f32>
}
