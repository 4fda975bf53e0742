// Convolutions other than pointwise ones run as products with the images'
// columns (im2col), forward and both gradients, with strides, padding,
// dilation, groups and a bias: gradients match finite differences, the
// measured peak is the simulated one, and every product is a BLAS call.
// Both convolutions have few output positions per image (27 and 8), so
// one product takes all 3 images: their columns side by side and their
// output block (or its gradient) gathered [OC, 3 x positions] are each
// op's scratch bytes.
// RUN: ckpt-opt %s --ckpt-autodiff -o %t.mlir
// RUN: ckpt-run %t.mlir --check-gradients=3 --check-peak=1e-12 | FileCheck %s
// RUN: ckpt-opt %t.mlir --ckpt-lower-to-llvm | FileCheck %s --check-prefix=CALLS
// RUN: ckpt-opt %t.mlir --ckpt-report | FileCheck %s --check-prefix=REPORT

// CHECK: peak bytes: measured [[PEAK:[0-9]+]] (inputs {{[0-9]+}} + heap {{[0-9]+}}), simulated [[PEAK]] (+0.00%)
// CHECK: gradient check: passed

// One product per op, called once for the 3 images: the two
// convolutions of the forward function and of the step, the input
// gradient of the second (the first's input needs none), and both weight
// gradients.
// CALLS-COUNT-7: llvm.call @ckptGemmF64
// CALLS-NOT: llvm.call @ckptGemmF64

// The peak is at the first weight gradient, whose temporaries are its
// operand's gradient (3x6x3x9 x 8 B = 3888 B), the columns of 3 images (4
// channels x 3x3 offsets x 3 x 3x9 positions x 8 B = 23328 B) and the
// block of their output gradients (6 channels x 3 x 3x9 positions x 8 B =
// 3888 B).
// REPORT: simulated peak: 39512 B {{.*}} while running ckpt.conv2d_weight_grad
// REPORT: temporaries: 31104 B

func.func @f(%x: tensor<3x4x7x7xf64>, %w: tensor<6x2x3x3xf64> {ckpt.param},
             %b: tensor<6xf64> {ckpt.param},
             %v: tensor<5x6x2x2xf64> {ckpt.param}) -> tensor<f64> {
  %h = ckpt.conv2d %x, %w bias %b stride = [2, 1] padding = [1, 2] dilation = [2, 1] groups = 2
      : (tensor<3x4x7x7xf64>, tensor<6x2x3x3xf64>, tensor<6xf64>) -> tensor<3x6x3x9xf64>
  %t = ckpt.tanh %h : tensor<3x6x3x9xf64>
  %z = ckpt.conv2d %t, %v stride = [1, 2]
      : (tensor<3x6x3x9xf64>, tensor<5x6x2x2xf64>) -> tensor<3x5x2x4xf64>
  %s = ckpt.mul %z, %z : tensor<3x5x2x4xf64>
  %l = ckpt.reduce_sum %s : tensor<3x5x2x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
