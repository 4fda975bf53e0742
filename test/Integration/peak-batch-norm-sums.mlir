// Batch norm's per-channel sums over many elements (65536 here, 4096 per
// channel) add in two stages, as the reductions' whole and column sums do:
// 64 partial sums per channel ([16, 2, 32]: two halves of the rows, one
// per column), each over its part in order, then each channel's partials in
// order, all in the sums' type (f64 for f32 inputs). The partials of one
// sum are the op's scratch with the sums, so the measured peak is the
// simulated one to the byte, with each op as the peak too; the GPU loops,
// permuted and with every allocation poisoned, give the CPU's bits; and the
// gradients match finite differences (f64, same split).
// RUN: rm -rf %t && mkdir -p %t
// RUN: ckpt-opt %s --ckpt-pipeline=strategy=none -o %t/step.mlir
// RUN: ckpt-run %t/step.mlir --function f32_step_train --seed 1 --check-peak=1e-9 --out %t/cpu | FileCheck %s
// RUN: ckpt-run %t/step.mlir --function f32_step_train --seed 1 --check-peak=1e-9 --out %t/gpu-loops \
// RUN:   --device=cpu-gpu-loops --permute-gpu-iterations --poison-allocations > /dev/null
// RUN: diff -r %t/cpu %t/gpu-loops
// RUN: ckpt-opt %s --ckpt-autodiff | ckpt-run - --function f64_step_train --check-gradients=3 | FileCheck %s --check-prefix=GRADIENTS
// Each op alone, as the peak: its results, the f64 sums (16 channels,
// 128 B each; f64's gradient sums into its results) and one sum's 1024
// partials (8192 B) on the heap.
// RUN: ckpt-run %s --function forward --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=FORWARD
// RUN: ckpt-run %s --function running_stats --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=STATS
// RUN: ckpt-run %s --function f32_grad --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=F32-GRAD
// RUN: ckpt-run %s --function f64_grad --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=F64-GRAD
//   y 262144 + mean, rstd 128 + sums 256 + partials 8192:
// FORWARD: peak bytes: measured 532864 (inputs 262144 + heap 270720), simulated 532864 (+0.00%)
//   the new statistics 128 + one sum 128 + partials 8192:
// STATS: peak bytes: measured 270784 (inputs 262336 + heap 8448), simulated 270784 (+0.00%)
//   dx 262144 + dw, db 128 + sums 256 + partials 8192:
// F32-GRAD: peak bytes: measured 795200 (inputs 524480 + heap 270720), simulated 795200 (+0.00%)
//   dx 524288 + dw, db (the sums) 256 + partials 8192:
// F64-GRAD: peak bytes: measured 1581568 (inputs 1048832 + heap 532736), simulated 1581568 (+0.00%)
// CHECK: peak bytes: measured [[PEAK:[0-9]+]] ({{.*}}), simulated [[PEAK]] (+0.00%)
// CHECK: peak bytes without returned gradients: measured [[REST:[0-9]+]] ({{.*}}), simulated [[REST]] (+0.00%)
// GRADIENTS: gradient check: passed
func.func @f32_step(%x: tensor<4x16x32x32xf32> {ckpt.param}, %w: tensor<16xf32> {ckpt.param},
                    %b: tensor<16xf32> {ckpt.param}) -> tensor<f32> {
  %t = ckpt.tanh %x : tensor<4x16x32x32xf32>
  %n:3 = ckpt.batch_norm %t weight %w bias %b
      : (tensor<4x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<4x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>)
  %s = ckpt.mul %n#0, %t : tensor<4x16x32x32xf32>
  %l = ckpt.reduce_mean %s : tensor<4x16x32x32xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @f64_step(%x: tensor<4x16x32x32xf64> {ckpt.param}, %w: tensor<16xf64> {ckpt.param},
                    %b: tensor<16xf64> {ckpt.param}) -> tensor<f64> {
  %t = ckpt.tanh %x : tensor<4x16x32x32xf64>
  %n:3 = ckpt.batch_norm %t weight %w bias %b
      : (tensor<4x16x32x32xf64>, tensor<16xf64>, tensor<16xf64>) -> (tensor<4x16x32x32xf64>, tensor<16xf64>, tensor<16xf64>)
  %s = ckpt.mul %n#0, %t : tensor<4x16x32x32xf64>
  %l = ckpt.reduce_mean %s : tensor<4x16x32x32xf64> -> tensor<f64>
  return %l : tensor<f64>
}
func.func @forward(%x: tensor<4x16x32x32xf32>)
    -> (tensor<4x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>) {
  %n:3 = ckpt.batch_norm %x : (tensor<4x16x32x32xf32>) -> (tensor<4x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>)
  return %n#0, %n#1, %n#2 : tensor<4x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>
}
func.func @running_stats(%x: tensor<4x16x32x32xf32>, %mean: tensor<16xf32>, %rm: tensor<16xf32>,
                         %rv: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %r:2 = ckpt.batch_norm_update_stats %x, %mean running_mean %rm running_var %rv
      : (tensor<4x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>)
  return %r#0, %r#1 : tensor<16xf32>, tensor<16xf32>
}
func.func @f32_grad(%dy: tensor<4x16x32x32xf32>, %x: tensor<4x16x32x32xf32>, %mean: tensor<16xf32>,
                    %rstd: tensor<16xf32>, %w: tensor<16xf32>)
    -> (tensor<4x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>) {
  %g:3 = ckpt.batch_norm_grad %dy, %x, %mean, %rstd weight %w
      : (tensor<4x16x32x32xf32>, tensor<4x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
      -> (tensor<4x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>)
  return %g#0, %g#1, %g#2 : tensor<4x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>
}
func.func @f64_grad(%dy: tensor<4x16x32x32xf64>, %x: tensor<4x16x32x32xf64>, %mean: tensor<16xf64>,
                    %rstd: tensor<16xf64>) -> (tensor<4x16x32x32xf64>, tensor<16xf64>, tensor<16xf64>) {
  %g:3 = ckpt.batch_norm_grad %dy, %x, %mean, %rstd
      : (tensor<4x16x32x32xf64>, tensor<4x16x32x32xf64>, tensor<16xf64>, tensor<16xf64>)
      -> (tensor<4x16x32x32xf64>, tensor<16xf64>, tensor<16xf64>)
  return %g#0, %g#1, %g#2 : tensor<4x16x32x32xf64>, tensor<16xf64>, tensor<16xf64>
}
