// max_pool2d's indices as PyTorch's max_pool2d_with_indices returns them,
// seen through max_pool2d_grad, run by ckpt-run. With kernel = stride =
// [2, 2] over one [2, 6] plane the three windows are
//   -inf -inf | 1 3 | nan 5
//   -inf -inf | 2 3 | 7   1
// window 0: all -inf, so the first element, position 0;
// window 1: a tie of 3s, the first in row-major order, position 3;
// window 2: a NaN counts as the maximum, position 4.
// Routing dy = [1, 10, 100] to them gives dx with sum 111 and, weighted by
// position, 0 * 1 + 3 * 10 + 4 * 100 = 430.
// RUN: ckpt-run %s --function=indices | FileCheck %s
// CHECK: result 0: sum 111,
// CHECK: result 1: sum 430,
func.func @indices() -> (tensor<f64>, tensor<f64>) {
  %x = arith.constant dense<[[[[0xFFF0000000000000, 0xFFF0000000000000, 1.0, 3.0, 0x7FF8000000000000, 5.0],
                               [0xFFF0000000000000, 0xFFF0000000000000, 2.0, 3.0, 7.0, 1.0]]]]> : tensor<1x1x2x6xf64>
  %y:2 = ckpt.max_pool2d %x kernel = [2, 2]
      : (tensor<1x1x2x6xf64>) -> (tensor<1x1x1x3xf64>, tensor<1x1x1x3xi64>)
  %dy = arith.constant dense<[[[[1.0, 10.0, 100.0]]]]> : tensor<1x1x1x3xf64>
  %dx = ckpt.max_pool2d_grad %dy, %y#1 kernel = [2, 2]
      : (tensor<1x1x1x3xf64>, tensor<1x1x1x3xi64>) -> tensor<1x1x2x6xf64>
  %position = arith.constant dense<[[[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0]]]]> : tensor<1x1x2x6xf64>
  %weighted = ckpt.mul %dx, %position : tensor<1x1x2x6xf64>
  %sum = ckpt.reduce_sum %dx : tensor<1x1x2x6xf64> -> tensor<f64>
  %at = ckpt.reduce_sum %weighted : tensor<1x1x2x6xf64> -> tensor<f64>
  return %sum, %at : tensor<f64>, tensor<f64>
}
