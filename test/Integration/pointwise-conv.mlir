// Pointwise convolutions (1x1, stride 1, no padding) run as BLAS products,
// forward and both gradients, with gradients that match finite differences
// and the measured peak equal to the simulated one (the products need no
// scratch: the weight gradient's read views of each image).
// RUN: ckpt-opt %s --ckpt-autodiff -o %t.mlir
// RUN: ckpt-run %t.mlir --check-gradients=3 --check-peak=1e-12 | FileCheck %s
// RUN: ckpt-opt %t.mlir --ckpt-lower-to-llvm | FileCheck %s --check-prefix=CALLS

// CHECK: peak bytes: measured [[PEAK:[0-9]+]] (inputs {{[0-9]+}} + heap {{[0-9]+}}), simulated [[PEAK]] (+0.00%)
// CHECK: gradient check: passed

// The two convolutions of the forward function and of the step (one
// product each over the batch), the input gradient of the second (the
// first's input needs none), and both weight gradients (one product each,
// called once per image in a loop).
// CALLS-COUNT-7: llvm.call @ckptGemmF64
// CALLS-NOT: llvm.call @ckptGemmF64

func.func @f(%x: tensor<2x8x5x6xf64>, %w: tensor<4x8x1x1xf64> {ckpt.param},
             %b: tensor<4xf64> {ckpt.param},
             %v: tensor<3x4x1x1xf64> {ckpt.param}) -> tensor<f64> {
  %y = ckpt.conv2d %x, %w bias %b
      : (tensor<2x8x5x6xf64>, tensor<4x8x1x1xf64>, tensor<4xf64>) -> tensor<2x4x5x6xf64>
  %t = ckpt.tanh %y : tensor<2x4x5x6xf64>
  %z = ckpt.conv2d %t, %v
      : (tensor<2x4x5x6xf64>, tensor<3x4x1x1xf64>) -> tensor<2x3x5x6xf64>
  %l = ckpt.reduce_sum %z : tensor<2x3x5x6xf64> -> tensor<f64>
  %s = ckpt.mul %l, %l : tensor<f64>
  return %s : tensor<f64>
}
