// Diagnostics of ckpt-autodiff.
// RUN: ckpt-opt %s --ckpt-autodiff -split-input-file -verify-diagnostics

// expected-note @below {{while building the training step 'collective_train'}}
func.func @collective(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  // expected-error @below {{'ckpt.all_reduce' op has no gradient rule, but it lies on a path from a parameter to the loss}}
  %r = ckpt.all_reduce %w : tensor<4xf32>
  %l = ckpt.reduce_sum %r : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-note @below {{while building the training step 'scatter_train'}}
func.func @scatter(%w: tensor<6x4xf32> {ckpt.param}, %i: tensor<3xi64>, %s: tensor<3x4xf32>) -> tensor<f32> {
  // expected-error @below {{'ckpt.index_add' op has no gradient rule, but it lies on a path from a parameter to the loss}}
  %y = ckpt.index_add %w, %i, %s dim = 0 deterministic = false : (tensor<6x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<6x4xf32>
  %l = ckpt.reduce_sum %y : tensor<6x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An op off the path from parameters to the loss needs no rule.
func.func @off_path(%w: tensor<4xf32> {ckpt.param}, %x: tensor<4xf32>) -> tensor<f32> {
  %r = ckpt.all_reduce %x : tensor<4xf32>
  ckpt.print %w : tensor<4xf32>
  %m = ckpt.mul %r, %w : tensor<4xf32>
  %l = ckpt.reduce_sum %m : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @implicit_dropout(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  // expected-error @below {{'ckpt.dropout' op draws from the implicit generator, so its mask cannot be drawn again for the gradient; run ckpt-thread-rng first}}
  %d = ckpt.dropout %w p = 5.000000e-01 : tensor<4xf32>
  %l = ckpt.reduce_sum %d : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @statistics(%x: tensor<2x8xf32> {ckpt.param}) -> tensor<f32> {
  // expected-error @below {{'ckpt.layer_norm' op has no gradient rule for uses of its statistics (mean, rstd) on a path to the loss}}
  %y:3 = ckpt.layer_norm %x normalized_shape = [8] : (tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  %l = ckpt.reduce_sum %y#1 : tensor<2x1xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @batch_statistics(%x: tensor<4x2xf32> {ckpt.param}) -> tensor<f32> {
  // expected-error @below {{'ckpt.batch_norm' op has no gradient rule for uses of its statistics (mean, rstd) on a path to the loss}}
  %y:3 = ckpt.batch_norm %x : (tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %l = ckpt.reduce_sum %y#2 : tensor<2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Running statistics are outside autograd: one marked as a parameter gets
// a zero gradient, with the warning of any parameter the loss ignores.
// expected-warning @below {{parameter 1 of 'running_statistics_parameter_train' does not influence the loss; its gradient is zero}}
func.func @running_statistics_parameter(%x: tensor<4x2xf32>, %rm: tensor<2xf32> {ckpt.param}, %rv: tensor<2xf32>) -> tensor<f32> {
  %y:3 = ckpt.batch_norm %x : (tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r:2 = ckpt.batch_norm_update_stats %x, %y#1 running_mean %rm running_var %rv
      : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %l = ckpt.reduce_sum %r#0 : tensor<2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @below {{'func.func' op must return a scalar floating-point loss (e.g. tensor<f32>) as its first result to be differentiated, but returns 'tensor<4xf32>'}}
func.func @not_scalar(%w: tensor<4xf32> {ckpt.param}) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}

// -----

// The loss comes first; other results follow it.
// expected-error @below {{'func.func' op must return a scalar floating-point loss (e.g. tensor<f32>) as its first result to be differentiated, but returns 'tensor<4xf32>', 'tensor<f32>'}}
func.func @loss_second(%w: tensor<4xf32> {ckpt.param}) -> (tensor<4xf32>, tensor<f32>) {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %w, %l : tensor<4xf32>, tensor<f32>
}

// -----

// expected-error @below {{'func.func' op must return a scalar floating-point loss (e.g. tensor<f32>) as its first result to be differentiated, but returns nothing}}
func.func @no_result(%w: tensor<4xf32> {ckpt.param}) {
  return
}

// -----

// expected-error @below {{'func.func' op result 1 must be a ranked tensor to be returned from the training step, but is '!ckpt.rng'}}
func.func @state_result(%w: tensor<4xf32> {ckpt.param}, %rng: !ckpt.rng) -> (tensor<f32>, !ckpt.rng) {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l, %rng : tensor<f32>, !ckpt.rng
}

// -----

// expected-error @below {{'func.func' op cannot build its training step: the symbol 'taken_train' already exists}}
func.func @taken(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @taken_train() {
  return
}

// -----

// expected-error @below {{no function has {ckpt.param} arguments: nothing to differentiate}}
module {
  func.func @no_params(%x: tensor<4xf32>) -> tensor<f32> {
    %l = ckpt.reduce_sum %x : tensor<4xf32> -> tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

// Gradients are built for straight-line code: a loop between blocks ...
// expected-error @below {{'func.func' op has 3 blocks, but ckpt-autodiff needs straight-line code (one block: no branches, loops or unreachable blocks)}}
func.func @loop(%w: tensor<4xf32> {ckpt.param}, %again: i1) -> tensor<f32> {
  cf.br ^bb1(%w : tensor<4xf32>)
^bb1(%a: tensor<4xf32>):
  // expected-note @below {{block 1 begins here}}
  %m = ckpt.mul %a, %a : tensor<4xf32>
  cf.cond_br %again, ^bb1(%m : tensor<4xf32>), ^bb2
^bb2:
  %l = ckpt.reduce_sum %m : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// ... and an unreachable block alike.
// expected-error @below {{'func.func' op has 2 blocks, but ckpt-autodiff needs straight-line code (one block: no branches, loops or unreachable blocks)}}
func.func @unreachable(%w: tensor<4xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.reduce_sum %w : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
^bb1:
  // expected-note @below {{block 1 begins here}}
  %m = ckpt.mul %w, %w : tensor<4xf32>
  %k = ckpt.reduce_sum %m : tensor<4xf32> -> tensor<f32>
  return %k : tensor<f32>
}

// -----

func.func @attention_lse(%q: tensor<1x2x3x4xf32> {ckpt.param}) -> tensor<f32> {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op has no gradient rule for uses of its log-sum-exp on a path to the loss}}
  %o:2 = ckpt.scaled_dot_product_attention %q, %q, %q scale = 0.5
      : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3xf32>)
  %l = ckpt.reduce_sum %o#1 : tensor<1x2x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @attention_mask(%q: tensor<1x2x3x4xf32> {ckpt.param}, %m: tensor<3x3xf32> {ckpt.param}) -> tensor<f32> {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op has no gradient rule for its mask; the mask must not depend on parameters}}
  %o:2 = ckpt.scaled_dot_product_attention %q, %q, %q mask %m scale = 0.5
      : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x3xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3xf32>)
  %l = ckpt.reduce_sum %o#0 : tensor<1x2x3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @attention_implicit(%q: tensor<1x2x3x4xf32> {ckpt.param}) -> tensor<f32> {
  // expected-error @below {{'ckpt.scaled_dot_product_attention' op draws its dropout from the implicit generator, so its mask cannot be drawn again for the gradient; run ckpt-thread-rng first}}
  %o:2 = ckpt.scaled_dot_product_attention %q, %q, %q scale = 0.5 p = 0.5
      : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3xf32>)
  %l = ckpt.reduce_sum %o#0 : tensor<1x2x3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
