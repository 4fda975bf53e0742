// Verifier messages of the gradient ops.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

func.func @layer_norm_grad_type(%dy: tensor<2x4xf32>, %x: tensor<2x8xf32>, %s: tensor<2x1xf32>) {
  // expected-error @below {{'ckpt.layer_norm_grad' op grad has type 'tensor<2x4xf32>' but must be 'tensor<2x8xf32>'}}
  %r:3 = ckpt.layer_norm_grad %dy, %x, %s, %s normalized_shape = [8]
      : (tensor<2x4xf32>, tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @rms_norm_grad_statistic(%dy: tensor<2x8xf32>, %x: tensor<2x8xf32>, %s: tensor<2xf32>) {
  // expected-error @below {{'ckpt.rms_norm_grad' op statistic has type 'tensor<2xf32>' but must be 'tensor<2x1xf32>'}}
  %r:2 = ckpt.rms_norm_grad %dy, %x, %s normalized_shape = [8]
      : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2xf32>) -> (tensor<2x8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @reduce_norm_grad_grad(%dy: tensor<2x1xf32>, %x: tensor<2x8xf32>, %n: tensor<2xf32>) {
  // expected-error @below {{'ckpt.reduce_norm_grad' op grad has type 'tensor<2x1xf32>' but must be 'tensor<2xf32>'}}
  %r = ckpt.reduce_norm_grad %dy, %x, %n dims = [1] : (tensor<2x1xf32>, tensor<2x8xf32>, tensor<2xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @reduce_max_grad_output(%dy: tensor<2xf32>, %x: tensor<2x8xf32>, %m: tensor<2x1xf32>) {
  // expected-error @below {{'ckpt.reduce_max_grad' op output has type 'tensor<2x1xf32>' but must be 'tensor<2xf32>'}}
  %r = ckpt.reduce_max_grad %dy, %x, %m dims = [1] : (tensor<2xf32>, tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @cross_entropy_grad_type(%g: tensor<f64>, %l: tensor<4x10xf32>, %y: tensor<4xi64>) {
  // expected-error @below {{'ckpt.cross_entropy_grad' op grad has type 'tensor<f64>' but must be 'tensor<f32>'}}
  %r = ckpt.cross_entropy_grad %g, %l, %y : (tensor<f64>, tensor<4x10xf32>, tensor<4xi64>) -> tensor<4x10xf32>
  return
}

// -----

func.func @mse_loss_grad_target(%g: tensor<f32>, %x: tensor<4xf32>, %t: tensor<5xf32>) {
  // expected-error @below {{'ckpt.mse_loss_grad' op input 'tensor<4xf32>' and target 'tensor<5xf32>' must have the same type}}
  %r = ckpt.mse_loss_grad %g, %x, %t : (tensor<f32>, tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @slice_grad_shape(%dy: tensor<4x3xf32>) {
  // expected-error @below {{'ckpt.slice_grad' op grad has type 'tensor<4x3xf32>' but slicing the result gives 'tensor<4x2xf32>'}}
  %r = ckpt.slice_grad %dy dim = 1 start = 0 end = 4 step = 2 : tensor<4x3xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @softmax_grad_dim(%dy: tensor<4x3xf32>) {
  // expected-error @below {{'ckpt.softmax_grad' op dim 2 is out of range for an input of rank 2}}
  %r = ckpt.softmax_grad %dy, %dy dim = 2 : tensor<4x3xf32>
  return
}

// -----

func.func @advance_backwards(%s: !ckpt.rng) -> !ckpt.rng {
  // expected-error @below {{'ckpt.rng_advance' op counters must be non-negative, got -1}}
  %n = ckpt.rng_advance %s counters = -1
  return %n : !ckpt.rng
}
