// Verifier messages of elementwise ops, softmax and dropout.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

func.func @broadcast(%a: tensor<4x8xf32>, %b: tensor<3x8xf32>) {
  // expected-error @below {{'ckpt.add' op operand shapes [4, 8] and [3, 8] do not broadcast}}
  %y = ckpt.add %a, %b : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @element_types(%a: tensor<4x8xf32>, %b: tensor<4x8xf64>) {
  // expected-error @below {{'ckpt.div' op operands must share one element type, got 'f32' and 'f64'}}
  %y = ckpt.div %a, %b : (tensor<4x8xf32>, tensor<4x8xf64>) -> tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_result(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @below {{'ckpt.sub' op result 0 has type 'tensor<8xf32>' but the operands and attributes give 'tensor<4x8xf32>'}}
  %y = ckpt.sub %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @integer_operand(%a: tensor<4xi64>) {
  // expected-error @below {{'ckpt.mul' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi64>'}}
  %y = ckpt.mul %a, %a : tensor<4xi64>
  return
}

// -----

func.func @unary_type_change(%a: tensor<4xf32>) {
  // expected-error @below {{'ckpt.exp' op requires the same type for all operands and results}}
  %y = "ckpt.exp"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @rsqrt_of_integers(%a: tensor<4xi32>) {
  // expected-error @below {{'ckpt.rsqrt' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %y = "ckpt.rsqrt"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @gelu_unknown_approximation(%a: tensor<4xf32>) {
  // expected-error @below {{expected string or keyword containing one of the following enum values for attribute 'approximate' [none, tanh]}}
  %y = ckpt.gelu %a approximate = erf : tensor<4xf32>
  return
}

// -----

func.func @where_values(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @below {{'ckpt.where' op true and false values must share one element type, got 'f32' and 'f16'}}
  %y = ckpt.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @where_broadcast(%c: tensor<5xi1>, %a: tensor<4xf32>, %b: tensor<f32>) {
  // expected-error @below {{'ckpt.where' op condition [5], true value [4] and false value [] do not broadcast}}
  %y = ckpt.where %c, %a, %b : (tensor<5xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @where_condition_type(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error @below {{'ckpt.where' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %y = ckpt.where %c, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @softmax_dim(%a: tensor<2x4x8xf32>) {
  // expected-error @below {{'ckpt.softmax' op dim 3 is out of range for an input of rank 3}}
  %y = ckpt.softmax %a dim = 3 : tensor<2x4x8xf32>
  return
}

// -----

func.func @log_softmax_negative_dim(%a: tensor<2x4x8xf32>) {
  // expected-error @below {{'ckpt.log_softmax' op dim -1 is out of range for an input of rank 3}}
  %y = ckpt.log_softmax %a dim = -1 : tensor<2x4x8xf32>
  return
}

// -----

func.func @dropout_above_one(%a: tensor<4xf32>) {
  // expected-error @below {{'ckpt.dropout' op probability p = 1.5 is outside [0, 1]}}
  %y = ckpt.dropout %a p = 1.5 : tensor<4xf32>
  return
}

// -----

func.func @dropout_negative(%a: tensor<4xf32>) {
  // expected-error @below {{'ckpt.dropout' op probability p = -0.25 is outside [0, 1]}}
  %y = ckpt.dropout %a p = -0.25 : tensor<4xf32>
  return
}

// -----

func.func @dropout_nan(%a: tensor<4xf32>) {
  // expected-error @below {{'ckpt.dropout' op probability p = nan is outside [0, 1]}}
  %y = ckpt.dropout %a p = 0x7FF8000000000000 : tensor<4xf32>
  return
}

// -----

func.func @dropout_rng_without_offset(%a: tensor<4xf32>, %r: !ckpt.rng) {
  // expected-error @below {{'ckpt.dropout' op takes an 'rng' state and an 'offset' together}}
  %y = "ckpt.dropout"(%a, %r) <{p = 0.5 : f64}> : (tensor<4xf32>, !ckpt.rng) -> tensor<4xf32>
  return
}

// -----

func.func @dropout_negative_offset(%a: tensor<4xf32>, %r: !ckpt.rng) {
  // expected-error @below {{'ckpt.dropout' op counter offset must be non-negative, got -4}}
  %y = ckpt.dropout %a rng %r offset = -4 p = 0.5 : tensor<4xf32>
  return
}

// -----

func.func @dropout_grad_p(%a: tensor<4xf32>, %r: !ckpt.rng) {
  // expected-error @below {{'ckpt.dropout_grad' op probability p = 2 is outside [0, 1]}}
  %y = ckpt.dropout_grad %a rng %r offset = 0 p = 2.0 : tensor<4xf32>
  return
}

// -----

func.func @cast_to_itself(%a: tensor<4xf32>) {
  // expected-error @below {{'ckpt.cast' op converts 'f32' to itself; a cast changes the element type}}
  %y = ckpt.cast %a : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @cast_shape(%a: tensor<4xf32>) {
  // expected-error @below {{'ckpt.cast' op requires the same shape for all operands and results}}
  %y = ckpt.cast %a : tensor<4xf32> -> tensor<2x2xf64>
  return
}

// -----

func.func @cast_integer(%a: tensor<4xi64>) {
  // expected-error @below {{'ckpt.cast' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi64>'}}
  %y = ckpt.cast %a : tensor<4xi64> -> tensor<4xf32>
  return
}

// -----

func.func @clamp_without_bounds(%a: tensor<4xf32>) {
  // expected-error @below {{'ckpt.clamp' op needs a 'min' or a 'max' bound}}
  %y = ckpt.clamp %a : tensor<4xf32>
  return
}

// -----

func.func @clamp_bounds_reversed(%a: tensor<4xf32>) {
  // expected-error @below {{'ckpt.clamp' op bound min = 2 is above max = 1}}
  %y = ckpt.clamp %a min = 2.0 max = 1.0 : tensor<4xf32>
  return
}

// -----

func.func @clamp_grad_bounds_reversed(%a: tensor<4xf32>) {
  // expected-error @below {{'ckpt.clamp_grad' op bound min = 3 is above max = -3}}
  %y = ckpt.clamp_grad %a, %a min = 3.0 max = -3.0 : tensor<4xf32>
  return
}

// -----

func.func @pow_without_exponent(%a: tensor<4xf32>) {
  // expected-error @below {{expected 'exponent'}}
  %y = ckpt.pow %a : tensor<4xf32>
  return
}
