// A one-level U-Net whose skip connection crosses the recomputed middle.
// The gradient of the concat is sliced into the two branches' gradients;
// the skip branch's slice is read only after the backward of the middle,
// recompute included. Were a slice a view, it would keep the whole concat
// gradient alive until then (6% over the simulated peak here); a slice is
// a copy of its own, as the simulator counts it.
// RUN: ckpt-opt %s --ckpt-pipeline=strategy=sqrt | ckpt-run - --seed 1 --check-peak=1e-9 | FileCheck %s
// CHECK: peak bytes: measured [[PEAK:[0-9]+]] ({{.*}}), simulated [[PEAK]] (+0.00%)
// CHECK: peak bytes without returned gradients: measured [[REST:[0-9]+]] ({{.*}}), simulated [[REST]] (+0.00%)
func.func @unet(%image: tensor<2x3x16x16xf32>, %target: tensor<2x3x16x16xf32>,
    %w0: tensor<8x3x3x3xf32> {ckpt.param}, %w1: tensor<16x8x3x3xf32> {ckpt.param},
    %w2: tensor<16x16x3x3xf32> {ckpt.param}, %w3: tensor<3x24x3x3xf32> {ckpt.param}) -> tensor<f32> {
  %c0 = ckpt.conv2d %image, %w0 padding = [1, 1] : (tensor<2x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<2x8x16x16xf32>
  %r0 = ckpt.relu %c0 : tensor<2x8x16x16xf32>
  %p:2 = ckpt.max_pool2d %r0 kernel = [2, 2] : (tensor<2x8x16x16xf32>) -> (tensor<2x8x8x8xf32>, tensor<2x8x8x8xi64>)
  %c1 = ckpt.conv2d %p#0, %w1 padding = [1, 1] : (tensor<2x8x8x8xf32>, tensor<16x8x3x3xf32>) -> tensor<2x16x8x8xf32>
  %r1 = ckpt.relu %c1 : tensor<2x16x8x8xf32>
  %c2 = ckpt.conv2d %r1, %w2 padding = [1, 1] : (tensor<2x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x8x8xf32>
  %r2 = ckpt.relu %c2 : tensor<2x16x8x8xf32>
  %u = ckpt.upsample_nearest2d %r2 scale = [2, 2] : tensor<2x16x8x8xf32> -> tensor<2x16x16x16xf32>
  %cat = ckpt.concat %u, %r0 dim = 1 : (tensor<2x16x16x16xf32>, tensor<2x8x16x16xf32>) -> tensor<2x24x16x16xf32>
  %head = ckpt.conv2d %cat, %w3 padding = [1, 1] : (tensor<2x24x16x16xf32>, tensor<3x24x3x3xf32>) -> tensor<2x3x16x16xf32>
  %loss = ckpt.mse_loss %head, %target : (tensor<2x3x16x16xf32>, tensor<2x3x16x16xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
