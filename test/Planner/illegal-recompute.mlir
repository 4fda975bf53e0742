// Every op in a user's checkpoint segment runs again during backward, so
// each one that cannot is an error at the op with a note at its segment:
// I/O, collectives, nondeterministic accumulation, writes to memory the op
// does not own, calls with unknown effects and implicit randomness. The
// planner (strategy manual) and insert-recompute apply the same rule.
// RUN: ckpt-opt %s --split-input-file --ckpt-autodiff --ckpt-plan=strategy=manual -verify-diagnostics
// RUN: ckpt-opt %s --split-input-file --ckpt-autodiff --ckpt-insert-recompute -verify-diagnostics

func.func @print(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  // expected-note @below {{in this checkpoint segment, whose ops run again during backward}}
  %y = ckpt.checkpoint(%in = %x, %a = %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    %h = ckpt.linear %in, %a : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    // expected-error @below {{'ckpt.print' op cannot be recomputed: it performs I/O, which must happen exactly once; move it out of the checkpoint segment}}
    ckpt.print %h prefix = "hidden" : tensor<4x8xf32>
    %g = ckpt.gelu %h : tensor<4x8xf32>
    ckpt.yield %g : tensor<4x8xf32>
  }
  %l = ckpt.reduce_mean %y : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @all_reduce(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  // expected-note @below {{in this checkpoint segment}}
  %y = ckpt.checkpoint(%in = %x, %a = %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    // expected-error @below {{'ckpt.all_reduce' op cannot be recomputed: it is a collective: every rank must issue it the same number of times}}
    %r = ckpt.all_reduce %in reduction = mean : tensor<4x8xf32>
    %h = ckpt.linear %r, %a : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %g = ckpt.gelu %h : tensor<4x8xf32>
    ckpt.yield %g : tensor<4x8xf32>
  }
  %l = ckpt.reduce_mean %y : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @index_add(%x: tensor<4x8xf32>, %idx: tensor<2xi64>, %rows: tensor<2x8xf32>,
                     %w: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  // expected-note @below {{in this checkpoint segment}}
  %y = ckpt.checkpoint(%in = %x, %i = %idx, %r = %rows, %a = %w)
      : (tensor<4x8xf32>, tensor<2xi64>, tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    // expected-error @below {{'ckpt.index_add' op cannot be recomputed: it is not deterministic: a second run may round differently}}
    %acc = ckpt.index_add %in, %i, %r dim = 0 deterministic = false
        : (tensor<4x8xf32>, tensor<2xi64>, tensor<2x8xf32>) -> tensor<4x8xf32>
    %h = ckpt.linear %acc, %a : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %g = ckpt.gelu %h : tensor<4x8xf32>
    ckpt.yield %g : tensor<4x8xf32>
  }
  %l = ckpt.reduce_mean %y : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

memref.global "private" @stats : memref<4x8xf32>

func.func @store_to_global(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  // expected-note @below {{in this checkpoint segment}}
  %y = ckpt.checkpoint(%in = %x, %a = %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    %h = ckpt.linear %in, %a : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %c0 = arith.constant 0 : index
    %first = tensor.extract %h[%c0, %c0] : tensor<4x8xf32>
    %stats = memref.get_global @stats : memref<4x8xf32>
    // expected-error @below {{'memref.store' op cannot be recomputed: it writes memory (<Default>) that it does not own}}
    memref.store %first, %stats[%c0, %c0] : memref<4x8xf32>
    %g = ckpt.gelu %h : tensor<4x8xf32>
    ckpt.yield %g : tensor<4x8xf32>
  }
  %l = ckpt.reduce_mean %y : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func private @log_stats(tensor<4x8xf32>)

func.func @unknown_call(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  // expected-note @below {{in this checkpoint segment}}
  %y = ckpt.checkpoint(%in = %x, %a = %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    %h = ckpt.linear %in, %a : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    // expected-error @below {{'func.call' op cannot be recomputed: it has unknown side effects}}
    func.call @log_stats(%h) : (tensor<4x8xf32>) -> ()
    %g = ckpt.gelu %h : tensor<4x8xf32>
    ckpt.yield %g : tensor<4x8xf32>
  }
  %l = ckpt.reduce_mean %y : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Without ckpt-thread-rng, dropout draws from the implicit generator and
// could not draw the same mask again.
func.func @implicit_dropout(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  // expected-note @below {{in this checkpoint segment}}
  %y = ckpt.checkpoint(%in = %x, %a = %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    // expected-error @below {{'ckpt.dropout' op cannot be recomputed: it draws from the implicit random generator (run --ckpt-thread-rng to give it explicit random state)}}
    %d = ckpt.dropout %in p = 1.000000e-01 : tensor<4x8xf32>
    %h = ckpt.linear %d, %a : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %g = ckpt.gelu %h : tensor<4x8xf32>
    ckpt.yield %g : tensor<4x8xf32>
  }
  %l = ckpt.reduce_mean %y : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A nested segment's illegal op is reported once, noted at the innermost
// segment.
func.func @nested(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  %y = ckpt.checkpoint(%in = %x, %a = %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    %h = ckpt.linear %in, %a : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    // expected-note @below {{in this checkpoint segment}}
    %g = ckpt.checkpoint(%i = %h) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
      // expected-error @below {{'ckpt.print' op cannot be recomputed}}
      ckpt.print %i : tensor<4x8xf32>
      %t = ckpt.gelu %i : tensor<4x8xf32>
      ckpt.yield %t : tensor<4x8xf32>
    }
    ckpt.yield %g : tensor<4x8xf32>
  }
  %l = ckpt.reduce_mean %y : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
