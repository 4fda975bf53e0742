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
