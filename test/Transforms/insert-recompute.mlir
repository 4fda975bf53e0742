// ckpt-insert-recompute materialises each checkpoint segment: one
// ckpt.recompute region right before the first backward op that reads a
// recomputed value, holding copies of only the ops those values need, with
// the same attributes (the dropout keeps its random state and offset).
// RUN: ckpt-opt %s --ckpt-thread-rng --ckpt-autodiff=keep-forward=false --ckpt-insert-recompute | FileCheck %s

// The second linear's output is not needed by backward, so the region
// clones linear, tanh and dropout only; the segment's output is kept.
// dx = dy W2 reads nothing recomputed, so the region comes after it, right
// before dW2 = dy^T d (dy read transposed through the matmul's flag).
// CHECK-LABEL: func.func @simple_train
// CHECK-SAME:    (%[[X:.+]]: tensor<4x8xf32>, %[[W1:.+]]: tensor<8x8xf32> {ckpt.param}, %[[W2:.+]]: tensor<8x8xf32> {ckpt.param}, %[[RNG:.+]]: !ckpt.rng)
// CHECK:         %[[H:.+]] = ckpt.linear %[[X]], %[[W1]]
// CHECK-NEXT:    %[[T:.+]] = ckpt.tanh %[[H]]
// CHECK-NEXT:    %[[D:.+]] = ckpt.dropout %[[T]] rng %[[RNG]] offset = 0 p = 5.000000e-01
// CHECK-NEXT:    %[[O:.+]] = ckpt.linear %[[D]], %[[W2]]
// CHECK-NEXT:    ckpt.reduce_mean %[[O]]
// CHECK-NOT:     ckpt.checkpoint
// CHECK:         %[[DY:.+]] = ckpt.div
// CHECK-NEXT:    ckpt.matmul %[[DY]], %[[W2]] {ckpt.backward}
// CHECK-NEXT:    %[[R:.+]]:2 = ckpt.recompute(%[[RX:.+]] = %[[X]], %[[RW:.+]] = %[[W1]], %[[RR:.+]] = %[[RNG]]) : (tensor<4x8xf32>, tensor<8x8xf32>, !ckpt.rng) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {ckpt.backward} {
// CHECK-NEXT:      %[[H2:.+]] = ckpt.linear %[[RX]], %[[RW]]
// CHECK-NEXT:      %[[T2:.+]] = ckpt.tanh %[[H2]]
// CHECK-NEXT:      %[[D2:.+]] = ckpt.dropout %[[T2]] rng %[[RR]] offset = 0 p = 5.000000e-01
// CHECK-NEXT:      ckpt.yield %[[T2]], %[[D2]]
// CHECK-NEXT:    }
// CHECK-NEXT:    ckpt.matmul %[[DY]], %[[R]]#1 transpose_lhs {ckpt.backward}
// CHECK:         ckpt.tanh_grad %{{.+}}, %[[R]]#0 {ckpt.backward}
// CHECK-NOT:     {{%}}[[T]]{{[^0-9#]}}
// CHECK-NOT:     {{%}}[[D]]{{[^0-9#]}}
// CHECK:         return
func.func @simple(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32> {ckpt.param},
                  %w2: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  %y = ckpt.checkpoint(%in = %x, %a = %w1, %b = %w2)
      : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    %h = ckpt.linear %in, %a : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %g = ckpt.tanh %h : tensor<4x8xf32>
    %d = ckpt.dropout %g p = 5.000000e-01 : tensor<4x8xf32>
    %o = ckpt.linear %d, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    ckpt.yield %o : tensor<4x8xf32>
  }
  %l = ckpt.reduce_mean %y : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// Nested segments recompute level by level, as nested
// torch.utils.checkpoint does: the outer region brings back the inner
// segment's input and output; the inner region, placed later, recomputes
// the inner intermediate from the outer region's result.
// CHECK-LABEL: func.func @nested_train
// CHECK:         %[[OUT:.+]]:2 = ckpt.recompute(%{{.+}} = %arg0, %{{.+}} = %arg1, %{{.+}} = %arg2)
// CHECK-NEXT:      ckpt.linear
// CHECK-NEXT:      ckpt.tanh
// CHECK-NEXT:      ckpt.linear
// CHECK-NEXT:      ckpt.sigmoid
// CHECK-NEXT:      ckpt.tanh
// CHECK-NEXT:      ckpt.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    ckpt.tanh_grad %{{.+}}, %[[OUT]]#1
// CHECK-NEXT:    %[[IN:.+]] = ckpt.recompute(%{{.+}} = %[[OUT]]#0, %{{.+}} = %arg2) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      ckpt.linear
// CHECK-NEXT:      ckpt.sigmoid
// CHECK-NEXT:      ckpt.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    ckpt.sigmoid_grad %{{.+}}, %[[IN]]
// CHECK:         ckpt.tanh_grad %{{.+}}, %[[OUT]]#0
// CHECK-NOT:     ckpt.recompute
// CHECK:         return
func.func @nested(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32> {ckpt.param},
                  %w2: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  %y = ckpt.checkpoint(%in = %x, %a = %w1, %b = %w2)
      : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    %h = ckpt.linear %in, %a : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %t = ckpt.tanh %h : tensor<4x8xf32>
    %v = ckpt.checkpoint(%i = %t, %c = %b)
        : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
      %u = ckpt.linear %i, %c : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      %s = ckpt.sigmoid %u : tensor<4x8xf32>
      %r = ckpt.tanh %s : tensor<4x8xf32>
      ckpt.yield %r : tensor<4x8xf32>
    }
    %e = ckpt.exp %v : tensor<4x8xf32>
    ckpt.yield %e : tensor<4x8xf32>
  }
  %l = ckpt.reduce_mean %y : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// One segment's output feeds two later segments: it is their input, so it
// is kept, and both later regions start from it.
// CHECK-LABEL: func.func @shared_output_train
// CHECK:         %[[A:.+]] = ckpt.gelu
// CHECK:         ckpt.recompute(%{{.+}} = %[[A]], %{{.+}} = %arg3)
// CHECK-NEXT:      ckpt.linear
// CHECK-NEXT:      ckpt.yield
// CHECK:         ckpt.recompute(%{{.+}} = %[[A]], %{{.+}} = %arg2)
// CHECK-NEXT:      ckpt.linear
// CHECK-NEXT:      ckpt.yield
// CHECK:         ckpt.recompute(%{{.+}} = %arg0, %{{.+}} = %arg1)
// CHECK-NEXT:      ckpt.linear
// CHECK-NEXT:      ckpt.yield
// CHECK-NOT:     ckpt.recompute
// CHECK:         return
func.func @shared_output(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32> {ckpt.param},
                         %w2: tensor<8x8xf32> {ckpt.param},
                         %w3: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  %a = ckpt.checkpoint(%in = %x, %w = %w1)
      : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    %h = ckpt.linear %in, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %g = ckpt.gelu %h : tensor<4x8xf32>
    ckpt.yield %g : tensor<4x8xf32>
  }
  %b = ckpt.checkpoint(%in = %a, %w = %w2)
      : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    %h = ckpt.linear %in, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %g = ckpt.gelu %h : tensor<4x8xf32>
    ckpt.yield %g : tensor<4x8xf32>
  }
  %c = ckpt.checkpoint(%in = %a, %w = %w3)
      : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    %h = ckpt.linear %in, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %g = ckpt.gelu %h : tensor<4x8xf32>
    ckpt.yield %g : tensor<4x8xf32>
  }
  %s = ckpt.add %b, %c : tensor<4x8xf32>
  %l = ckpt.reduce_mean %s : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// A segment that ends in the loss: the loss is returned, so it is kept;
// the values its gradient reads are recomputed.
// CHECK-LABEL: func.func @loss_in_segment_train
// CHECK:         %[[LOSS:.+]] = ckpt.mse_loss
// CHECK:         %[[R:.+]]:2 = ckpt.recompute(%{{.+}} = %arg0, %{{.+}} = %arg2) : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT:      %[[H:.+]] = ckpt.linear
// CHECK-NEXT:      %[[G:.+]] = ckpt.gelu %[[H]]
// CHECK-NEXT:      ckpt.yield %[[H]], %[[G]]
// CHECK-NEXT:    }
// CHECK-NEXT:    ckpt.mse_loss_grad %{{.+}}, %[[R]]#1, %arg1
// CHECK:         ckpt.gelu_grad %{{.+}}, %[[R]]#0
// CHECK:         return %[[LOSS]],
func.func @loss_in_segment(%x: tensor<4x8xf32>, %target: tensor<4x8xf32>,
                           %w: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  %l = ckpt.checkpoint(%in = %x, %t = %target, %a = %w)
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<f32> {
    %h = ckpt.linear %in, %a : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %g = ckpt.gelu %h : tensor<4x8xf32>
    %loss = ckpt.mse_loss %g, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
    ckpt.yield %loss : tensor<f32>
  }
  return %l : tensor<f32>
}

// A user can keep a result inside a segment with {ckpt.keep}: the region
// starts from it and recomputes only the GELU; the mark is gone afterwards.
// CHECK-LABEL: func.func @kept_inside_train
// CHECK:         %[[H:.+]] = ckpt.linear %arg0, %arg1 :
// CHECK-NOT:     ckpt.keep
// CHECK:         %[[R:.+]] = ckpt.recompute(%[[IN:.+]] = %[[H]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:      ckpt.gelu %[[IN]]
// CHECK-NEXT:      ckpt.yield
// CHECK-NEXT:    }
// CHECK:         return
func.func @kept_inside(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32> {ckpt.param},
                       %w2: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  %y = ckpt.checkpoint(%in = %x, %a = %w1, %b = %w2)
      : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    %h = ckpt.linear %in, %a {ckpt.keep} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %g = ckpt.gelu %h : tensor<4x8xf32>
    %o = ckpt.linear %g, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    ckpt.yield %o : tensor<4x8xf32>
  }
  %l = ckpt.reduce_mean %y : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
