// The report gives each saved tensor the plan's decision: which segment
// recomputes it, or why it is kept. The uniform plan leaves the all_reduce
// outside its one segment, so the linear's backward reads its kept result.
// RUN: ckpt-opt %s --ckpt-autodiff --ckpt-plan="strategy=uniform stages-per-segment=10" --ckpt-report -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=UNIFORM
// RUN: ckpt-opt %examples/checkpointed_mlp.mlir --ckpt-autodiff --ckpt-plan --ckpt-report -o /dev/null | FileCheck %s --check-prefix=MANUAL
// RUN: ckpt-opt %examples/checkpointed_mlp.mlir --ckpt-autodiff --ckpt-plan --ckpt-insert-recompute --ckpt-report -o /dev/null | FileCheck %s --check-prefix=AFTER

// UNIFORM: activation ckpt.all_reduce decisions.mlir:21:8 {{.*}} kept: cannot be recomputed: it is a collective: every rank must issue it the same number of times
// UNIFORM: activation ckpt.tanh decisions.mlir:23:8 {{.*}} recomputed by the segment at decisions.mlir:22:8

// MANUAL: activation argument 0 {{.*}} kept: argument
// MANUAL: activation ckpt.linear checkpointed_mlp.mlir:13:9 {{.*}} kept: outside every segment
// MANUAL: activation ckpt.add checkpointed_mlp.mlir:18:9 {{.*}} kept: segment input, recomputation starts from it
// MANUAL: activation ckpt.add checkpointed_mlp.mlir:29:11 {{.*}} kept: segment output, a later forward op reads it
// MANUAL: activation ckpt.linear checkpointed_mlp.mlir:24:11 {{.*}} recomputed by the segment at checkpointed_mlp.mlir:21:9

// After insert-recompute the saved tensors are the kept ones.
// AFTER:     activation ckpt.add checkpointed_mlp.mlir:18:9 {{.*}} kept: segment input, recomputation starts from it
// AFTER-NOT: recomputed by the segment
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {ckpt.param}) -> tensor<f32> {
  %r = ckpt.all_reduce %x : tensor<4x8xf32>
  %h = ckpt.linear %r, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %t = ckpt.tanh %h : tensor<4x8xf32>
  %l = ckpt.reduce_mean %t : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
