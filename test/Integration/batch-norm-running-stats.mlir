// batch_norm's statistics and batch_norm_update_stats' running statistics,
// run by ckpt-run, against values worked out by hand. Per channel (M = 4
// values):
//   channel 0: 1, 2, 3, 6 -> mean 3, squares 14 (biased variance 3.5,
//              unbiased 14/3), rstd 1/sqrt(3.5) with eps = 0
//   channel 1: 0, 4, 0, 4 -> mean 2, squares 16 (4, 16/3), rstd 1/2
// new_running_mean = m * mean + (1 - m) * running_mean
// new_running_var  = m * unbiased + (1 - m) * running_var
// with running_mean = [0.5, -1] and running_var = [2, 1].
// RUN: ckpt-run %s --function=momentum_quarter | FileCheck %s --check-prefix=QUARTER
// RUN: ckpt-run %s --function=default_momentum | FileCheck %s --check-prefix=DEFAULT

// Each normalised channel has mean 0 and M values of unit variance:
// sum 0, l2 sqrt(2 * 4).
// QUARTER: result 0: sum {{-?[0-9.]+e-1[0-9]|0}}, l2 2.82842712
// QUARTER: result 1: sum 3, l2 3
// QUARTER: result 2: sum 2, l2 2
// QUARTER: result 3: sum 0.534522484, l2 0.534522484
// QUARTER: result 4: sum 0.5, l2 0.5
// 0.25 * 3 + 0.75 * 0.5 and 0.25 * 2 + 0.75 * -1:
// QUARTER: result 5: sum 1.125, l2 1.125
// QUARTER: result 6: sum -0.25, l2 0.25
// 0.25 * 14/3 + 0.75 * 2 and 0.25 * 16/3 + 0.75 * 1:
// QUARTER: result 7: sum 2.66666667, l2 2.66666667
// QUARTER: result 8: sum 2.08333333, l2 2.08333333
func.func @momentum_quarter() -> (tensor<2x2x2xf64>, tensor<1xf64>, tensor<1xf64>,
                                  tensor<1xf64>, tensor<1xf64>, tensor<1xf64>,
                                  tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) {
  // [N = 2, C = 2, L = 2]
  %x = arith.constant dense<[[[1.0, 2.0], [0.0, 4.0]], [[3.0, 6.0], [0.0, 4.0]]]> : tensor<2x2x2xf64>
  %rm = arith.constant dense<[0.5, -1.0]> : tensor<2xf64>
  %rv = arith.constant dense<[2.0, 1.0]> : tensor<2xf64>
  %y:3 = ckpt.batch_norm %x eps = 0.0
      : (tensor<2x2x2xf64>) -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
  %y_stats:2 = ckpt.batch_norm_update_stats %x, %y#1 running_mean %rm running_var %rv momentum = 0.25
      : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)
  %mean0 = ckpt.slice %y#1 dim = 0 start = 0 end = 1 : tensor<2xf64> -> tensor<1xf64>
  %mean1 = ckpt.slice %y#1 dim = 0 start = 1 end = 2 : tensor<2xf64> -> tensor<1xf64>
  %rstd0 = ckpt.slice %y#2 dim = 0 start = 0 end = 1 : tensor<2xf64> -> tensor<1xf64>
  %rstd1 = ckpt.slice %y#2 dim = 0 start = 1 end = 2 : tensor<2xf64> -> tensor<1xf64>
  %rm0 = ckpt.slice %y_stats#0 dim = 0 start = 0 end = 1 : tensor<2xf64> -> tensor<1xf64>
  %rm1 = ckpt.slice %y_stats#0 dim = 0 start = 1 end = 2 : tensor<2xf64> -> tensor<1xf64>
  %rv0 = ckpt.slice %y_stats#1 dim = 0 start = 0 end = 1 : tensor<2xf64> -> tensor<1xf64>
  %rv1 = ckpt.slice %y_stats#1 dim = 0 start = 1 end = 2 : tensor<2xf64> -> tensor<1xf64>
  return %y#0, %mean0, %mean1, %rstd0, %rstd1, %rm0, %rm1, %rv0, %rv1
      : tensor<2x2x2xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>,
        tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>
}

// The same values as one [N = 1, C = 2, H = 2, W = 2] image, the default
// momentum 0.1 and the default eps 1e-5.
// 0.1 * 3 + 0.9 * 0.5 and 0.1 * 2 + 0.9 * -1:
// DEFAULT: result 0: sum 0.75, l2 0.75
// DEFAULT: result 1: sum -0.7, l2 0.7
// 0.1 * 14/3 + 0.9 * 2 and 0.1 * 16/3 + 0.9 * 1:
// DEFAULT: result 2: sum 2.26666667, l2 2.26666667
// DEFAULT: result 3: sum 1.43333333, l2 1.43333333
func.func @default_momentum() -> (tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) {
  %x = arith.constant dense<[[[[1.0, 2.0], [3.0, 6.0]], [[0.0, 4.0], [0.0, 4.0]]]]> : tensor<1x2x2x2xf64>
  %rm = arith.constant dense<[0.5, -1.0]> : tensor<2xf64>
  %rv = arith.constant dense<[2.0, 1.0]> : tensor<2xf64>
  %y:3 = ckpt.batch_norm %x
      : (tensor<1x2x2x2xf64>) -> (tensor<1x2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
  %y_stats:2 = ckpt.batch_norm_update_stats %x, %y#1 running_mean %rm running_var %rv
      : (tensor<1x2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)
  %rm0 = ckpt.slice %y_stats#0 dim = 0 start = 0 end = 1 : tensor<2xf64> -> tensor<1xf64>
  %rm1 = ckpt.slice %y_stats#0 dim = 0 start = 1 end = 2 : tensor<2xf64> -> tensor<1xf64>
  %rv0 = ckpt.slice %y_stats#1 dim = 0 start = 0 end = 1 : tensor<2xf64> -> tensor<1xf64>
  %rv1 = ckpt.slice %y_stats#1 dim = 0 start = 1 end = 2 : tensor<2xf64> -> tensor<1xf64>
  return %rm0, %rm1, %rv0, %rv1 : tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>
}
