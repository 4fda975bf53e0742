// Verifier messages of scaled_dot_product_attention and its gradient.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

func.func @rank(%q: tensor<4x5x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x3xf32>) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op query must have rank 4 [batch, heads, sequence, features], got shape [4, 5, 8]}}
  %0:2 = ckpt.scaled_dot_product_attention %q, %k, %v scale = 1.0
      : (tensor<4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x3xf32>) -> (tensor<2x4x5x3xf32>, tensor<2x4x5xf32>)
  return
}

// -----

func.func @heads(%q: tensor<2x3x5x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x3xf32>) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op query heads (3) must be a multiple of key heads (2)}}
  %0:2 = ckpt.scaled_dot_product_attention %q, %k, %v scale = 1.0
      : (tensor<2x3x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x3xf32>) -> (tensor<2x3x5x3xf32>, tensor<2x3x5xf32>)
  return
}

// -----

func.func @features(%q: tensor<2x4x5x7xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x3xf32>) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op query and key have different feature sizes (7 and 8)}}
  %0:2 = ckpt.scaled_dot_product_attention %q, %k, %v scale = 1.0
      : (tensor<2x4x5x7xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x3xf32>) -> (tensor<2x4x5x3xf32>, tensor<2x4x5xf32>)
  return
}

// -----

func.func @sequence(%q: tensor<2x4x5x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x7x3xf32>) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op key and value have different sequence lengths (6 and 7)}}
  %0:2 = ckpt.scaled_dot_product_attention %q, %k, %v scale = 1.0
      : (tensor<2x4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x7x3xf32>) -> (tensor<2x4x5x3xf32>, tensor<2x4x5xf32>)
  return
}

// -----

func.func @batch(%q: tensor<2x4x5x8xf32>, %k: tensor<3x2x6x8xf32>, %v: tensor<3x2x6x3xf32>) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op query, key and value have different batch sizes (2 and 3)}}
  %0:2 = ckpt.scaled_dot_product_attention %q, %k, %v scale = 1.0
      : (tensor<2x4x5x8xf32>, tensor<3x2x6x8xf32>, tensor<3x2x6x3xf32>) -> (tensor<2x4x5x3xf32>, tensor<2x4x5xf32>)
  return
}

// -----

func.func @key_heads(%q: tensor<2x4x5x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x1x6x3xf32>) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op key and value have different head counts (2 and 1)}}
  %0:2 = ckpt.scaled_dot_product_attention %q, %k, %v scale = 1.0
      : (tensor<2x4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x1x6x3xf32>) -> (tensor<2x4x5x3xf32>, tensor<2x4x5xf32>)
  return
}

// -----

func.func @element(%q: tensor<2x4x5x8xf32>, %k: tensor<2x2x6x8xf64>, %v: tensor<2x2x6x3xf32>) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op query, key, value and mask must share one element type, got 'f32' and 'f64'}}
  %0:2 = ckpt.scaled_dot_product_attention %q, %k, %v scale = 1.0
      : (tensor<2x4x5x8xf32>, tensor<2x2x6x8xf64>, tensor<2x2x6x3xf32>) -> (tensor<2x4x5x3xf32>, tensor<2x4x5xf32>)
  return
}

// -----

func.func @mask_shape(%q: tensor<2x4x5x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x3xf32>, %m: tensor<5x5xf32>) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op mask of shape [5, 5] does not broadcast to the scores' shape [2, 4, 5, 6]}}
  %0:2 = ckpt.scaled_dot_product_attention %q, %k, %v mask %m scale = 1.0
      : (tensor<2x4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x3xf32>, tensor<5x5xf32>) -> (tensor<2x4x5x3xf32>, tensor<2x4x5xf32>)
  return
}

// -----

func.func @mask_and_causal(%q: tensor<2x4x5x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x3xf32>, %m: tensor<5x6xf32>) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op takes a mask or 'causal', not both}}
  %0:2 = ckpt.scaled_dot_product_attention %q, %k, %v mask %m causal scale = 1.0
      : (tensor<2x4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x3xf32>, tensor<5x6xf32>) -> (tensor<2x4x5x3xf32>, tensor<2x4x5xf32>)
  return
}

// -----

func.func @result(%q: tensor<2x4x5x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x3xf32>) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op result 1 has type 'tensor<2x4x5x1xf32>' but the operands and attributes give 'tensor<2x4x5xf32>'}}
  %0:2 = ckpt.scaled_dot_product_attention %q, %k, %v scale = 1.0
      : (tensor<2x4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x3xf32>) -> (tensor<2x4x5x3xf32>, tensor<2x4x5x1xf32>)
  return
}

// -----

func.func @probability(%q: tensor<2x4x5x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x3xf32>) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op dropout probability p = 1 is outside [0, 1)}}
  %0:2 = ckpt.scaled_dot_product_attention %q, %k, %v scale = 1.0 p = 1.0
      : (tensor<2x4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x3xf32>) -> (tensor<2x4x5x3xf32>, tensor<2x4x5xf32>)
  return
}

// -----

func.func @offset(%q: tensor<2x4x5x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x3xf32>, %s: !ckpt.rng) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op counter offset must be non-negative, got -4}}
  %0:2 = ckpt.scaled_dot_product_attention %q, %k, %v rng %s offset = -4 scale = 1.0 p = 0.5
      : (tensor<2x4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x3xf32>, !ckpt.rng) -> (tensor<2x4x5x3xf32>, tensor<2x4x5xf32>)
  return
}

// -----

func.func @grad_without_state(%q: tensor<2x4x5x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x3xf32>,
                              %o: tensor<2x4x5x3xf32>, %lse: tensor<2x4x5xf32>) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention_grad' op drops attention weights (p = 0.5) and needs the forward op's 'rng' state to draw them again}}
  %0:3 = ckpt.scaled_dot_product_attention_grad %o, %q, %k, %v, %o, %lse scale = 1.0 p = 0.5
      : (tensor<2x4x5x3xf32>, tensor<2x4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x3xf32>, tensor<2x4x5x3xf32>, tensor<2x4x5xf32>)
      -> (tensor<2x4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x3xf32>)
  return
}

// -----

func.func @grad_lse(%q: tensor<2x4x5x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x3xf32>,
                    %o: tensor<2x4x5x3xf32>, %lse: tensor<2x4x5x1xf32>) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention_grad' op lse has type 'tensor<2x4x5x1xf32>' but the forward op gives 'tensor<2x4x5xf32>'}}
  %0:3 = ckpt.scaled_dot_product_attention_grad %o, %q, %k, %v, %o, %lse scale = 1.0
      : (tensor<2x4x5x3xf32>, tensor<2x4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x3xf32>, tensor<2x4x5x3xf32>, tensor<2x4x5x1xf32>)
      -> (tensor<2x4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x3xf32>)
  return
}

// -----

func.func @rng_without_offset(%q: tensor<2x4x5x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x3xf32>, %s: !ckpt.rng) {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op takes an 'rng' state and an 'offset' together}}
  %0:2 = "ckpt.scaled_dot_product_attention"(%q, %k, %v, %s) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, scale = 1.0 : f64, p = 0.5 : f64}>
      : (tensor<2x4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x3xf32>, !ckpt.rng) -> (tensor<2x4x5x3xf32>, tensor<2x4x5xf32>)
  return
}
