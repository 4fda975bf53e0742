// The random state a step with dropout takes and returns is a tensor<2xi64>
// at run time (seed, base counter): 16 bytes the memory simulator counts
// like any buffer, so the measured peak is the simulated one to the byte
// (they differed by those 16 bytes). Found by the property tests
// (test/Property).
// RUN: ckpt-opt %s --ckpt-pipeline=strategy=none | ckpt-run - --seed 1 --check-peak=1e-9 | FileCheck %s
// The inputs: x and w (96 B each) and the random state (16 B).
// CHECK: peak bytes: measured [[PEAK:[0-9]+]] (inputs 208 + heap {{[0-9]+}}), simulated [[PEAK]] (+0.00%)
// CHECK: peak bytes without returned gradients: measured [[REST:[0-9]+]] ({{.*}}), simulated [[REST]] (+0.00%)
func.func @f(%x: tensor<4x6xf32>, %w: tensor<6x4xf32> {ckpt.param}) -> tensor<f32> {
  %d = ckpt.dropout %x p = 0.5 : tensor<4x6xf32>
  %h = ckpt.matmul %d, %w : (tensor<4x6xf32>, tensor<6x4xf32>) -> tensor<4x4xf32>
  %l = ckpt.reduce_mean %h : tensor<4x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
