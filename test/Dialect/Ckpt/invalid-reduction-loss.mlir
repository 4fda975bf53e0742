// Verifier messages of reductions, embedding and losses.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

func.func @reduce_dim(%x: tensor<2x3xf32>) {
  // expected-error @below {{'ckpt.reduce_sum' op dim 2 is out of range for an input of rank 2}}
  %y = ckpt.reduce_sum %x dims = [2] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_twice(%x: tensor<2x3xf32>) {
  // expected-error @below {{'ckpt.reduce_mean' op dim 1 is reduced twice}}
  %y = ckpt.reduce_mean %x dims = [1, 1] : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_keepdim(%x: tensor<2x3xf32>) {
  // expected-error @below {{'ckpt.reduce_max' op result 0 has type 'tensor<2xf32>' but the operands and attributes give 'tensor<2x1xf32>'}}
  %y = ckpt.reduce_max %x dims = [1] keepdim : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @embedding_weight(%i: tensor<4xi64>, %w: tensor<10xf32>) {
  // expected-error @below {{'ckpt.embedding' op weight must be 2-D [num_embeddings, embedding_dim], got rank 1}}
  %y = ckpt.embedding %i, %w : (tensor<4xi64>, tensor<10xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @embedding_indices(%i: tensor<4xi32>, %w: tensor<10x3xf32>) {
  // expected-error @below {{'ckpt.embedding' op operand #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<4xi32>'}}
  %y = ckpt.embedding %i, %w : (tensor<4xi32>, tensor<10x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @cross_entropy_logits(%l: tensor<2x3x4xf32>, %y: tensor<2xi64>) {
  // expected-error @below {{'ckpt.cross_entropy' op logits must be 2-D [batch, classes], got rank 3}}
  %loss = ckpt.cross_entropy %l, %y : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_labels(%l: tensor<2x4xf32>, %y: tensor<2x1xi64>) {
  // expected-error @below {{'ckpt.cross_entropy' op labels must be 1-D [batch], got rank 2}}
  %loss = ckpt.cross_entropy %l, %y : (tensor<2x4xf32>, tensor<2x1xi64>) -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_batch(%l: tensor<2x4xf32>, %y: tensor<3xi64>) {
  // expected-error @below {{'ckpt.cross_entropy' op batch sizes differ: logits have 2 rows, labels have 3}}
  %loss = ckpt.cross_entropy %l, %y : (tensor<2x4xf32>, tensor<3xi64>) -> tensor<f32>
  return
}

// -----

func.func @loss_not_scalar(%l: tensor<2x4xf32>, %y: tensor<2xi64>) {
  // expected-error @below {{'ckpt.cross_entropy' op result #0 must be 0D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<2xf32>'}}
  %loss = ckpt.cross_entropy %l, %y : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @mse_types(%a: tensor<2x4xf32>, %b: tensor<4x2xf32>) {
  // expected-error @below {{'ckpt.mse_loss' op input 'tensor<2x4xf32>' and target 'tensor<4x2xf32>' must have the same type}}
  %loss = ckpt.mse_loss %a, %b : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<f32>
  return
}

// -----

func.func @embedding_grad_count(%g: tensor<4x3xf32>, %i: tensor<4xi64>) {
  // expected-error @below {{'ckpt.embedding_grad' op num_embeddings must be positive, got -2}}
  %w = ckpt.embedding_grad %g, %i num_embeddings = -2 : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<10x3xf32>
  return
}

// -----

func.func @embedding_grad_shape(%g: tensor<4x3xf32>, %i: tensor<5xi64>) {
  // expected-error @below {{'ckpt.embedding_grad' op grad shape [4, 3] must be the indices shape [5] plus one dimension}}
  %w = ckpt.embedding_grad %g, %i num_embeddings = 10 : (tensor<4x3xf32>, tensor<5xi64>) -> tensor<10x3xf32>
  return
}

// -----

func.func @embedding_padding_row(%i: tensor<4xi64>, %w: tensor<10x8xf32>) {
  // expected-error @below {{'ckpt.embedding' op padding_idx 10 is not a row of the 10-row table}}
  %y = ckpt.embedding %i, %w padding_idx = 10 : (tensor<4xi64>, tensor<10x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @embedding_grad_padding_row(%g: tensor<4x8xf32>, %i: tensor<4xi64>) {
  // expected-error @below {{'ckpt.embedding_grad' op padding_idx -1 is not a row of the 10-row table}}
  %y = ckpt.embedding_grad %g, %i num_embeddings = 10 padding_idx = -1 : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<10x8xf32>
  return
}
