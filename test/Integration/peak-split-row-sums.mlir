// The row sums of layer_norm and rms_norm over long rows (1024 elements
// here, in rows of 1024 and of 4 x 256) add in two stages, as softmax's do:
// 16 partials per row, partial t summing the elements t, t + 16, ..., so
// that neighbouring GPU threads read neighbouring elements; then each row's
// partials in order. The forward ops' partials are freed before their output
// is allocated; the gradient ops count them as scratch. So the measured
// peak is the simulated one to the byte; the GPU loops, permuted and with
// every allocation poisoned, give the same bits as the CPU; and the
// gradients match finite differences (in f64, same split).
// RUN: rm -rf %t && mkdir -p %t
// RUN: ckpt-opt %s --ckpt-to-linalg | FileCheck %s --check-prefix=LOWERED
// RUN: ckpt-opt %s --ckpt-pipeline=strategy=none -o %t/step.mlir
// RUN: ckpt-run %t/step.mlir --function f32_step_train --seed 1 --check-peak=1e-9 --out %t/cpu | FileCheck %s
// RUN: ckpt-run %t/step.mlir --function f32_step_train --seed 1 --check-peak=1e-9 --out %t/gpu-loops \
// RUN:   --device=cpu-gpu-loops --permute-gpu-iterations --poison-allocations > /dev/null
// RUN: diff -r %t/cpu %t/gpu-loops
// RUN: ckpt-opt %s --ckpt-autodiff | ckpt-run - --function f64_step_train --check-gradients=3 | FileCheck %s --check-prefix=GRADIENTS
// The forward alone: the partials never raise its peak.
// RUN: ckpt-opt %s --ckpt-autodiff | ckpt-run - --function f32_step --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=ALONE
// CHECK: peak bytes: measured [[PEAK:[0-9]+]] ({{.*}}), simulated [[PEAK]] (+0.00%)
// CHECK: peak bytes without returned gradients: measured [[REST:[0-9]+]] ({{.*}}), simulated [[REST]] (+0.00%)
// GRADIENTS: gradient check: passed
// ALONE: peak bytes: measured [[PEAK:[0-9]+]] ({{.*}}), simulated [[PEAK]] (+0.00%)

// Each row sum of the f32 step: 16 partials per row, over a view of the
// row as [64, 16] ([4, 16, 16] for rms_norm's [4, 256]), then each row's
// partials: layer_norm's sum and sum of centred squares, rms_norm's sum of
// squares.
// LOWERED-LABEL: func.func @f32_step(
// LOWERED: ins({{.*}} : tensor<64x64x16xf32>) outs({{.*}} : tensor<64x16xf32>)
// LOWERED-NEXT: ^bb0
// LOWERED: ins({{.*}} : tensor<64x16xf32>) outs({{.*}} : tensor<64xf32>)
// LOWERED: ins({{.*}} : tensor<64x64x16xf32>, tensor<64x1x1xf32>) outs({{.*}} : tensor<64x16xf32>)
// LOWERED: ins({{.*}} : tensor<64x16xf32>) outs({{.*}} : tensor<64xf32>)
// LOWERED: ins({{.*}} : tensor<64x4x16x16xf32>) outs({{.*}} : tensor<64x16xf32>)
// LOWERED: ins({{.*}} : tensor<64x16xf32>) outs({{.*}} : tensor<64xf32>)
// LOWERED-LABEL: func.func @f64_step(
func.func @f32_step(%x: tensor<64x1024xf32> {ckpt.param}, %w: tensor<1024xf32> {ckpt.param},
                    %b: tensor<1024xf32> {ckpt.param}, %r: tensor<4x256xf32> {ckpt.param}) -> tensor<f32> {
  %y = ckpt.tanh %x : tensor<64x1024xf32>
  %ln:3 = ckpt.layer_norm %y weight %w bias %b normalized_shape = [1024]
      : (tensor<64x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> (tensor<64x1024xf32>, tensor<64x1xf32>, tensor<64x1xf32>)
  %v = ckpt.reshape %ln#0 : tensor<64x1024xf32> -> tensor<64x4x256xf32>
  %rn:2 = ckpt.rms_norm %v weight %r normalized_shape = [4, 256]
      : (tensor<64x4x256xf32>, tensor<4x256xf32>) -> (tensor<64x4x256xf32>, tensor<64x1x1xf32>)
  %t = ckpt.tanh %rn#0 : tensor<64x4x256xf32>
  %l = ckpt.reduce_mean %t : tensor<64x4x256xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @f64_step(%x: tensor<64x1024xf64> {ckpt.param}, %w: tensor<1024xf64> {ckpt.param},
                    %b: tensor<1024xf64> {ckpt.param}, %r: tensor<4x256xf64> {ckpt.param}) -> tensor<f64> {
  %y = ckpt.tanh %x : tensor<64x1024xf64>
  %ln:3 = ckpt.layer_norm %y weight %w bias %b normalized_shape = [1024]
      : (tensor<64x1024xf64>, tensor<1024xf64>, tensor<1024xf64>) -> (tensor<64x1024xf64>, tensor<64x1xf64>, tensor<64x1xf64>)
  %v = ckpt.reshape %ln#0 : tensor<64x1024xf64> -> tensor<64x4x256xf64>
  %rn:2 = ckpt.rms_norm %v weight %r normalized_shape = [4, 256]
      : (tensor<64x4x256xf64>, tensor<4x256xf64>) -> (tensor<64x4x256xf64>, tensor<64x1x1xf64>)
  %t = ckpt.tanh %rn#0 : tensor<64x4x256xf64>
  %l = ckpt.reduce_mean %t : tensor<64x4x256xf64> -> tensor<f64>
  return %l : tensor<f64>
}
// The gradients alone, so each is the peak: the second row sum's partials
// are live with the first row sum, the second's accumulator and every
// result (the column sums over 64 rows are not split).
// RUN: ckpt-run %s --function layer_norm_grad --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=ALONE
// RUN: ckpt-run %s --function rms_norm_grad --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=ALONE
func.func @layer_norm_grad(%dy: tensor<64x1024xf32>, %x: tensor<64x1024xf32>, %mean: tensor<64x1xf32>,
                           %rstd: tensor<64x1xf32>, %w: tensor<1024xf32>)
    -> (tensor<64x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %dx, %dw, %db = ckpt.layer_norm_grad %dy, %x, %mean, %rstd weight %w normalized_shape = [1024]
      : (tensor<64x1024xf32>, tensor<64x1024xf32>, tensor<64x1xf32>, tensor<64x1xf32>, tensor<1024xf32>)
      -> (tensor<64x1024xf32>, tensor<1024xf32>, tensor<1024xf32>)
  return %dx, %dw, %db : tensor<64x1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}
func.func @rms_norm_grad(%dy: tensor<64x4x256xf32>, %x: tensor<64x4x256xf32>, %rstd: tensor<64x1x1xf32>,
                         %w: tensor<4x256xf32>) -> (tensor<64x4x256xf32>, tensor<4x256xf32>) {
  %dx, %dw = ckpt.rms_norm_grad %dy, %x, %rstd weight %w normalized_shape = [4, 256]
      : (tensor<64x4x256xf32>, tensor<64x4x256xf32>, tensor<64x1x1xf32>, tensor<4x256xf32>)
      -> (tensor<64x4x256xf32>, tensor<4x256xf32>)
  return %dx, %dw : tensor<64x4x256xf32>, tensor<4x256xf32>
}
