// Verifier and parser messages of checkpoint and recompute segments.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

func.func @yield_count(%x: tensor<4xf32>) {
  %y = ckpt.checkpoint(%in = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @below {{'ckpt.yield' op yields 2 values but the enclosing checkpoint has 1 results}}
    ckpt.yield %in, %in : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

func.func @yield_type(%x: tensor<4xf32>) {
  %y = ckpt.checkpoint(%in = %x) : (tensor<4xf32>) -> tensor<4xf16> {
    // expected-error @below {{'ckpt.yield' op value 0 has type 'tensor<4xf32>' but checkpoint result 0 has type 'tensor<4xf16>'}}
    ckpt.yield %in : tensor<4xf32>
  }
  return
}

// -----

func.func @argument_count(%x: tensor<4xf32>) {
  // expected-error @below {{'ckpt.checkpoint' op body has 0 arguments but the op has 1 inputs}}
  "ckpt.checkpoint"(%x) ({
    "ckpt.yield"() : () -> ()
  }) : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @argument_type(%x: tensor<4xf32>) {
  // expected-error @below {{'ckpt.checkpoint' op body argument 0 has type 'tensor<4xf16>' but input 0 has type 'tensor<4xf32>'}}
  %y = "ckpt.checkpoint"(%x) ({
  ^bb0(%in: tensor<4xf16>):
    "ckpt.yield"(%in) : (tensor<4xf16>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

// The segment's inputs must be passed in: the region is isolated from above.
func.func @captured_value(%x: tensor<4xf32>, %w: tensor<4xf32>) {
  // expected-note @below {{required by region isolation constraints}}
  %y = ckpt.checkpoint(%in = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @below {{'ckpt.add' op using value defined outside the region}}
    %s = ckpt.add %in, %w : tensor<4xf32>
    ckpt.yield %s : tensor<4xf32>
  }
  return
}

// -----

func.func @wrong_terminator(%x: tensor<4xf32>) {
  // expected-error @below {{'ckpt.checkpoint' op body must end with 'ckpt.yield'}}
  %y = "ckpt.checkpoint"(%x) ({
  ^bb0(%in: tensor<4xf32>):
    "llvm.unreachable"() : () -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @yield_outside(%x: tensor<4xf32>) {
  // expected-error @below {{'ckpt.yield' op expects parent op to be one of 'ckpt.checkpoint, ckpt.recompute, ckpt.fused_pointwise'}}
  ckpt.yield %x : tensor<4xf32>
}

// -----

func.func @signature_arity(%x: tensor<4xf32>, %w: tensor<4xf32>) {
  // expected-error @below {{expected 2 input types, got 1}}
  %y = ckpt.checkpoint(%in = %x, %win = %w) : (tensor<4xf32>) -> tensor<4xf32> {
    ckpt.yield %in : tensor<4xf32>
  }
  return
}

// -----

// Recompute regions share the checkpoint's checks and name themselves.
func.func @recompute_yield_count(%x: tensor<4xf32>) {
  %y = ckpt.recompute(%in = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @below {{'ckpt.yield' op yields 0 values but the enclosing recompute has 1 results}}
    ckpt.yield
  }
  return
}

// -----

func.func @recompute_yield_type(%x: tensor<4xf32>) {
  %y = ckpt.recompute(%in = %x) : (tensor<4xf32>) -> tensor<4xf16> {
    // expected-error @below {{'ckpt.yield' op value 0 has type 'tensor<4xf32>' but recompute result 0 has type 'tensor<4xf16>'}}
    ckpt.yield %in : tensor<4xf32>
  }
  return
}

// -----

func.func @recompute_argument_count(%x: tensor<4xf32>) {
  // expected-error @below {{'ckpt.recompute' op body has 0 arguments but the op has 1 inputs}}
  "ckpt.recompute"(%x) ({
    "ckpt.yield"() : () -> ()
  }) : (tensor<4xf32>) -> ()
  return
}

// -----

// A segment is straight-line code: one block ...
func.func @segment_blocks(%x: tensor<4xf32>) {
  // expected-error @below {{'ckpt.checkpoint' op expects region #0 to have 0 or 1 blocks}}
  %y = "ckpt.checkpoint"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    "ckpt.yield"(%a) : (tensor<4xf32>) -> ()
  ^bb1(%b: tensor<4xf32>):
    "ckpt.yield"(%b) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// ... in which a value cannot feed itself.
func.func @segment_cycle(%x: tensor<4xf32>) {
  %y = ckpt.checkpoint(%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @below {{operand #0 does not dominate this use}}
    // expected-note @below {{operand defined here (op in the same block)}}
    %m = ckpt.mul %m, %a : tensor<4xf32>
    ckpt.yield %m : tensor<4xf32>
  }
  return
}

// -----

// A fused pointwise chain holds pointwise ops only ...
func.func @fused_not_pointwise(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = ckpt.fused_pointwise(%a = %x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @below {{'ckpt.softmax' op is not pointwise; a fused_pointwise body holds pointwise ops only}}
    %s = ckpt.softmax %a dim = 1 : tensor<4x8xf32>
    ckpt.yield %s : tensor<4x8xf32>
  }
  return %y : tensor<4x8xf32>
}

// -----

// ... each of the result's shape: its inputs broadcast, its values do not.
func.func @fused_broadcast_value(%x: tensor<8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %z = ckpt.fused_pointwise(%a = %x, %b = %y) : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @below {{'ckpt.exp' op has result shape [8] but the fused_pointwise result has shape [4, 8]: body values are never broadcast}}
    %e = ckpt.exp %a : tensor<8xf32>
    %s = ckpt.add %b, %e : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ckpt.yield %s : tensor<4x8xf32>
  }
  return %z : tensor<4x8xf32>
}

// -----

// Its yield gives its one result.
func.func @fused_yield_type(%x: tensor<4x8xf32>) -> tensor<4x8xf64> {
  %y = ckpt.fused_pointwise(%a = %x) : (tensor<4x8xf32>) -> tensor<4x8xf64> {
    %e = ckpt.exp %a : tensor<4x8xf32>
    // expected-error @below {{'ckpt.yield' op value 0 has type 'tensor<4x8xf32>' but fused_pointwise result 0 has type 'tensor<4x8xf64>'}}
    ckpt.yield %e : tensor<4x8xf32>
  }
  return %y : tensor<4x8xf64>
}
