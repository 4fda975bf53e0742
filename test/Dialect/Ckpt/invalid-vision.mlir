// Verifier messages of conv2d, the pooling ops, upsample_nearest2d,
// batch_norm, batch_norm_update_stats and their gradient ops.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

func.func @conv_input_rank(%x: tensor<4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @below {{'ckpt.conv2d' op input must be 4-D [batch, channels, height, width], got rank 3}}
  %y = ckpt.conv2d %x, %w : (tensor<4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_weight_rank(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4xf32>) {
  // expected-error @below {{'ckpt.conv2d' op weight must be 4-D [out_channels, in_channels / groups, kernel_height, kernel_width], got rank 2}}
  %y = ckpt.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<8x4xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_element_types(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf64>) {
  // expected-error @below {{'ckpt.conv2d' op input, weight and bias must share one element type, got 'f32' and 'f64'}}
  %y = ckpt.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf64>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @below {{'ckpt.conv2d' op weight has 3 input channels per group, but the input's 4 channels in 1 groups give 4}}
  %y = ckpt.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_groups_channels(%x: tensor<1x6x8x8xf32>, %w: tensor<8x2x3x3xf32>) {
  // expected-error @below {{'ckpt.conv2d' op input channels (6) are not divisible by groups (4)}}
  %y = ckpt.conv2d %x, %w groups = 4 : (tensor<1x6x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_groups_out_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) {
  // expected-error @below {{'ckpt.conv2d' op output channels (6) are not divisible by groups (4)}}
  %y = ckpt.conv2d %x, %w groups = 4 : (tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_groups_zero(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @below {{'ckpt.conv2d' op groups must be positive, got 0}}
  %y = ckpt.conv2d %x, %w groups = 0 : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @below {{'ckpt.conv2d' op bias must be 1-D with 8 elements (output channels), got [4]}}
  %y = ckpt.conv2d %x, %w bias %b : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<4xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_stride(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @below {{'ckpt.conv2d' op stride [0, 1] must be positive}}
  %y = ckpt.conv2d %x, %w stride = [0, 1] : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_dilation_entries(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @below {{'ckpt.conv2d' op dilation must have 2 entries [height, width], got [2]}}
  %y = ckpt.conv2d %x, %w dilation = [2] : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_dilation_zero(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @below {{'ckpt.conv2d' op dilation [1, 0] must be positive}}
  %y = ckpt.conv2d %x, %w dilation = [1, 0] : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_padding(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @below {{'ckpt.conv2d' op padding [-1, 0] must be non-negative}}
  %y = ckpt.conv2d %x, %w padding = [-1, 0] : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_kernel_too_large(%x: tensor<1x4x4x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @below {{'ckpt.conv2d' op kernel height 5 (dilated) exceeds the padded input height 4}}
  %y = ckpt.conv2d %x, %w dilation = [2, 1] : (tensor<1x4x4x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x1x6xf32>
  return
}

// -----

func.func @conv_kernel_too_wide(%x: tensor<1x4x8x4xf32>, %w: tensor<8x4x3x7xf32>) {
  // expected-error @below {{'ckpt.conv2d' op kernel width 7 exceeds the padded input width 6}}
  %y = ckpt.conv2d %x, %w padding = [0, 1] : (tensor<1x4x8x4xf32>, tensor<8x4x3x7xf32>) -> tensor<1x8x6x1xf32>
  return
}

// -----

func.func @conv_empty_kernel(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x0x3xf32>) {
  // expected-error @below {{'ckpt.conv2d' op kernel [0, 3] must be positive}}
  %y = ckpt.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<8x4x0x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_result(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @below {{'ckpt.conv2d' op result 0 has type 'tensor<1x8x8x8xf32>' but the operands and attributes give 'tensor<1x8x4x4xf32>'}}
  %y = ckpt.conv2d %x, %w stride = [2, 2] padding = [1, 1] : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  return
}

// -----

func.func @conv_input_grad(%dy: tensor<1x8x5x5xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @below {{'ckpt.conv2d_input_grad' op grad has type 'tensor<1x8x5x5xf32>' but must be 'tensor<1x8x6x6xf32>'}}
  %dx = ckpt.conv2d_input_grad %dy, %w : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_input_grad_groups(%dy: tensor<1x8x6x6xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @below {{'ckpt.conv2d_input_grad' op weight has 4 input channels per group, but the input's 4 channels in 2 groups give 2}}
  %dx = ckpt.conv2d_input_grad %dy, %w groups = 2 : (tensor<1x8x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_weight_grad(%dy: tensor<1x8x6x6xf32>, %x: tensor<1x4x8x8xf32>) {
  // expected-error @below {{'ckpt.conv2d_weight_grad' op grad has type 'tensor<1x8x6x6xf32>' but must be 'tensor<1x8x4x4xf32>'}}
  %dw = ckpt.conv2d_weight_grad %dy, %x : (tensor<1x8x6x6xf32>, tensor<1x4x8x8xf32>) -> tensor<8x4x5x5xf32>
  return
}

// -----

func.func @pool_rank(%x: tensor<4x8x8xf32>) {
  // expected-error @below {{'ckpt.avg_pool2d' op input must be 4-D [batch, channels, height, width], got rank 3}}
  %y = ckpt.avg_pool2d %x kernel = [2, 2] : tensor<4x8x8xf32> -> tensor<4x4x4xf32>
  return
}

// -----

func.func @pool_kernel(%x: tensor<1x4x8x8xf32>) {
  // expected-error @below {{'ckpt.max_pool2d' op kernel [0, 2] must be positive}}
  %y:2 = ckpt.max_pool2d %x kernel = [0, 2] : (tensor<1x4x8x8xf32>) -> (tensor<1x4x8x4xf32>, tensor<1x4x8x4xi64>)
  return
}

// -----

func.func @pool_kernel_entries(%x: tensor<1x4x8x8xf32>) {
  // expected-error @below {{'ckpt.max_pool2d' op kernel must have 2 entries [height, width], got [2, 2, 2]}}
  %y:2 = ckpt.max_pool2d %x kernel = [2, 2, 2] : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
  return
}

// -----

func.func @pool_stride(%x: tensor<1x4x8x8xf32>) {
  // expected-error @below {{'ckpt.max_pool2d' op stride [1, 0] must be positive}}
  %y:2 = ckpt.max_pool2d %x kernel = [2, 2] stride = [1, 0] : (tensor<1x4x8x8xf32>) -> (tensor<1x4x7x7xf32>, tensor<1x4x7x7xi64>)
  return
}

// -----

func.func @pool_padding(%x: tensor<1x4x8x8xf32>) {
  // expected-error @below {{'ckpt.max_pool2d' op padding [2, 1] must be at most half the kernel [3, 3]}}
  %y:2 = ckpt.max_pool2d %x kernel = [3, 3] padding = [2, 1] : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x4x4x2xi64>)
  return
}

// -----

func.func @pool_kernel_too_large(%x: tensor<1x4x2x8xf32>) {
  // expected-error @below {{'ckpt.avg_pool2d' op kernel height 3 exceeds the padded input height 2}}
  %y = ckpt.avg_pool2d %x kernel = [3, 3] : tensor<1x4x2x8xf32> -> tensor<1x4x1x2xf32>
  return
}

// -----

func.func @pool_indices_type(%x: tensor<1x4x8x8xf32>) {
  // expected-error @below {{'ckpt.max_pool2d' op result 1 has type 'tensor<1x4x3x3xi64>' but the operands and attributes give 'tensor<1x4x4x4xi64>'}}
  %y:2 = ckpt.max_pool2d %x kernel = [2, 2] : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x3x3xi64>)
  return
}

// -----

func.func @max_pool_grad_indices(%dy: tensor<1x4x4x4xf32>, %i: tensor<1x4x3x3xi64>) {
  // expected-error @below {{'ckpt.max_pool2d_grad' op indices has type 'tensor<1x4x3x3xi64>' but must be 'tensor<1x4x4x4xi64>'}}
  %dx = ckpt.max_pool2d_grad %dy, %i kernel = [2, 2] : (tensor<1x4x4x4xf32>, tensor<1x4x3x3xi64>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @avg_pool_grad(%dy: tensor<1x4x4x4xf32>) {
  // expected-error @below {{'ckpt.avg_pool2d_grad' op grad has type 'tensor<1x4x4x4xf32>' but must be 'tensor<1x4x7x7xf32>'}}
  %dx = ckpt.avg_pool2d_grad %dy kernel = [2, 2] stride = [1, 1] : tensor<1x4x4x4xf32> -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @upsample_scale(%x: tensor<1x4x8x8xf32>) {
  // expected-error @below {{'ckpt.upsample_nearest2d' op scale [0, 2] must be positive}}
  %y = ckpt.upsample_nearest2d %x scale = [0, 2] : tensor<1x4x8x8xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @upsample_grad_multiple(%dy: tensor<1x4x7x8xf32>) {
  // expected-error @below {{'ckpt.upsample_nearest2d_grad' op grad height 7 is not a multiple of the scale 2}}
  %dx = ckpt.upsample_nearest2d_grad %dy scale = [2, 2] : tensor<1x4x7x8xf32> -> tensor<1x4x3x4xf32>
  return
}

// -----

func.func @batch_norm_rank(%x: tensor<2x4x3x3x3xf32>) {
  // expected-error @below {{'ckpt.batch_norm' op input must be [N, C], [N, C, L] or [N, C, H, W], got rank 5}}
  %y:3 = ckpt.batch_norm %x
      : (tensor<2x4x3x3x3xf32>) -> (tensor<2x4x3x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @batch_norm_weight_type(%x: tensor<2x4xf32>, %w: tensor<4xf16>) {
  // expected-error @below {{'ckpt.batch_norm' op weight must have the input's element type 'f32', got 'f16'}}
  %y:3 = ckpt.batch_norm %x weight %w
      : (tensor<2x4xf32>, tensor<4xf16>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @batch_norm_bias(%x: tensor<2x4xf32>, %c: tensor<4xf32>, %b: tensor<4x1xf32>) {
  // expected-error @below {{'ckpt.batch_norm' op bias must be 1-D with 4 elements (channels), got [4, 1]}}
  %y:3 = ckpt.batch_norm %x weight %c bias %b
      : (tensor<2x4xf32>, tensor<4xf32>, tensor<4x1xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @batch_norm_one_value(%x: tensor<1x4x1x1xf32>) {
  // expected-error @below {{'ckpt.batch_norm' op needs more than one value per channel in training mode, got input shape [1, 4, 1, 1]}}
  %y:3 = ckpt.batch_norm %x
      : (tensor<1x4x1x1xf32>) -> (tensor<1x4x1x1xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @batch_norm_eps(%x: tensor<2x4xf32>) {
  // expected-error @below {{'ckpt.batch_norm' op eps must be non-negative, got -0.001}}
  %y:3 = ckpt.batch_norm %x eps = -1.0e-3
      : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @batch_norm_result(%x: tensor<2x4x5xf32>) {
  // expected-error @below {{'ckpt.batch_norm' op result 1 has type 'tensor<1x4x1xf32>' but the operands and attributes give 'tensor<4xf32>'}}
  %y:3 = ckpt.batch_norm %x
      : (tensor<2x4x5xf32>) -> (tensor<2x4x5xf32>, tensor<1x4x1xf32>, tensor<4xf32>)
  return
}

// -----

func.func @batch_norm_results(%x: tensor<2x4xf32>) {
  // expected-error @below {{'ckpt.batch_norm' op expected 3 results}}
  %y:5 = ckpt.batch_norm %x
      : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @update_stats_rank(%x: tensor<2x4x3x3x3xf32>, %c: tensor<4xf32>) {
  // expected-error @below {{'ckpt.batch_norm_update_stats' op input must be [N, C], [N, C, L] or [N, C, H, W], got rank 5}}
  %r:2 = ckpt.batch_norm_update_stats %x, %c running_mean %c running_var %c
      : (tensor<2x4x3x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @update_stats_mean(%x: tensor<2x4xf32>, %m: tensor<2xf32>, %c: tensor<4xf32>) {
  // expected-error @below {{'ckpt.batch_norm_update_stats' op mean must be 1-D with 4 elements (channels), got [2]}}
  %r:2 = ckpt.batch_norm_update_stats %x, %m running_mean %c running_var %c
      : (tensor<2x4xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @update_stats_running_mean(%x: tensor<2x4xf32>, %c: tensor<4xf32>, %m: tensor<3xf32>) {
  // expected-error @below {{'ckpt.batch_norm_update_stats' op running_mean must be 1-D with 4 elements (channels), got [3]}}
  %r:2 = ckpt.batch_norm_update_stats %x, %c running_mean %m running_var %c
      : (tensor<2x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @update_stats_running_var_type(%x: tensor<2x4xf32>, %c: tensor<4xf32>, %v: tensor<4xf64>) {
  // expected-error @below {{'ckpt.batch_norm_update_stats' op running_var must have the input's element type 'f32', got 'f64'}}
  %r:2 = ckpt.batch_norm_update_stats %x, %c running_mean %c running_var %v
      : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @update_stats_momentum(%x: tensor<2x4xf32>, %c: tensor<4xf32>) {
  // expected-error @below {{'ckpt.batch_norm_update_stats' op momentum 1.5 is outside [0, 1]}}
  %r:2 = ckpt.batch_norm_update_stats %x, %c running_mean %c running_var %c momentum = 1.5
      : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @update_stats_one_value(%x: tensor<1x4xf32>, %c: tensor<4xf32>) {
  // expected-error @below {{'ckpt.batch_norm_update_stats' op needs more than one value per channel in training mode, got input shape [1, 4]}}
  %r:2 = ckpt.batch_norm_update_stats %x, %c running_mean %c running_var %c
      : (tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @batch_norm_grad_mean(%dy: tensor<2x4xf32>, %x: tensor<2x4xf32>, %m: tensor<2xf32>, %r: tensor<4xf32>) {
  // expected-error @below {{'ckpt.batch_norm_grad' op mean must be 1-D with 4 elements (channels), got [2]}}
  %g:3 = ckpt.batch_norm_grad %dy, %x, %m, %r
      : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @batch_norm_grad_type(%dy: tensor<4x4xf32>, %x: tensor<2x4xf32>, %r: tensor<4xf32>) {
  // expected-error @below {{'ckpt.batch_norm_grad' op grad has type 'tensor<4x4xf32>' but must be 'tensor<2x4xf32>'}}
  %g:3 = ckpt.batch_norm_grad %dy, %x, %r, %r
      : (tensor<4x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// With ceil_mode the size rounds up, less a window starting in the
// trailing padding: 9 rows, kernel 3, stride 2, padding 1 give 5, not 6.
func.func @pool_ceil_mode_shape(%x: tensor<1x4x9x9xf32>) {
  // expected-error @below {{'ckpt.avg_pool2d' op result 0 has type 'tensor<1x4x6x6xf32>' but the operands and attributes give 'tensor<1x4x5x5xf32>'}}
  %y = ckpt.avg_pool2d %x kernel = [3, 3] stride = [2, 2] padding = [1, 1] ceil_mode = true
      : tensor<1x4x9x9xf32> -> tensor<1x4x6x6xf32>
  return
}
