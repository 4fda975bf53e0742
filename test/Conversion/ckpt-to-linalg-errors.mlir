// Ops the CPU lowering does not handle are reported at their location.
// RUN: ckpt-opt %s --ckpt-to-linalg -split-input-file -verify-diagnostics

func.func @print(%x: tensor<4xf32>) {
  // expected-error @below {{failed to legalize operation 'ckpt.print' that was explicitly marked illegal}}
  ckpt.print %x : tensor<4xf32>
  return
}

// -----

// Dropout from the implicit generator has no counters to draw from.
func.func @implicit_dropout(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{failed to legalize operation 'ckpt.dropout' that was explicitly marked illegal}}
  %y = ckpt.dropout %x p = 0.5 : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// p = 0 is the identity and needs no random numbers.
func.func @no_dropout(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ckpt.dropout %x p = 0.0 : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// The vision lowerings size their loops and views from static shapes.
func.func @dynamic_conv(%x: tensor<2x?x8x8xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<2x8x6x6xf32> {
  // expected-error @below {{failed to legalize operation 'ckpt.conv2d' that was explicitly marked illegal}}
  %y = ckpt.conv2d %x, %w groups = 2 : (tensor<2x?x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<2x8x6x6xf32>
  return %y : tensor<2x8x6x6xf32>
}

// -----

// Ops whose lowering does not yet compute 16-bit floats in f32 refuse them
// rather than sum in 16 bits.
func.func @half_layer_norm(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  // expected-error @below {{'ckpt.layer_norm' on 'tensor<4x8xbf16>' does not lower yet: f32 accumulation is not built for it; cast its operands to f32 (ckpt.cast) around it}}
  %y:3 = ckpt.layer_norm %x normalized_shape = [8] : (tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x1xbf16>, tensor<4x1xbf16>)
  return %y#0 : tensor<4x8xbf16>
}

// -----

// The maximum is exact in any type, but its gradient counts ties in a sum.
func.func @half_max(%x: tensor<4x8xf16>) -> tensor<4xf16> {
  // expected-error @below {{'ckpt.reduce_max' on 'tensor<4x8xf16>' does not lower yet}}
  %m = ckpt.reduce_max %x dims = [1] : tensor<4x8xf16> -> tensor<4xf16>
  return %m : tensor<4xf16>
}
