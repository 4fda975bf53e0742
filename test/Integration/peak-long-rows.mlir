// Long rows reduce in two stages, as the sums over many elements do: the
// maximum and the sum of exponentials of softmax, log_softmax and
// cross-entropy (not the label's logit: one sequence per row, as it reads
// the column index), the row sums of their gradients, and a whole reduce_max
// ([64, 2048]: 32 partials per row, each of 64 elements in order, then
// each row's partials in order; the whole maximum 1024 partials), and the
// sum over 65536 rows of a cross-entropy with 2 classes (1024 partials).
// One reduction's partials at a time are the op's scratch with its row
// statistics, so the measured peak is the simulated one to the byte, with
// each op as the peak too; the GPU loops, permuted and with every
// allocation poisoned, give the CPU's bits. long-rows-torch.test checks the
// steps' losses and gradients against PyTorch.
// RUN: rm -rf %t && mkdir -p %t
// RUN: ckpt-opt %s --ckpt-pipeline=strategy=none -o %t/step.mlir
// RUN: ckpt-run %t/step.mlir --function f32_step_train --seed 1 --check-peak=1e-9 --out %t/cpu | FileCheck %s
// RUN: ckpt-run %t/step.mlir --function f32_step_train --seed 1 --check-peak=1e-9 --out %t/gpu-loops \
// RUN:   --device=cpu-gpu-loops --permute-gpu-iterations --poison-allocations > /dev/null
// RUN: diff -r %t/cpu %t/gpu-loops
// RUN: ckpt-run %s --function softmax --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=SOFTMAX
// RUN: ckpt-run %s --function log_softmax_grad --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=LOG-SOFTMAX-GRAD
// RUN: ckpt-run %s --function cross_entropy --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=CROSS-ENTROPY
// RUN: ckpt-run %s --function cross_entropy_grad --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=CROSS-ENTROPY-GRAD
// RUN: ckpt-run %s --function max --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=MAX
// RUN: ckpt-run %s --function tall_step --seed 1 --check-peak=1e-9 | FileCheck %s --check-prefix=TALL
// Each op alone, as the peak: its result and row statistics, and one
// reduction's partials (8192 B per [64, 32]) where they are live with them.
//   softmax: y 524288 + max, sum 512 (the partials are freed before y):
// SOFTMAX: peak bytes: measured 1049088 (inputs 524288 + heap 524800), simulated 1049088 (+0.00%)
//   dx 524288 + sum 256:
// LOG-SOFTMAX-GRAD: peak bytes: measured 1573120 (inputs 1048576 + heap 524544), simulated 1573120 (+0.00%)
//   max, sum 512 + partials 8192 (before the label's logit and the loss):
// CROSS-ENTROPY: peak bytes: measured 533504 (inputs 524800 + heap 8704), simulated 533504 (+0.00%)
//   dx 524288 + max, sum 512:
// CROSS-ENTROPY-GRAD: peak bytes: measured 1049604 (inputs 524804 + heap 524800), simulated 1049604 (+0.00%)
//   the maximum 4 + 1024 partials 4096:
// MAX: peak bytes: measured 528388 (inputs 524288 + heap 4100), simulated 528388 (+0.00%)
//   max, sum, label's logit of 65536 rows 786432 + the loss 4 + 1024 partials 4096:
// TALL: peak bytes: measured 1839108 (inputs 1048576 + heap 790532), simulated 1839108 (+0.00%)
// CHECK: peak bytes: measured [[PEAK:[0-9]+]] ({{.*}}), simulated [[PEAK]] (+0.00%)
// CHECK: peak bytes without returned gradients: measured [[REST:[0-9]+]] ({{.*}}), simulated [[REST]] (+0.00%)
func.func @f32_step(%x: tensor<64x2048xf32> {ckpt.param}, %labels: tensor<64xi64>) -> tensor<f32> {
  %t = ckpt.tanh %x : tensor<64x2048xf32>
  %p = ckpt.softmax %t dim = 1 : tensor<64x2048xf32>
  %q = ckpt.mul %p, %t : tensor<64x2048xf32>
  %r = ckpt.log_softmax %q dim = 1 : tensor<64x2048xf32>
  %c = ckpt.cross_entropy %r, %labels : (tensor<64x2048xf32>, tensor<64xi64>) -> tensor<f32>
  %m = ckpt.reduce_max %t : tensor<64x2048xf32> -> tensor<f32>
  %l = ckpt.add %c, %m : tensor<f32>
  return %l : tensor<f32>
}
func.func @softmax(%x: tensor<64x2048xf32>) -> tensor<64x2048xf32> {
  %p = ckpt.softmax %x dim = 1 : tensor<64x2048xf32>
  return %p : tensor<64x2048xf32>
}
func.func @log_softmax_grad(%dy: tensor<64x2048xf32>, %y: tensor<64x2048xf32>) -> tensor<64x2048xf32> {
  %g = ckpt.log_softmax_grad %dy, %y dim = 1 : tensor<64x2048xf32>
  return %g : tensor<64x2048xf32>
}
func.func @cross_entropy(%x: tensor<64x2048xf32>, %labels: tensor<64xi64>) -> tensor<f32> {
  %c = ckpt.cross_entropy %x, %labels : (tensor<64x2048xf32>, tensor<64xi64>) -> tensor<f32>
  return %c : tensor<f32>
}
func.func @cross_entropy_grad(%g: tensor<f32>, %x: tensor<64x2048xf32>, %labels: tensor<64xi64>) -> tensor<64x2048xf32> {
  %d = ckpt.cross_entropy_grad %g, %x, %labels : (tensor<f32>, tensor<64x2048xf32>, tensor<64xi64>) -> tensor<64x2048xf32>
  return %d : tensor<64x2048xf32>
}
func.func @max(%x: tensor<64x2048xf32>) -> tensor<f32> {
  %m = ckpt.reduce_max %x : tensor<64x2048xf32> -> tensor<f32>
  return %m : tensor<f32>
}
func.func @tall_step(%x: tensor<65536x2xf32> {ckpt.param}, %labels: tensor<65536xi64>) -> tensor<f32> {
  %c = ckpt.cross_entropy %x, %labels : (tensor<65536x2xf32>, tensor<65536xi64>) -> tensor<f32>
  return %c : tensor<f32>
}
