// A training step returns the running statistics its batch norms update,
// with the values batch-norm-running-stats.mlir works out by hand (the same
// input, momentum 0.25 and eps 0, then as one image with the defaults),
// after the loss and before the gradients. Per channel (M = 4 values):
//   channel 0: 1, 2, 3, 6 -> mean 3, unbiased variance 14/3
//   channel 1: 0, 4, 0, 4 -> mean 2, unbiased variance 16/3
// with running_mean = [0.5, -1] and running_var = [2, 1].
// RUN: ckpt-opt %s --ckpt-autodiff -o %t.mlir
// RUN: ckpt-run %t.mlir --out %t.out | FileCheck %s
// RUN: %check_gradients | FileCheck %s --check-prefix=GRADIENTS
// The forward's results are written as resultK.npy, the loss as result0.
// RUN: ls %t.out | FileCheck %s --check-prefix=FILES
// --reference compares them too, where the reference has them.
// RUN: ckpt-run %t.mlir --reference %t.out | FileCheck %s --check-prefix=REFERENCE
// RUN: rm %t.out/result2.npy
// RUN: ckpt-run %t.mlir --reference %t.out | FileCheck %s --check-prefix=PARTIAL
// RUN: cp %t.out/grad0.npy %t.out/result1.npy
// RUN: not ckpt-run %t.mlir --reference %t.out 2>&1 | FileCheck %s --check-prefix=SHAPE

// CHECK:      function: @statistics_train
// CHECK-NEXT: loss:
// 0.25 * 3 + 0.75 * 0.5 and 0.25 * 2 + 0.75 * -1:
// CHECK-NEXT: forward result 1: sum 1.125, l2 1.125
// CHECK-NEXT: forward result 2: sum -0.25, l2 0.25
// 0.25 * 14/3 + 0.75 * 2 and 0.25 * 16/3 + 0.75 * 1:
// CHECK-NEXT: forward result 3: sum 2.66666667, l2 2.66666667
// CHECK-NEXT: forward result 4: sum 2.08333333, l2 2.08333333
// 0.1 * 3 + 0.9 * 0.5 and 0.1 * 2 + 0.9 * -1:
// CHECK-NEXT: forward result 5: sum 0.75, l2 0.75
// CHECK-NEXT: forward result 6: sum -0.7, l2 0.7
// 0.1 * 14/3 + 0.9 * 2 and 0.1 * 16/3 + 0.9 * 1:
// CHECK-NEXT: forward result 7: sum 2.26666667, l2 2.26666667
// CHECK-NEXT: forward result 8: sum 1.43333333, l2 1.43333333
// The loss sums both outputs: each bias gets M = 4 per channel, and the
// normalised values of a channel sum to zero.
// CHECK-NEXT: grad of argument 0: sum {{-?[0-9.]+e-1[0-9]|0}}
// CHECK-NEXT: grad of argument 1: sum 8, l2 5.65685425
// CHECK-NEXT: grad of argument 2: sum {{-?[0-9.]+e-1[0-9]|0}}
// CHECK-NEXT: grad of argument 3: sum 8, l2 5.65685425
// CHECK-NEXT: peak bytes:

// GRADIENTS: gradient check: passed

// Against its own outputs: every gradient and all 9 forward results.
// REFERENCE: reference: agrees (gradients: relative L2 difference 0 over all 4; forward results: worst relative L2 difference 0 of 9; tolerance 0.0001)
// REFERENCE-NOT: % of the squared difference

// Without result2.npy, the other 8.
// PARTIAL: reference: agrees (gradients: relative L2 difference 0 over all 4; forward results: worst relative L2 difference 0 of 8; tolerance 0.0001)

// SHAPE: ckpt-run: error: '{{.*}}result1.npy' does not hold a float array of the shape of forward result 1

// FILES:      grad0.npy
// FILES-NEXT: grad1.npy
// FILES-NEXT: grad2.npy
// FILES-NEXT: grad3.npy
// FILES-NEXT: result0.npy
// FILES-NEXT: result1.npy
// FILES:      result8.npy
func.func @statistics(%g: tensor<2xf64> {ckpt.param}, %b: tensor<2xf64> {ckpt.param},
                      %g4: tensor<2xf64> {ckpt.param}, %b4: tensor<2xf64> {ckpt.param})
    -> (tensor<f64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>,
        tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) {
  // [N = 2, C = 2, L = 2]
  %x = arith.constant dense<[[[1.0, 2.0], [0.0, 4.0]], [[3.0, 6.0], [0.0, 4.0]]]> : tensor<2x2x2xf64>
  %rm = arith.constant dense<[0.5, -1.0]> : tensor<2xf64>
  %rv = arith.constant dense<[2.0, 1.0]> : tensor<2xf64>
  %y:3 = ckpt.batch_norm %x weight %g bias %b eps = 0.0
      : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
  %y_stats:2 = ckpt.batch_norm_update_stats %x, %y#1 running_mean %rm running_var %rv momentum = 0.25
      : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)
  // [N = 1, C = 2, H = 2, W = 2]
  %x4 = arith.constant dense<[[[[1.0, 2.0], [3.0, 6.0]], [[0.0, 4.0], [0.0, 4.0]]]]> : tensor<1x2x2x2xf64>
  %z:3 = ckpt.batch_norm %x4 weight %g4 bias %b4
      : (tensor<1x2x2x2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<1x2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
  %z_stats:2 = ckpt.batch_norm_update_stats %x4, %z#1 running_mean %rm running_var %rv
      : (tensor<1x2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)
  %ly = ckpt.reduce_sum %y#0 : tensor<2x2x2xf64> -> tensor<f64>
  %lz = ckpt.reduce_sum %z#0 : tensor<1x2x2x2xf64> -> tensor<f64>
  %l = ckpt.add %ly, %lz : tensor<f64>
  %rm0 = ckpt.slice %y_stats#0 dim = 0 start = 0 end = 1 : tensor<2xf64> -> tensor<1xf64>
  %rm1 = ckpt.slice %y_stats#0 dim = 0 start = 1 end = 2 : tensor<2xf64> -> tensor<1xf64>
  %rv0 = ckpt.slice %y_stats#1 dim = 0 start = 0 end = 1 : tensor<2xf64> -> tensor<1xf64>
  %rv1 = ckpt.slice %y_stats#1 dim = 0 start = 1 end = 2 : tensor<2xf64> -> tensor<1xf64>
  %zm0 = ckpt.slice %z_stats#0 dim = 0 start = 0 end = 1 : tensor<2xf64> -> tensor<1xf64>
  %zm1 = ckpt.slice %z_stats#0 dim = 0 start = 1 end = 2 : tensor<2xf64> -> tensor<1xf64>
  %zv0 = ckpt.slice %z_stats#1 dim = 0 start = 0 end = 1 : tensor<2xf64> -> tensor<1xf64>
  %zv1 = ckpt.slice %z_stats#1 dim = 0 start = 1 end = 2 : tensor<2xf64> -> tensor<1xf64>
  return %l, %rm0, %rm1, %rv0, %rv1, %zm0, %zm1, %zv0, %zv1
      : tensor<f64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>,
        tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>
}
