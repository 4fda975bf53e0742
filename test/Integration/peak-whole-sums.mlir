// Sums over every element of a large tensor (76800 here) add in two
// stages: 600 partial sums ([2, 300]), each over its part in order, then
// the partials in order. The partials are the ops' scratch, so the measured
// peak is the simulated one to the byte; the GPU loops, permuted and with
// every allocation poisoned, give the same bits as the CPU; and the
// gradients match finite differences (in f64, same split).
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
func.func @f32_step(%x: tensor<256x300xf32> {ckpt.param}, %t: tensor<256x300xf32>) -> tensor<f32> {
  %y = ckpt.tanh %x : tensor<256x300xf32>
  %mse = ckpt.mse_loss %y, %t : (tensor<256x300xf32>, tensor<256x300xf32>) -> tensor<f32>
  %norm = ckpt.reduce_norm %x : tensor<256x300xf32> -> tensor<f32>
  %kept = ckpt.reduce_mean %y keepdim : tensor<256x300xf32> -> tensor<1x1xf32>
  %mean = ckpt.reshape %kept : tensor<1x1xf32> -> tensor<f32>
  %a = ckpt.add %mse, %norm : tensor<f32>
  %l = ckpt.add %a, %mean : tensor<f32>
  return %l : tensor<f32>
}
func.func @f64_step(%x: tensor<256x300xf64> {ckpt.param}, %t: tensor<256x300xf64>) -> tensor<f64> {
  %y = ckpt.tanh %x : tensor<256x300xf64>
  %mse = ckpt.mse_loss %y, %t : (tensor<256x300xf64>, tensor<256x300xf64>) -> tensor<f64>
  %s = ckpt.reduce_sum %y : tensor<256x300xf64> -> tensor<f64>
  %l = ckpt.add %mse, %s : tensor<f64>
  return %l : tensor<f64>
}
