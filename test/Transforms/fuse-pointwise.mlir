// RUN: ckpt-opt %s --ckpt-fuse-pointwise -split-input-file | FileCheck %s
// A second run finds nothing more to fuse: a fused op is not pointwise.
// RUN: ckpt-opt %s --ckpt-fuse-pointwise -split-input-file | ckpt-opt --ckpt-fuse-pointwise -split-input-file | FileCheck %s

// A chain from the step's arguments: its inputs stay allocated anyway, so
// it fuses whole; the bias keeps its broadcast.
// CHECK-LABEL: func.func @chain
//  CHECK-SAME: (%[[X:.+]]: tensor<8x64xf32>, %[[B:.+]]: tensor<64xf32>)
//       CHECK:   %[[F:.+]] = ckpt.fused_pointwise(%[[XA:.+]] = %[[X]], %[[BA:.+]] = %[[B]]) : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8x64xf32> {
//       CHECK:     %[[H:.+]] = ckpt.add %[[XA]], %[[BA]] : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
//       CHECK:     %[[G:.+]] = ckpt.gelu %[[H]] : tensor<8x64xf32>
//       CHECK:     %[[T:.+]] = ckpt.tanh %[[G]] : tensor<8x64xf32>
//       CHECK:     ckpt.yield %[[T]] : tensor<8x64xf32>
//       CHECK:   return %[[F]]
func.func @chain(%x: tensor<8x64xf32>, %b: tensor<64xf32>) -> tensor<8x64xf32> {
  %h = ckpt.add %x, %b : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  %g = ckpt.gelu %h : tensor<8x64xf32>
  %t = ckpt.tanh %g : tensor<8x64xf32>
  return %t : tensor<8x64xf32>
}

// -----

// A value read twice is stored: its op stays, and the chain after it
// starts from it.
// CHECK-LABEL: func.func @read_twice
//       CHECK:   %[[E:.+]] = ckpt.exp %{{.+}} : tensor<8x64xf32>
//       CHECK:   ckpt.fused_pointwise(%[[EA:.+]] = %[[E]]) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
//       CHECK:     %[[T:.+]] = ckpt.tanh %[[EA]]
//       CHECK:     ckpt.mul %[[T]], %[[EA]]
func.func @read_twice(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = ckpt.exp %x : tensor<8x64xf32>
  %t = ckpt.tanh %e : tensor<8x64xf32>
  %m = ckpt.mul %t, %e : tensor<8x64xf32>
  return %m : tensor<8x64xf32>
}

// -----

// A value its user broadcasts stays stored: fused, it would be computed
// again for every element of the user's result.
// CHECK-LABEL: func.func @broadcast_edge
//       CHECK:   %[[S:.+]] = ckpt.exp %{{.+}} : tensor<64xf32>
//       CHECK:   ckpt.add %{{.+}}, %[[S]]
//   CHECK-NOT:   ckpt.fused_pointwise
func.func @broadcast_edge(%x: tensor<8x64xf32>, %v: tensor<64xf32>) -> tensor<8x64xf32> {
  %s = ckpt.exp %v : tensor<64xf32>
  %y = ckpt.add %x, %s : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// The sum's inputs are freed right after it (16 KiB), its result is 8 KiB:
// with another op between it and its user, fusing would keep 8 KiB more
// alive there, so it stays. With nothing between, it fuses: the user's
// result takes the sum's place.
// CHECK-LABEL: func.func @inputs_outlive
//       CHECK:   %[[S:.+]] = ckpt.add
//       CHECK:   ckpt.reduce_sum
//       CHECK:   ckpt.tanh %[[S]]
//   CHECK-NOT:   ckpt.fused_pointwise
// CHECK-LABEL: func.func @nothing_between
//       CHECK:   ckpt.fused_pointwise(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
//       CHECK:     ckpt.add
//       CHECK:     ckpt.tanh
// CHECK-LABEL: func.func @wider_user
//       CHECK:   %[[S:.+]] = ckpt.add
//       CHECK:   ckpt.cast %[[S]] : tensor<32x64xf32> -> tensor<32x64xf64>
//   CHECK-NOT:   ckpt.fused_pointwise
func.func @inputs_outlive(%x: tensor<32x64xf32>, %y: tensor<32x64xf32>) -> (tensor<32x64xf32>, tensor<f32>) {
  %a = ckpt.softmax %x dim = 1 : tensor<32x64xf32>
  %b = ckpt.softmax %y dim = 1 : tensor<32x64xf32>
  %s = ckpt.add %a, %b : tensor<32x64xf32>
  %r = ckpt.reduce_sum %x : tensor<32x64xf32> -> tensor<f32>
  %t = ckpt.tanh %s : tensor<32x64xf32>
  return %t, %r : tensor<32x64xf32>, tensor<f32>
}
func.func @nothing_between(%x: tensor<32x64xf32>, %y: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %a = ckpt.softmax %x dim = 1 : tensor<32x64xf32>
  %b = ckpt.softmax %y dim = 1 : tensor<32x64xf32>
  %s = ckpt.add %a, %b : tensor<32x64xf32>
  %t = ckpt.tanh %s : tensor<32x64xf32>
  return %t : tensor<32x64xf32>
}
func.func @wider_user(%x: tensor<32x64xf32>, %y: tensor<32x64xf32>) -> tensor<32x64xf64> {
  %a = ckpt.softmax %x dim = 1 : tensor<32x64xf32>
  %b = ckpt.softmax %y dim = 1 : tensor<32x64xf32>
  %s = ckpt.add %a, %b : tensor<32x64xf32>
  %w = ckpt.cast %s : tensor<32x64xf32> -> tensor<32x64xf64>
  return %w : tensor<32x64xf64>
}

// -----

// A forward value that only backward reads is not moved into backward
// (that would be recomputation, the planner's choice); backward chains
// fuse among themselves and the fused op keeps the backward mark.
// CHECK-LABEL: func.func @forward_backward
//       CHECK:   %[[E:.+]] = ckpt.exp %{{.+}} : tensor<8x64xf32>
//       CHECK:   ckpt.fused_pointwise(%{{.+}} = %{{.+}}, %{{.+}} = %[[E]]) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32> attributes {ckpt.backward} {
//       CHECK:     ckpt.neg %{{.+}} {ckpt.backward}
//       CHECK:     ckpt.mul %{{.+}}, %{{.+}} {ckpt.backward}
func.func @forward_backward(%x: tensor<8x64xf32>, %d: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = ckpt.exp %x : tensor<8x64xf32>
  %n = ckpt.neg %d {ckpt.backward} : tensor<8x64xf32>
  %g = ckpt.mul %n, %e {ckpt.backward} : tensor<8x64xf32>
  return %g : tensor<8x64xf32>
}

// -----

// Segment bodies fuse too; their arguments are not the step's, so they
// count as inputs that could have been freed (here the chain still fits:
// 2 KiB of inputs for its 2 KiB result).
// CHECK-LABEL: func.func @in_segment
//       CHECK:   ckpt.checkpoint
//       CHECK:     %[[F:.+]] = ckpt.fused_pointwise
//       CHECK:       ckpt.gelu
//       CHECK:       ckpt.sigmoid
//       CHECK:     ckpt.yield %[[F]]
func.func @in_segment(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %y = ckpt.checkpoint(%in = %x) : (tensor<8x64xf32>) -> tensor<8x64xf32> {
    %g = ckpt.gelu %in : tensor<8x64xf32>
    %s = ckpt.sigmoid %g : tensor<8x64xf32>
    ckpt.yield %s : tensor<8x64xf32>
  }
  return %y : tensor<8x64xf32>
}
