// Verifier messages of linear and matmul.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

func.func @linear_features(%x: tensor<4x8xf32>, %w: tensor<16x9xf32>) {
  // expected-error @below {{'ckpt.linear' op input features (8) do not match weight columns (9)}}
  %y = ckpt.linear %x, %w : (tensor<4x8xf32>, tensor<16x9xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @linear_weight_rank(%x: tensor<4x8xf32>, %w: tensor<2x16x8xf32>) {
  // expected-error @below {{'ckpt.linear' op weight must be 2-D [out_features, in_features], got rank 3}}
  %y = ckpt.linear %x, %w : (tensor<4x8xf32>, tensor<2x16x8xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @linear_scalar_input(%x: tensor<f32>, %w: tensor<16x8xf32>) {
  // expected-error @below {{'ckpt.linear' op input must have rank >= 1}}
  %y = ckpt.linear %x, %w : (tensor<f32>, tensor<16x8xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @linear_bias(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<15xf32>) {
  // expected-error @below {{'ckpt.linear' op bias must be 1-D with 16 elements (weight rows), got [15]}}
  %y = ckpt.linear %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<15xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @linear_element_types(%x: tensor<4x8xf32>, %w: tensor<16x8xf16>) {
  // expected-error @below {{'ckpt.linear' op input, weight and bias must share one element type, got 'f32' and 'f16'}}
  %y = ckpt.linear %x, %w : (tensor<4x8xf32>, tensor<16x8xf16>) -> tensor<4x16xf32>
  return
}

// -----

func.func @linear_result(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) {
  // expected-error @below {{'ckpt.linear' op result 0 has type 'tensor<4x15xf32>' but the operands and attributes give 'tensor<4x16xf32>'}}
  %y = ckpt.linear %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x15xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @below {{'ckpt.matmul' op operands must have rank >= 2, got ranks 1 and 2}}
  %y = ckpt.matmul %a, %b : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<3x8xf32>, %b: tensor<7x4xf32>) {
  // expected-error @below {{'ckpt.matmul' op contraction sizes differ: lhs has K = 8, rhs has K = 7}}
  %y = ckpt.matmul %a, %b : (tensor<3x8xf32>, tensor<7x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

// Read transposed, lhs [8, 3] has K = 8 and rhs [4, 7] has K = 7.
func.func @matmul_transposed_contraction(%a: tensor<8x3xf32>, %b: tensor<4x7xf32>) {
  // expected-error @below {{'ckpt.matmul' op contraction sizes differ: lhs has K = 8, rhs has K = 7}}
  %y = ckpt.matmul %a, %b transpose_lhs transpose_rhs : (tensor<8x3xf32>, tensor<4x7xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @matmul_transposed_result(%a: tensor<8x3xf32>, %b: tensor<8x4xf32>) {
  // expected-error @below {{'ckpt.matmul' op result 0 has type 'tensor<8x4xf32>' but the operands and attributes give 'tensor<3x4xf32>'}}
  %y = ckpt.matmul %a, %b transpose_lhs : (tensor<8x3xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x3x8xf32>, %b: tensor<5x8x4xf32>) {
  // expected-error @below {{'ckpt.matmul' op batch dimensions [2] and [5] do not broadcast}}
  %y = ckpt.matmul %a, %b : (tensor<2x3x8xf32>, tensor<5x8x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<3x8xbf16>, %b: tensor<8x4xf32>) {
  // expected-error @below {{'ckpt.matmul' op operands must share one element type, got 'bf16' and 'f32'}}
  %y = ckpt.matmul %a, %b : (tensor<3x8xbf16>, tensor<8x4xf32>) -> tensor<3x4xf32>
  return
}
