// Sums over every element of a large tensor (153600 here) add in two stages:
// 600 partial sums ([2, 300]), each over its part in order, then the
// partials in order; sums over its 512 rows (a bias gradient, a column sum)
// in 8 partials of 64 rows per column, as do the layer_norm and rms_norm
// gradients' weight and bias gradients. The partials are the ops' scratch, so
// the measured peak is the simulated one to the byte; the GPU loops,
// permuted and with every allocation poisoned, give the same bits as the
// CPU; and the gradients match finite differences (in f64, same split).
// RUN: rm -rf %t && mkdir -p %t
// RUN: ckpt-opt %s --ckpt-pipeline=strategy=none -o %t/step.mlir
// RUN: ckpt-run %t/step.mlir --function f32_step_train --seed 1 --check-peak=1e-9 --out %t/cpu | FileCheck %s
// RUN: ckpt-run %t/step.mlir --function f32_step_train --seed 1 --check-peak=1e-9 --out %t/gpu-loops \
// RUN:   --device=cpu-gpu-loops --permute-gpu-iterations --poison-allocations > /dev/null
// RUN: diff -r %t/cpu %t/gpu-loops
// RUN: ckpt-opt %s --ckpt-autodiff | ckpt-run - --function f64_step_train --check-gradients=3 | FileCheck %s --check-prefix=GRADIENTS
// The forward alone, where the input dies after the first stage: the
// result is allocated before the partials, live with them as simulated.
// RUN: ckpt-opt %s --ckpt-autodiff | ckpt-run - --function f64_step --check-peak=1e-9 | FileCheck %s --check-prefix=FORWARD
// CHECK: peak bytes: measured [[PEAK:[0-9]+]] ({{.*}}), simulated [[PEAK]] (+0.00%)
// CHECK: peak bytes without returned gradients: measured [[REST:[0-9]+]] ({{.*}}), simulated [[REST]] (+0.00%)
// GRADIENTS: gradient check: passed
// FORWARD: peak bytes: measured [[PEAK:[0-9]+]] ({{.*}}), simulated [[PEAK]] (+0.00%)
func.func @f32_step(%x: tensor<512x300xf32> {ckpt.param}, %b: tensor<300xf32> {ckpt.param}, %w: tensor<300xf32> {ckpt.param},
                    %wb: tensor<300xf32> {ckpt.param}, %r: tensor<300xf32> {ckpt.param}, %t: tensor<512x300xf32>) -> tensor<f32> {
  %z = ckpt.add %x, %b : (tensor<512x300xf32>, tensor<300xf32>) -> tensor<512x300xf32>
  %y = ckpt.tanh %z : tensor<512x300xf32>
  %ln:3 = ckpt.layer_norm %y weight %w bias %wb normalized_shape = [300]
      : (tensor<512x300xf32>, tensor<300xf32>, tensor<300xf32>) -> (tensor<512x300xf32>, tensor<512x1xf32>, tensor<512x1xf32>)
  %rn:2 = ckpt.rms_norm %ln#0 weight %r normalized_shape = [300]
      : (tensor<512x300xf32>, tensor<300xf32>) -> (tensor<512x300xf32>, tensor<512x1xf32>)
  %nt = ckpt.mul %rn#0, %y : tensor<512x300xf32>
  %n = ckpt.reduce_mean %nt : tensor<512x300xf32> -> tensor<f32>
  %cols = ckpt.reduce_sum %y dims = [0] keepdim : tensor<512x300xf32> -> tensor<1x300xf32>
  %c = ckpt.reduce_norm %cols : tensor<1x300xf32> -> tensor<f32>
  %mse = ckpt.mse_loss %y, %t : (tensor<512x300xf32>, tensor<512x300xf32>) -> tensor<f32>
  %norm = ckpt.reduce_norm %x : tensor<512x300xf32> -> tensor<f32>
  %kept = ckpt.reduce_mean %y keepdim : tensor<512x300xf32> -> tensor<1x1xf32>
  %mean = ckpt.reshape %kept : tensor<1x1xf32> -> tensor<f32>
  %a = ckpt.add %mse, %norm : tensor<f32>
  %d = ckpt.add %a, %c : tensor<f32>
  %e = ckpt.add %d, %n : tensor<f32>
  %l = ckpt.add %e, %mean : tensor<f32>
  return %l : tensor<f32>
}
func.func @f64_step(%x: tensor<512x300xf64> {ckpt.param}, %b: tensor<300xf64> {ckpt.param}, %w: tensor<300xf64> {ckpt.param},
                    %wb: tensor<300xf64> {ckpt.param}, %r: tensor<300xf64> {ckpt.param}, %t: tensor<512x300xf64>) -> tensor<f64> {
  %z = ckpt.add %x, %b : (tensor<512x300xf64>, tensor<300xf64>) -> tensor<512x300xf64>
  %y = ckpt.tanh %z : tensor<512x300xf64>
  %ln:3 = ckpt.layer_norm %y weight %w bias %wb normalized_shape = [300]
      : (tensor<512x300xf64>, tensor<300xf64>, tensor<300xf64>) -> (tensor<512x300xf64>, tensor<512x1xf64>, tensor<512x1xf64>)
  %rn:2 = ckpt.rms_norm %ln#0 weight %r normalized_shape = [300]
      : (tensor<512x300xf64>, tensor<300xf64>) -> (tensor<512x300xf64>, tensor<512x1xf64>)
  %nt = ckpt.mul %rn#0, %y : tensor<512x300xf64>
  %n = ckpt.reduce_mean %nt : tensor<512x300xf64> -> tensor<f64>
  %cols = ckpt.reduce_sum %y dims = [0] keepdim : tensor<512x300xf64> -> tensor<1x300xf64>
  %c = ckpt.reduce_norm %cols : tensor<1x300xf64> -> tensor<f64>
  %mse = ckpt.mse_loss %y, %t : (tensor<512x300xf64>, tensor<512x300xf64>) -> tensor<f64>
  %s = ckpt.reduce_sum %y : tensor<512x300xf64> -> tensor<f64>
  %a = ckpt.add %mse, %s : tensor<f64>
  %e = ckpt.add %a, %n : tensor<f64>
  %l = ckpt.add %e, %c : tensor<f64>
  return %l : tensor<f64>
}
// The normalisation gradients alone, so each is the peak: dx's buffer
// first, then each weight or bias gradient with its partials, then the row
// sums; the largest of these scratches is live with every result.
// RUN: ckpt-run %s --function layer_norm_grad --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=FORWARD
// RUN: ckpt-run %s --function rms_norm_grad --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=FORWARD
func.func @layer_norm_grad(%dy: tensor<512x300xf32>, %x: tensor<512x300xf32>, %mean: tensor<512x1xf32>,
                           %rstd: tensor<512x1xf32>, %w: tensor<300xf32>)
    -> (tensor<512x300xf32>, tensor<300xf32>, tensor<300xf32>) {
  %dx, %dw, %db = ckpt.layer_norm_grad %dy, %x, %mean, %rstd weight %w normalized_shape = [300]
      : (tensor<512x300xf32>, tensor<512x300xf32>, tensor<512x1xf32>, tensor<512x1xf32>, tensor<300xf32>)
      -> (tensor<512x300xf32>, tensor<300xf32>, tensor<300xf32>)
  return %dx, %dw, %db : tensor<512x300xf32>, tensor<300xf32>, tensor<300xf32>
}
func.func @rms_norm_grad(%dy: tensor<512x300xf32>, %x: tensor<512x300xf32>, %rstd: tensor<512x1xf32>,
                         %w: tensor<300xf32>) -> (tensor<512x300xf32>, tensor<300xf32>) {
  %dx, %dw = ckpt.rms_norm_grad %dy, %x, %rstd weight %w normalized_shape = [300]
      : (tensor<512x300xf32>, tensor<512x300xf32>, tensor<512x1xf32>, tensor<300xf32>)
      -> (tensor<512x300xf32>, tensor<300xf32>)
  return %dx, %dw : tensor<512x300xf32>, tensor<300xf32>
}
