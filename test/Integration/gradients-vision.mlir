// Finite differences in f64 against the gradients of conv2d (strides,
// padding, dilation, groups, with and without bias), max_pool2d
// (overlapping and padded windows, default stride, ceil mode), avg_pool2d
// (with and without count_include_pad, ceil mode), upsample_nearest2d and batch_norm (4-D, 3-D
// and 2-D, with and without weight and bias), one function each, and of a
// block that chains them.
// RUN: %check_gradients --function=convs_train | FileCheck %s
// RUN: %check_gradients --function=pools_train | FileCheck %s
// RUN: %check_gradients --function=batch_norms_train | FileCheck %s
// RUN: %check_gradients --function=block_train | FileCheck %s
// CHECK: gradient check: passed

func.func @convs(%x: tensor<2x4x7x7xf64> {ckpt.param}, %w1: tensor<6x2x3x3xf64> {ckpt.param},
                 %w2: tensor<5x6x2x2xf64> {ckpt.param}, %b2: tensor<5xf64> {ckpt.param},
                 %w3: tensor<5x1x3x3xf64> {ckpt.param}, %b3: tensor<5xf64> {ckpt.param},
                 %r: tensor<2x5x2x4xf64>) -> tensor<f64> {
  %h = ckpt.conv2d %x, %w1 stride = [2, 1] padding = [1, 2] dilation = [2, 1] groups = 2
      : (tensor<2x4x7x7xf64>, tensor<6x2x3x3xf64>) -> tensor<2x6x3x9xf64>
  %g = ckpt.conv2d %h, %w2 bias %b2 stride = [1, 2]
      : (tensor<2x6x3x9xf64>, tensor<5x6x2x2xf64>, tensor<5xf64>) -> tensor<2x5x2x4xf64>
  %t = ckpt.tanh %g : tensor<2x5x2x4xf64>
  %d = ckpt.conv2d %t, %w3 bias %b3 padding = [1, 1] groups = 5
      : (tensor<2x5x2x4xf64>, tensor<5x1x3x3xf64>, tensor<5xf64>) -> tensor<2x5x2x4xf64>
  %p = ckpt.mul %d, %r : tensor<2x5x2x4xf64>
  %loss = ckpt.reduce_sum %p : tensor<2x5x2x4xf64> -> tensor<f64>
  return %loss : tensor<f64>
}

func.func @pools(%x: tensor<2x3x9x8xf64> {ckpt.param}) -> tensor<f64> {
  %m:2 = ckpt.max_pool2d %x kernel = [3, 3] stride = [2, 2] padding = [1, 1]
      : (tensor<2x3x9x8xf64>) -> (tensor<2x3x5x4xf64>, tensor<2x3x5x4xi64>)
  %n:2 = ckpt.max_pool2d %x kernel = [2, 3]
      : (tensor<2x3x9x8xf64>) -> (tensor<2x3x4x2xf64>, tensor<2x3x4x2xi64>)
  %a = ckpt.avg_pool2d %x kernel = [3, 2] stride = [2, 1] padding = [1, 1] count_include_pad = false
      : tensor<2x3x9x8xf64> -> tensor<2x3x5x9xf64>
  %b = ckpt.avg_pool2d %x kernel = [3, 3] stride = [2, 3] padding = [1, 1]
      : tensor<2x3x9x8xf64> -> tensor<2x3x5x3xf64>
  %c:2 = ckpt.max_pool2d %x kernel = [2, 3] stride = [2, 2] ceil_mode = true
      : (tensor<2x3x9x8xf64>) -> (tensor<2x3x5x4xf64>, tensor<2x3x5x4xi64>)
  %e = ckpt.avg_pool2d %x kernel = [3, 3] stride = [2, 2] padding = [1, 1] ceil_mode = true
      : tensor<2x3x9x8xf64> -> tensor<2x3x5x5xf64>
  %f = ckpt.avg_pool2d %x kernel = [2, 2] stride = [2, 3] ceil_mode = true count_include_pad = false
      : tensor<2x3x9x8xf64> -> tensor<2x3x5x3xf64>
  %c2 = ckpt.mul %c#0, %m#0 : tensor<2x3x5x4xf64>
  %e2 = ckpt.mul %e, %e : tensor<2x3x5x5xf64>
  %f2 = ckpt.exp %f : tensor<2x3x5x3xf64>
  %lc = ckpt.reduce_sum %c2 : tensor<2x3x5x4xf64> -> tensor<f64>
  %le = ckpt.reduce_sum %e2 : tensor<2x3x5x5xf64> -> tensor<f64>
  %lf = ckpt.reduce_sum %f2 : tensor<2x3x5x3xf64> -> tensor<f64>
  %u = ckpt.upsample_nearest2d %m#0 scale = [2, 3] : tensor<2x3x5x4xf64> -> tensor<2x3x10x12xf64>
  %m2 = ckpt.mul %u, %u : tensor<2x3x10x12xf64>
  %n2 = ckpt.mul %n#0, %n#0 : tensor<2x3x4x2xf64>
  %a2 = ckpt.mul %a, %a : tensor<2x3x5x9xf64>
  %b2 = ckpt.exp %b : tensor<2x3x5x3xf64>
  %lm = ckpt.reduce_sum %m2 : tensor<2x3x10x12xf64> -> tensor<f64>
  %ln = ckpt.reduce_sum %n2 : tensor<2x3x4x2xf64> -> tensor<f64>
  %la = ckpt.reduce_sum %a2 : tensor<2x3x5x9xf64> -> tensor<f64>
  %lb = ckpt.reduce_sum %b2 : tensor<2x3x5x3xf64> -> tensor<f64>
  %l1 = ckpt.add %lm, %ln : tensor<f64>
  %l2 = ckpt.add %la, %lb : tensor<f64>
  %l3 = ckpt.add %lc, %le : tensor<f64>
  %l4 = ckpt.add %l3, %lf : tensor<f64>
  %l5 = ckpt.add %l1, %l2 : tensor<f64>
  %loss = ckpt.add %l5, %l4 : tensor<f64>
  return %loss : tensor<f64>
}

func.func @batch_norms(%x: tensor<4x3x3x2xf64> {ckpt.param}, %g: tensor<3xf64> {ckpt.param},
                       %b: tensor<3xf64> {ckpt.param}, %rm: tensor<3xf64>, %rv: tensor<3xf64>,
                       %v: tensor<5x3xf64> {ckpt.param}, %r: tensor<4x3x6xf64>,
                       %s: tensor<5x3xf64>) -> tensor<f64> {
  %y:3 = ckpt.batch_norm %x weight %g bias %b
      : (tensor<4x3x3x2xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<4x3x3x2xf64>, tensor<3xf64>, tensor<3xf64>)
  %y_stats:2 = ckpt.batch_norm_update_stats %x, %y#1 running_mean %rm running_var %rv momentum = 0.3
      : (tensor<4x3x3x2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  %t = ckpt.tanh %y#0 : tensor<4x3x3x2xf64>
  %f = ckpt.reshape %t : tensor<4x3x3x2xf64> -> tensor<4x3x6xf64>
  %z:3 = ckpt.batch_norm %f eps = 1.0e-3
      : (tensor<4x3x6xf64>) -> (tensor<4x3x6xf64>, tensor<3xf64>, tensor<3xf64>)
  %z_stats:2 = ckpt.batch_norm_update_stats %f, %z#1 running_mean %rm running_var %rv
      : (tensor<4x3x6xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  %p = ckpt.mul %z#0, %r : tensor<4x3x6xf64>
  %q:3 = ckpt.batch_norm %v bias %b
      : (tensor<5x3xf64>, tensor<3xf64>) -> (tensor<5x3xf64>, tensor<3xf64>, tensor<3xf64>)
  %q_stats:2 = ckpt.batch_norm_update_stats %v, %q#1 running_mean %rm running_var %rv
      : (tensor<5x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  %e = ckpt.exp %q#0 : tensor<5x3xf64>
  %o = ckpt.mul %e, %s : tensor<5x3xf64>
  %lp = ckpt.reduce_sum %p : tensor<4x3x6xf64> -> tensor<f64>
  %lo = ckpt.reduce_sum %o : tensor<5x3xf64> -> tensor<f64>
  %loss = ckpt.add %lp, %lo : tensor<f64>
  return %loss : tensor<f64>
}

// conv -> batch_norm -> relu -> max_pool -> upsample -> conv (+ skip) ->
// avg_pool, as in a small U-Net stage.
func.func @block(%x: tensor<2x3x8x8xf64>, %w1: tensor<4x3x3x3xf64> {ckpt.param},
                 %g: tensor<4xf64> {ckpt.param}, %b: tensor<4xf64> {ckpt.param},
                 %rm: tensor<4xf64>, %rv: tensor<4xf64>,
                 %w2: tensor<4x4x3x3xf64> {ckpt.param}, %b2: tensor<4xf64> {ckpt.param},
                 %r: tensor<2x4x4x4xf64>) -> tensor<f64> {
  %c = ckpt.conv2d %x, %w1 padding = [1, 1]
      : (tensor<2x3x8x8xf64>, tensor<4x3x3x3xf64>) -> tensor<2x4x8x8xf64>
  %n:3 = ckpt.batch_norm %c weight %g bias %b
      : (tensor<2x4x8x8xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<2x4x8x8xf64>, tensor<4xf64>, tensor<4xf64>)
  %n_stats:2 = ckpt.batch_norm_update_stats %c, %n#1 running_mean %rm running_var %rv
      : (tensor<2x4x8x8xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  %a = ckpt.tanh %n#0 : tensor<2x4x8x8xf64>
  %p:2 = ckpt.max_pool2d %a kernel = [2, 2]
      : (tensor<2x4x8x8xf64>) -> (tensor<2x4x4x4xf64>, tensor<2x4x4x4xi64>)
  %u = ckpt.upsample_nearest2d %p#0 scale = [2, 2] : tensor<2x4x4x4xf64> -> tensor<2x4x8x8xf64>
  %d = ckpt.conv2d %u, %w2 bias %b2 padding = [1, 1]
      : (tensor<2x4x8x8xf64>, tensor<4x4x3x3xf64>, tensor<4xf64>) -> tensor<2x4x8x8xf64>
  %s = ckpt.add %d, %a : tensor<2x4x8x8xf64>
  %v = ckpt.avg_pool2d %s kernel = [3, 3] stride = [2, 2] padding = [1, 1] count_include_pad = false
      : tensor<2x4x8x8xf64> -> tensor<2x4x4x4xf64>
  %m = ckpt.mul %v, %r : tensor<2x4x4x4xf64>
  %loss = ckpt.reduce_sum %m : tensor<2x4x4x4xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
