// Gradient rules of conv2d, max_pool2d, avg_pool2d, upsample_nearest2d and
// batch_norm, and their saved tensors (as ckpt-report remarks).
// RUN: ckpt-opt %s --ckpt-autodiff=keep-forward=false --ckpt-report="remarks=1 output=%t" -verify-diagnostics | FileCheck %s

// The input is data: only the weight gradient is built, and it saves the
// input, not the weight. The bias gradient sums dy over batch and positions.
// CHECK-LABEL: func.func @conv_weight_train
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x2x5x5xf32>, %[[W:.+]]: tensor<4x2x3x3xf32> {ckpt.param}, %[[B:.+]]: tensor<4xf32> {ckpt.param})
//   CHECK-NOT:   ckpt.conv2d_input_grad
//       CHECK:   %[[DY:.+]] = ckpt.broadcast_to {{.*}} -> tensor<1x4x3x3xf32>
//       CHECK:   %[[DW:.+]] = ckpt.conv2d_weight_grad %[[DY]], %[[X]] stride = [2, 2] padding = [1, 1] {ckpt.backward} : (tensor<1x4x3x3xf32>, tensor<1x2x5x5xf32>) -> tensor<4x2x3x3xf32>
//       CHECK:   %[[DB:.+]] = ckpt.reduce_sum %[[DY]] dims = [0, 2, 3] {ckpt.backward} : tensor<1x4x3x3xf32> -> tensor<4xf32>
//       CHECK:   return %{{.+}}, %[[DW]], %[[DB]]
// expected-remark @below {{saved activation %arg0: 'tensor<1x2x5x5xf32>', 200 bytes, read by 1 backward op(s)}}
// expected-remark @below {{training step @conv_weight_train: saved activations 200 bytes in 1 tensors; parameters 0 bytes in 0 tensors}}
func.func @conv_weight(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32> {ckpt.param},
                       %b: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %y = ckpt.conv2d %x, %w bias %b stride = [2, 2] padding = [1, 1]
      : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %l = ckpt.reduce_sum %y : tensor<1x4x3x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// A fixed weight: only the input gradient, which saves the weight and
// repeats every attribute; the result type is the input's.
// CHECK-LABEL: func.func @conv_input_train
//  CHECK-SAME:   (%[[X:.+]]: tensor<1x4x7x7xf32> {ckpt.param}, %[[W:.+]]: tensor<6x2x3x3xf32>)
//   CHECK-NOT:   ckpt.conv2d_weight_grad
//       CHECK:   %[[DX:.+]] = ckpt.conv2d_input_grad %{{.+}}, %[[W]] stride = [2, 1] padding = [1, 2] dilation = [2, 1] groups = 2 {ckpt.backward} : (tensor<1x6x3x9xf32>, tensor<6x2x3x3xf32>) -> tensor<1x4x7x7xf32>
//       CHECK:   return %{{.+}}, %[[DX]]
// expected-remark @below {{saved activation %arg1: 'tensor<6x2x3x3xf32>', 432 bytes, read by 1 backward op(s)}}
// expected-remark @below {{training step @conv_input_train: saved activations 432 bytes in 1 tensors; parameters 0 bytes in 0 tensors}}
func.func @conv_input(%x: tensor<1x4x7x7xf32> {ckpt.param}, %w: tensor<6x2x3x3xf32>) -> tensor<f32> {
  %y = ckpt.conv2d %x, %w stride = [2, 1] padding = [1, 2] dilation = [2, 1] groups = 2
      : (tensor<1x4x7x7xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x9xf32>
  %l = ckpt.reduce_sum %y : tensor<1x6x3x9xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// Both operands: each gradient reads the other operand.
// CHECK-LABEL: func.func @conv_both_train
//       CHECK:   ckpt.conv2d_input_grad
//       CHECK:   ckpt.conv2d_weight_grad
// expected-remark @below {{saved parameter %arg0: 'tensor<1x2x4x4xf32>', 128 bytes, read by 1 backward op(s)}}
// expected-remark @below {{saved parameter %arg1: 'tensor<3x2x1x1xf32>', 24 bytes, read by 1 backward op(s)}}
// expected-remark @below {{training step @conv_both_train: saved activations 0 bytes in 0 tensors; parameters 152 bytes in 2 tensors}}
func.func @conv_both(%x: tensor<1x2x4x4xf32> {ckpt.param}, %w: tensor<3x2x1x1xf32> {ckpt.param}) -> tensor<f32> {
  %y = ckpt.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %l = ckpt.reduce_sum %y : tensor<1x3x4x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// max_pool2d saves only its indices (i64, 8 bytes each); the gradient
// scatters dy to them with the forward window.
// CHECK-LABEL: func.func @max_pool_train
//       CHECK:   %{{.+}}, %[[I:.+]] = ckpt.max_pool2d
//       CHECK:   %[[DX:.+]] = ckpt.max_pool2d_grad %{{.+}}, %[[I]] kernel = [3, 3] stride = [2, 2] padding = [1, 1] {ckpt.backward} : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>) -> tensor<1x2x6x6xf32>
//       CHECK:   return %{{.+}}, %[[DX]]
// expected-remark @below {{training step @max_pool_train: saved activations 144 bytes in 1 tensors}}
func.func @max_pool(%x: tensor<1x2x6x6xf32> {ckpt.param}) -> tensor<f32> {
  // expected-remark @below {{saved activation %indices: 'tensor<1x2x3x3xi64>', 144 bytes, read by 1 backward op(s)}}
  %y:2 = ckpt.max_pool2d %x kernel = [3, 3] stride = [2, 2] padding = [1, 1]
      : (tensor<1x2x6x6xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
  %l = ckpt.reduce_sum %y#0 : tensor<1x2x3x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// avg_pool2d and upsample_nearest2d save nothing.
// CHECK-LABEL: func.func @pool_upsample_train
//       CHECK:   %[[DU:.+]] = ckpt.upsample_nearest2d_grad %{{.+}} scale = [2, 3] {ckpt.backward} : tensor<1x2x4x9xf32> -> tensor<1x2x2x3xf32>
//       CHECK:   %[[DX:.+]] = ckpt.avg_pool2d_grad %[[DU]] kernel = [3, 3] stride = [2, 2] padding = [1, 1] count_include_pad = false {ckpt.backward} : tensor<1x2x2x3xf32> -> tensor<1x2x4x5xf32>
//       CHECK:   return %{{.+}}, %[[DX]]
// expected-remark @below {{training step @pool_upsample_train: saved activations 0 bytes in 0 tensors}}
func.func @pool_upsample(%x: tensor<1x2x4x5xf32> {ckpt.param}) -> tensor<f32> {
  %a = ckpt.avg_pool2d %x kernel = [3, 3] stride = [2, 2] padding = [1, 1] count_include_pad = false
      : tensor<1x2x4x5xf32> -> tensor<1x2x2x3xf32>
  %u = ckpt.upsample_nearest2d %a scale = [2, 3] : tensor<1x2x2x3xf32> -> tensor<1x2x4x9xf32>
  %l = ckpt.reduce_sum %u : tensor<1x2x4x9xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// batch_norm saves its input, mean, rstd and weight (not the bias); the
// running statistics get no gradient and are not read.
// CHECK-LABEL: func.func @batch_norm_train
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x3x2x2xf32> {ckpt.param}, %[[G:.+]]: tensor<3xf32> {ckpt.param}, %[[B:.+]]: tensor<3xf32> {ckpt.param}, %[[RM:.+]]: tensor<3xf32>, %[[RV:.+]]: tensor<3xf32>)
//       CHECK:   %[[Y:.+]], %[[MEAN:.+]], %[[RSTD:.+]] = ckpt.batch_norm %[[X]] weight %[[G]] bias %[[B]]
//       CHECK:   %[[NRM:.+]], %[[NRV:.+]] = ckpt.batch_norm_update_stats %[[X]], %[[MEAN]] running_mean %[[RM]] running_var %[[RV]]
//       CHECK:   %[[DX:.+]], %[[DG:.+]], %[[DB:.+]] = ckpt.batch_norm_grad %{{.+}}, %[[X]], %[[MEAN]], %[[RSTD]] weight %[[G]] {ckpt.backward} : (tensor<4x3x2x2xf32>, tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
//       CHECK:   return %{{.+}}, %[[NRM]], %[[NRV]], %[[DX]], %[[DG]], %[[DB]]
// expected-remark @below {{saved parameter %arg0: 'tensor<4x3x2x2xf32>', 192 bytes, read by 1 backward op(s)}}
// expected-remark @below {{saved parameter %arg1: 'tensor<3xf32>', 12 bytes, read by 1 backward op(s)}}
// expected-remark @below {{training step @batch_norm_train: saved activations 24 bytes in 2 tensors; parameters 204 bytes in 2 tensors}}
func.func @batch_norm(%x: tensor<4x3x2x2xf32> {ckpt.param}, %g: tensor<3xf32> {ckpt.param},
                      %b: tensor<3xf32> {ckpt.param}, %rm: tensor<3xf32>, %rv: tensor<3xf32>)
    -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>) {
  // expected-remark @below {{saved activation %mean: 'tensor<3xf32>', 12 bytes, read by 1 backward op(s)}}
  // expected-remark @below {{saved activation %rstd: 'tensor<3xf32>', 12 bytes, read by 1 backward op(s)}}
  %y:3 = ckpt.batch_norm %x weight %g bias %b
      : (tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
  %r:2 = ckpt.batch_norm_update_stats %x, %y#1 running_mean %rm running_var %rv
      : (tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %l = ckpt.reduce_sum %y#0 : tensor<4x3x2x2xf32> -> tensor<f32>
  return %l, %r#0, %r#1 : tensor<f32>, tensor<3xf32>, tensor<3xf32>
}

// A loss that reads the updated running statistics: they are outside
// autograd (PyTorch's buffers), so no gradient flows through them and the
// input's gradient is zero, with no backward op at all.
// CHECK-LABEL: func.func @running_statistics_train
//   CHECK-NOT:   ckpt.batch_norm_grad
//       CHECK:   %[[ZERO:.+]] = arith.constant {ckpt.backward} dense<0.000000e+00> : tensor<6x2xf32>
//       CHECK:   return %{{.+}}, %[[ZERO]]
// expected-warning @below {{parameter 0 of 'running_statistics_train' does not influence the loss; its gradient is zero}}
// expected-remark @below {{training step @running_statistics_train}}
func.func @running_statistics(%x: tensor<6x2xf32> {ckpt.param}, %rm: tensor<2xf32>, %rv: tensor<2xf32>) -> tensor<f32> {
  %y:3 = ckpt.batch_norm %x : (tensor<6x2xf32>) -> (tensor<6x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r:2 = ckpt.batch_norm_update_stats %x, %y#1 running_mean %rm running_var %rv
      : (tensor<6x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %l = ckpt.reduce_sum %r#0 : tensor<2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
