// The plan is written as checkpoint segments on the training step; each
// strategy records itself as ckpt.plan.
// RUN: ckpt-opt %s --ckpt-autodiff=keep-forward=false --ckpt-plan=strategy=none | FileCheck %s --check-prefix=NONE
// RUN: ckpt-opt %s --ckpt-autodiff=keep-forward=false --ckpt-plan | FileCheck %s --check-prefix=MANUAL
// RUN: ckpt-opt %s --ckpt-autodiff=keep-forward=false --ckpt-plan="strategy=uniform remarks=1" -verify-diagnostics | FileCheck %s --check-prefix=UNIFORM
// RUN: ckpt-opt %s --ckpt-autodiff=keep-forward=false --ckpt-plan="strategy=uniform stages-per-segment=2" | FileCheck %s --check-prefix=PAIRS

// none: the user's segment is gone and its ops stay in place.
// NONE-LABEL: func.func @chain_train
// NONE-SAME:    ckpt.plan = "none"
// NONE-NOT:     ckpt.checkpoint
// NONE:         return

// manual: the user's segment is the plan.
// MANUAL-LABEL: func.func @chain_train
// MANUAL-SAME:    ckpt.plan = "manual"
// MANUAL-COUNT-1: ckpt.checkpoint
// MANUAL-NOT:     ckpt.checkpoint
// MANUAL:         return

// uniform: the stages are the three blocks (only the residual stream
// crosses between them) and the loss; each becomes a segment whose input is
// the previous block's output, replacing the user's segment. The print in
// block 2 cannot be recomputed, so it stays between two segments of that
// block.
// UNIFORM-LABEL: func.func @chain_train
// UNIFORM-SAME:    ckpt.plan = "uniform"
// UNIFORM:         %[[B0:[0-9]+]]:2 = ckpt.checkpoint(%{{.+}} = %arg0, %{{.+}} = %arg1)
// UNIFORM-NEXT:      ckpt.linear
// UNIFORM-NEXT:      ckpt.gelu
// UNIFORM-NEXT:      ckpt.add
// UNIFORM-NEXT:      ckpt.yield
// UNIFORM-NEXT:    }
// UNIFORM-NEXT:    %[[B1:[0-9]+]]:2 = ckpt.checkpoint(%{{.+}} = %[[B0]]#1, %{{.+}} = %arg2)
// UNIFORM-NEXT:      ckpt.linear
// UNIFORM-NEXT:      ckpt.gelu
// UNIFORM-NEXT:      ckpt.add
// UNIFORM-NEXT:      ckpt.yield
// UNIFORM-NEXT:    }
// UNIFORM-NEXT:    %[[H2:.+]] = ckpt.checkpoint(%{{.+}} = %[[B1]]#1, %{{.+}} = %arg3)
// UNIFORM-NEXT:      ckpt.linear
// UNIFORM-NEXT:      ckpt.yield
// UNIFORM-NEXT:    }
// UNIFORM-NEXT:    ckpt.print %[[H2]]
// UNIFORM-NEXT:    %[[B2:.+]] = ckpt.checkpoint(%{{.+}} = %[[H2]], %{{.+}} = %[[B1]]#1)
// UNIFORM-NEXT:      ckpt.gelu
// UNIFORM-NEXT:      ckpt.add
// UNIFORM-NEXT:      ckpt.yield
// UNIFORM-NEXT:    }
// UNIFORM-NEXT:    ckpt.checkpoint(%{{.+}} = %[[B2]])
// UNIFORM-NEXT:      ckpt.reduce_mean
// UNIFORM-NEXT:      ckpt.yield
// UNIFORM-NEXT:    }
// UNIFORM-NOT:     ckpt.checkpoint
// UNIFORM:         return

// Two stages per segment: blocks 0 and 1 together, block 2 split by the
// print, then the loss with block 2's second part.
// PAIRS-LABEL: func.func @chain_train
// PAIRS-COUNT-3: ckpt.checkpoint
// PAIRS-NOT:     ckpt.checkpoint
// PAIRS:         return
func.func @chain(%x: tensor<4x8xf32>, %w0: tensor<8x8xf32> {ckpt.param},
                 %w1: tensor<8x8xf32> {ckpt.param}, %w2: tensor<8x8xf32> {ckpt.param})
    -> tensor<f32> {
  // expected-remark @below {{segment 0 of 5: stage 0, 3 ops}}
  %h0 = ckpt.linear %x, %w0 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %g0 = ckpt.gelu %h0 : tensor<4x8xf32>
  %y0 = ckpt.add %x, %g0 : tensor<4x8xf32>
  %y1 = ckpt.checkpoint(%in = %y0, %w = %w1) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    // expected-remark @below {{segment 1 of 5: stage 1, 3 ops}}
    %h1 = ckpt.linear %in, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %g1 = ckpt.gelu %h1 : tensor<4x8xf32>
    %r1 = ckpt.add %in, %g1 : tensor<4x8xf32>
    ckpt.yield %r1 : tensor<4x8xf32>
  }
  // expected-remark @below {{segment 2 of 5: stage 2, 1 ops}}
  %h2 = ckpt.linear %y1, %w2 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  // expected-remark @below {{kept outside the segment of stage 2: it performs I/O, which must happen exactly once}}
  ckpt.print %h2 : tensor<4x8xf32>
  // expected-remark @below {{segment 3 of 5: stage 2, 2 ops}}
  %g2 = ckpt.gelu %h2 : tensor<4x8xf32>
  %y2 = ckpt.add %y1, %g2 : tensor<4x8xf32>
  // expected-remark @below {{segment 4 of 5: stage 3, 1 ops}}
  %l = ckpt.reduce_mean %y2 : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
