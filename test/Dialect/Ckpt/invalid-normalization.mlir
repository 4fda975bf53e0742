// Verifier messages of layer_norm and rms_norm.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

func.func @empty_shape(%x: tensor<2x8xf32>) {
  // expected-error @below {{'ckpt.layer_norm' op normalized_shape must not be empty}}
  %y:3 = ckpt.layer_norm %x normalized_shape = []
      : (tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @too_many_dims(%x: tensor<8xf32>) {
  // expected-error @below {{'ckpt.layer_norm' op normalized_shape [2, 8] has more dimensions than the input (rank 1)}}
  %y:3 = ckpt.layer_norm %x normalized_shape = [2, 8]
      : (tensor<8xf32>) -> (tensor<8xf32>, tensor<1xf32>, tensor<1xf32>)
  return
}

// -----

func.func @trailing_mismatch(%x: tensor<2x8xf32>) {
  // expected-error @below {{'ckpt.layer_norm' op normalized_shape [16] does not match the trailing dimensions [8] of the input}}
  %y:3 = ckpt.layer_norm %x normalized_shape = [16]
      : (tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @non_positive(%x: tensor<2x?xf32>) {
  // expected-error @below {{'ckpt.rms_norm' op normalized_shape [0] must have positive entries}}
  %y:2 = ckpt.rms_norm %x normalized_shape = [0]
      : (tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @negative_eps(%x: tensor<2x8xf32>) {
  // expected-error @below {{'ckpt.layer_norm' op eps must be non-negative, got -1e-05}}
  %y:3 = ckpt.layer_norm %x normalized_shape = [8] eps = -1.0e-5
      : (tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @weight_shape(%x: tensor<2x8xf32>, %w: tensor<4xf32>) {
  // expected-error @below {{'ckpt.layer_norm' op weight and bias must have shape [8], got [4]}}
  %y:3 = ckpt.layer_norm %x weight %w normalized_shape = [8]
      : (tensor<2x8xf32>, tensor<4xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @bias_element_type(%x: tensor<2x8xf32>, %b: tensor<8xbf16>) {
  // expected-error @below {{'ckpt.layer_norm' op weight and bias must have the input's element type 'f32', got 'bf16'}}
  %y:3 = ckpt.layer_norm %x bias %b normalized_shape = [8]
      : (tensor<2x8xf32>, tensor<8xbf16>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @statistics_shape(%x: tensor<2x8xf32>) {
  // expected-error @below {{'ckpt.layer_norm' op result 1 has type 'tensor<2xf32>' but the operands and attributes give 'tensor<2x1xf32>'}}
  %y:3 = ckpt.layer_norm %x normalized_shape = [8]
      : (tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @rms_weight(%x: tensor<2x8xf32>, %w: tensor<2x8xf32>) {
  // expected-error @below {{'ckpt.rms_norm' op weight and bias must have shape [8], got [2, 8]}}
  %y:2 = ckpt.rms_norm %x weight %w normalized_shape = [8]
      : (tensor<2x8xf32>, tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>)
  return
}
