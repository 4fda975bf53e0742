// Upstream transformations see the effects the ops declare: pure ops are
// merged and deleted when dead; implicit-randomness dropout, print and
// all_reduce are never merged or deleted.
// RUN: ckpt-opt %s --cse --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @merge_pure
func.func @merge_pure(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: %[[G:.+]] = ckpt.gelu
  // CHECK-NOT: ckpt.gelu
  // CHECK: return %[[G]], %[[G]]
  %a = ckpt.gelu %x : tensor<4xf32>
  %b = ckpt.gelu %x : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// Two dropouts of one value draw two different masks.
// CHECK-LABEL: func.func @keep_random
func.func @keep_random(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: %[[A:.+]] = ckpt.dropout
  // CHECK: %[[B:.+]] = ckpt.dropout
  // CHECK: return %[[A]], %[[B]]
  %a = ckpt.dropout %x p = 5.000000e-01 : tensor<4xf32>
  %b = ckpt.dropout %x p = 5.000000e-01 : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @dead_code
func.func @dead_code(%x: tensor<4xf32>) {
  // CHECK-NOT: ckpt.exp
  // CHECK: ckpt.dropout
  // CHECK: ckpt.all_reduce
  // CHECK: ckpt.all_reduce
  // CHECK: ckpt.print
  // CHECK: ckpt.checkpoint
  // CHECK-NEXT: ckpt.print
  %e = ckpt.exp %x : tensor<4xf32>
  %d = ckpt.dropout %x p = 5.000000e-01 : tensor<4xf32>
  %r1 = ckpt.all_reduce %x : tensor<4xf32>
  %r2 = ckpt.all_reduce %x : tensor<4xf32>
  ckpt.print %x : tensor<4xf32>
  // A segment is as effectful as its body.
  ckpt.checkpoint(%in = %x) : (tensor<4xf32>) -> () {
    ckpt.print %in : tensor<4xf32>
    ckpt.yield
  }
  // CHECK-NOT: ckpt.checkpoint
  ckpt.checkpoint(%in = %x) : (tensor<4xf32>) -> () {
    %n = ckpt.neg %in : tensor<4xf32>
    ckpt.yield
  }
  return
}
