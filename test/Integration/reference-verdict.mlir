// ckpt-run --reference judges all gradients together. The bias before the
// batch norm has a zero gradient in exact arithmetic, so its f32 value
// against the f64 run's is rounding noise with a relative difference of
// its own near 2e9; the gradients together differ by 8e-8 and agree. A
// gradient 1% off does make the run differ, and is named first.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed 's/f32/f64/g' %s | ckpt-opt --ckpt-autodiff | ckpt-run - --out %t/ref > /dev/null
// RUN: ckpt-opt --ckpt-autodiff %s -o %t/step.mlir
// RUN: ckpt-run %t/step.mlir --reference %t/ref | FileCheck %s --check-prefix=AGREES
// RUN: %python -c "import numpy as n; g = n.load('%t/ref/grad3.npy'); n.save('%t/ref/grad3.npy', g * 1.01)"
// RUN: not ckpt-run %t/step.mlir --reference %t/ref | FileCheck %s --check-prefix=DIFFERS

// AGREES:      reference: agrees (gradients: relative L2 difference {{[0-9.]+}}e-08 over all 3; forward results: worst relative L2 difference {{.*}} of 1; tolerance 0.0001)
// AGREES:        grad of argument 2: {{.*}}% of the squared difference, relative L2 difference {{[0-9.]+}}e+09 of its own

// DIFFERS:      reference: DIFFERS (gradients: relative L2 difference 0.00{{[0-9]+}} over all 3;
// DIFFERS-NEXT:   grad of argument 3: 100.0% of the squared difference, relative L2 difference 0.0099{{[0-9]*}} of its own
func.func @bias_norm(%x: tensor<16x8xf32>, %w: tensor<4x8xf32> {ckpt.param},
                     %b: tensor<4xf32> {ckpt.param}, %g: tensor<4xf32> {ckpt.param},
                     %rm: tensor<4xf32>, %rv: tensor<4xf32>,
                     %target: tensor<16x4xf32>) -> tensor<f32> {
  %h = ckpt.linear %x, %w, %b : (tensor<16x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<16x4xf32>
  %n:3 = ckpt.batch_norm %h weight %g
      : (tensor<16x4xf32>, tensor<4xf32>) -> (tensor<16x4xf32>, tensor<4xf32>, tensor<4xf32>)
  %n_stats:2 = ckpt.batch_norm_update_stats %h, %n#1 running_mean %rm running_var %rv
      : (tensor<16x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %l = ckpt.mse_loss %n#0, %target : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
