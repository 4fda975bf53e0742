// Batch norm's lowerings allocate every result before their scratch (f32's
// f64 channel sums), so that all are live at once, as the simulator counts
// them. Here the peak without the returned
// gradients is at the gradient, whose f64 sums live with the input's
// gradient, so it is measured as simulated to the byte (before, the sums
// were rounded one at a time and that peak was measured 256 B lower), with
// and without affine parameters, in f32 and f64.
// RUN: ckpt-opt %s --ckpt-pipeline=strategy=none | ckpt-run - --seed 1 --check-peak=1e-9 | FileCheck %s
// RUN: sed 's/ weight %w bias %b//; /^ *: (/s/, tensor<16xf32>, tensor<16xf32>)/)/' %s \
// RUN:   | ckpt-opt --ckpt-pipeline=strategy=none | ckpt-run - --seed 1 --check-peak=1e-9 | FileCheck %s
// RUN: sed 's/f32/f64/g' %s | ckpt-opt --ckpt-pipeline=strategy=none | ckpt-run - --seed 1 --check-peak=1e-9 | FileCheck %s
// CHECK: peak bytes: measured [[PEAK:[0-9]+]] ({{.*}}), simulated [[PEAK]] (+0.00%)
// CHECK: peak bytes without returned gradients: measured [[REST:[0-9]+]] ({{.*}}), simulated [[REST]] (+0.00%)
func.func @f(%x: tensor<2x8x4x4xf32>, %labels: tensor<2xi64>, %k: tensor<16x8x3x3xf32> {ckpt.param},
             %w: tensor<16xf32> {ckpt.param}, %b: tensor<16xf32> {ckpt.param},
             %rm: tensor<16xf32>, %rv: tensor<16xf32>) -> (tensor<f32>, tensor<16xf32>, tensor<16xf32>) {
  %c = ckpt.conv2d %x, %k padding = [1, 1] : (tensor<2x8x4x4xf32>, tensor<16x8x3x3xf32>) -> tensor<2x16x4x4xf32>
  %n:3 = ckpt.batch_norm %c weight %w bias %b
      : (tensor<2x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<2x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>)
  %n_stats:2 = ckpt.batch_norm_update_stats %c, %n#1 running_mean %rm running_var %rv :
      (tensor<2x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>)
  %m = ckpt.reduce_mean %n#0 dims = [2, 3] : tensor<2x16x4x4xf32> -> tensor<2x16xf32>
  %loss = ckpt.cross_entropy %m, %labels : (tensor<2x16xf32>, tensor<2xi64>) -> tensor<f32>
  return %loss, %n_stats#0, %n_stats#1 : tensor<f32>, tensor<16xf32>, tensor<16xf32>
}
