// Messages about the dialect's discardable attributes.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{'ckpt.param' on argument 1 of type 'tensor<4xi64>': parameters must be floating-point tensors}}
func.func @integer_param(%x: tensor<4xf32> {ckpt.param}, %i: tensor<4xi64> {ckpt.param}) {
  return
}

// -----

// expected-error @below {{'ckpt.param' on argument 0 of type 'f32': parameters must be floating-point tensors}}
func.func @scalar_param(%x: f32 {ckpt.param}) {
  return
}

// -----

// expected-error @below {{'ckpt.param' is a unit attribute and takes no value}}
func.func @param_value(%x: tensor<4xf32> {ckpt.param = true}) {
  return
}

// -----

// expected-error @below {{unknown ckpt argument attribute 'ckpt.parm'}}
func.func @misspelled(%x: tensor<4xf32> {ckpt.parm}) {
  return
}

// -----

func.func @param_on_op(%x: tensor<4xf32>) {
  // expected-error @below {{'ckpt.param' belongs on function arguments, not on ops}}
  %y = ckpt.neg %x {ckpt.param} : tensor<4xf32>
  return
}

// -----

func.func @unknown_op_attribute(%x: tensor<4xf32>) {
  // expected-error @below {{unknown ckpt attribute 'ckpt.recompute'}}
  %y = ckpt.neg %x {ckpt.recompute} : tensor<4xf32>
  return
}

// -----

// expected-error @below {{'ckpt.rng_counters' is a non-negative i64 on functions}}
func.func @negative_counters() attributes {ckpt.rng_counters = -1 : i64} {
  return
}

// -----

// expected-error @below {{'ckpt.plan' is a string on training steps}}
func.func @plan_not_string() attributes {ckpt.plan = 3 : i64} {
  return
}

// -----

// expected-error @below {{'ckpt.budget' is a positive i64 (bytes) on training steps}}
func.func @budget_not_positive() attributes {ckpt.budget = 0 : i64} {
  return
}

// -----

// expected-error @below {{'ckpt.budget' is a positive i64 (bytes) on training steps}}
func.func @budget_not_integer() attributes {ckpt.budget = "1GiB"} {
  return
}

// -----

// expected-error @below {{'ckpt.microbatches_in_flight' is an i64 of at least 2 on training steps}}
func.func @one_microbatch_in_flight() attributes {ckpt.microbatches_in_flight = 1 : i64} {
  return
}

// -----

func.func @microbatches_on_op(%x: tensor<4xf32>) {
  // expected-error @below {{'ckpt.microbatches_in_flight' is an i64 of at least 2 on training steps}}
  %y = ckpt.neg %x {ckpt.microbatches_in_flight = 4 : i64} : tensor<4xf32>
  return
}

// -----

func.func @plan_on_op(%x: tensor<4xf32>) {
  // expected-error @below {{'ckpt.plan' is a string on training steps}}
  %y = ckpt.neg %x {ckpt.plan = "none"} : tensor<4xf32>
  return
}

// -----

func.func @keep_outside_segment(%x: tensor<4xf32>) {
  // expected-error @below {{'ckpt.keep' marks ops inside checkpoint segments only}}
  %y = ckpt.neg %x {ckpt.keep} : tensor<4xf32>
  return
}

// -----

func.func @training_step_on_op(%x: tensor<4xf32>) {
  // expected-error @below {{'ckpt.training_step' marks functions only}}
  %y = ckpt.neg %x {ckpt.training_step} : tensor<4xf32>
  return
}

// -----

func.func @backward_value(%x: tensor<4xf32>) {
  // expected-error @below {{'ckpt.backward' is a unit attribute and takes no value}}
  %y = ckpt.neg %x {ckpt.backward = 1 : i64} : tensor<4xf32>
  return
}

// -----

// expected-error @below {{'ckpt.torch_calls' is a dictionary on modules}}
func.func @torch_calls_on_function() attributes {ckpt.torch_calls = {}} {
  return
}

// -----

// expected-error @below {{'ckpt.torch_calls' is a dictionary on modules}}
module attributes {ckpt.torch_calls = ["aten.mm.default"]} {
}
