// Marks of an op-level plan that do not fit together are errors at the op,
// and nothing is materialised.
// RUN: ckpt-opt %s --split-input-file --ckpt-insert-recompute -verify-diagnostics
// RUN: ckpt-opt %s --split-input-file --ckpt-plan=strategy=manual -verify-diagnostics

func.func @entry_count(%x: tensor<4xf32>) -> tensor<f32> attributes {ckpt.training_step} {
  // expected-error @below {{'ckpt.recompute_at' is an array with one entry per result: unit (kept) or an array<i64> of the non-negative ids of the sites recomputing it}}
  %t = ckpt.tanh %x {ckpt.recompute_at = [unit, unit]} : tensor<4xf32>
  %l = ckpt.reduce_mean %t : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @negative_id(%x: tensor<4xf32>) -> tensor<f32> attributes {ckpt.training_step} {
  // expected-error @below {{'ckpt.recompute_at' is an array with one entry per result}}
  %t = ckpt.tanh %x {ckpt.recompute_at = [array<i64: -1>]} : tensor<4xf32>
  %l = ckpt.reduce_mean %t : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @on_backward(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ckpt.training_step} {
  %t = ckpt.tanh %x : tensor<4xf32>
  // expected-error @below {{'ckpt.recompute_at' marks forward ops only}}
  %g = ckpt.tanh_grad %x, %t {ckpt.backward, ckpt.recompute_at = [array<i64>]} : tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @sites_on_forward(%x: tensor<4xf32>) -> tensor<f32> attributes {ckpt.training_step} {
  // expected-error @below {{'ckpt.sites' marks backward ops only: sites run during backward}}
  %t = ckpt.tanh %x {ckpt.sites = array<i64: 0>} : tensor<4xf32>
  %l = ckpt.reduce_mean %t : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @sites_not_ids(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ckpt.training_step} {
  %t = ckpt.tanh %x : tensor<4xf32>
  // expected-error @below {{'ckpt.sites' is an array<i64> of non-negative site ids}}
  %g = ckpt.tanh_grad %x, %t {ckpt.backward, ckpt.sites = 0 : i64} : tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @placed_twice(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {ckpt.training_step} {
  %t = ckpt.tanh %x {ckpt.recompute_at = [array<i64: 0>]} : tensor<4xf32>
  %g = ckpt.tanh_grad %x, %t {ckpt.backward, ckpt.sites = array<i64: 0>} : tensor<4xf32>
  // expected-error @below {{'ckpt.tanh_grad' op places recompute site 0, which an earlier backward op places already}}
  %h = ckpt.tanh_grad %g, %t {ckpt.backward, ckpt.sites = array<i64: 0>} : tensor<4xf32>
  return %g, %h : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @missing_site(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ckpt.training_step} {
  // expected-error @below {{'ckpt.tanh' op recomputes result #0 at site 5, which no backward op places}}
  %t = ckpt.tanh %x {ckpt.recompute_at = [array<i64: 5>]} : tensor<4xf32>
  %g = ckpt.tanh_grad %x, %t {ckpt.backward, ckpt.sites = array<i64: 0>} : tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @site_before_value(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ckpt.training_step} {
  %c = arith.constant {ckpt.backward, ckpt.sites = array<i64: 0>} dense<1.0> : tensor<4xf32>
  // expected-error @below {{'ckpt.tanh' op recomputes result #0 at site 0, which runs before the op}}
  %t = ckpt.tanh %x {ckpt.recompute_at = [array<i64: 0>]} : tensor<4xf32>
  %g = ckpt.tanh_grad %c, %t {ckpt.backward} : tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @not_recomputable(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ckpt.training_step} {
  // expected-error @below {{'ckpt.print' op cannot be recomputed: it performs I/O, which must happen exactly once; keep its results (unit in 'ckpt.recompute_at')}}
  ckpt.print %x prefix = "x" {ckpt.recompute_at = []} : tensor<4xf32>
  %t = ckpt.tanh %x : tensor<4xf32>
  %g = ckpt.tanh_grad %x, %t {ckpt.backward} : tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// expected-error @below {{'func.func' op has both checkpoint segments and an op-level plan ('ckpt.recompute_at'); write one of them}}
func.func @both(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ckpt.training_step} {
  %s = ckpt.checkpoint(%in = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %u = ckpt.sigmoid %in : tensor<4xf32>
    ckpt.yield %u : tensor<4xf32>
  }
  %t = ckpt.tanh %s {ckpt.recompute_at = [array<i64: 0>]} : tensor<4xf32>
  %g = ckpt.tanh_grad %x, %t {ckpt.backward, ckpt.sites = array<i64: 0>} : tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @nested(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ckpt.training_step} {
  %s = ckpt.checkpoint(%in = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @below {{'ckpt.recompute_at' marks the top-level ops of a training step only}}
    %u = ckpt.sigmoid %in {ckpt.recompute_at = [array<i64>]} : tensor<4xf32>
    ckpt.yield %u : tensor<4xf32>
  }
  %g = ckpt.tanh_grad %x, %s {ckpt.backward} : tensor<4xf32>
  return %g : tensor<4xf32>
}
