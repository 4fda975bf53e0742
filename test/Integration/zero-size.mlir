// Tensors with a dimension of 0 (an empty batch) work end to end: autodiff,
// planning under every strategy, lowering and running. They hold 0 bytes
// (the only saved bytes are dropout's 16-byte random state), the loss is 0,
// the gradients are zero, and an empty input can be loaded from an empty
// .npy.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../Tools/Inputs/make_npy.py %t/empty.npy '<f4' '0, 4' 0
// RUN: ckpt-opt %s --ckpt-thread-rng --ckpt-autodiff --ckpt-report | FileCheck %s --check-prefix=REPORT
// RUN: ckpt-opt %s --ckpt-thread-rng --ckpt-pipeline=strategy=sqrt | ckpt-run - --out %t | FileCheck %s
// RUN: ckpt-opt %s --ckpt-thread-rng --ckpt-pipeline="strategy=dp budget=1MiB" | ckpt-run - --input 0=%t/empty.npy | FileCheck %s
// RUN: ckpt-opt %s --ckpt-thread-rng --ckpt-pipeline="strategy=ilp budget=1MiB" | ckpt-run - | FileCheck %s
// RUN: ckpt-opt %s --ckpt-thread-rng --ckpt-pipeline=strategy=selective | ckpt-run - | FileCheck %s
// RUN: ckpt-opt %s --ckpt-thread-rng --ckpt-autodiff | ckpt-run - --check-gradients=1 | FileCheck %s --check-prefix=GRADIENTS
// RUN: head -c 80 %t/result0.npy | FileCheck %s --check-prefix=NPY

// REPORT: saved activations: {{[0-9]+}} tensors, 16 B

// CHECK:      loss: 0
// CHECK-NEXT: grad of argument 1: sum 0, l2 0
// CHECK-NEXT: grad of argument 2: sum 0, l2 0
// CHECK-NEXT: grad of argument 3: sum 0, l2 0

// GRADIENTS: gradient check: passed

// NPY: {'descr': '<f4', 'fortran_order': False, 'shape': (), }

func.func @f(%x: tensor<0x4xf32>, %w: tensor<8x4xf32> {ckpt.param}, %b: tensor<8xf32> {ckpt.param}, %v: tensor<4x8xf32> {ckpt.param}) -> tensor<f32> {
  %h = ckpt.linear %x, %w, %b : (tensor<0x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<0x8xf32>
  %g = ckpt.gelu %h : tensor<0x8xf32>
  %s = ckpt.softmax %g dim = 1 : tensor<0x8xf32>
  %y = ckpt.linear %s, %v : (tensor<0x8xf32>, tensor<4x8xf32>) -> tensor<0x4xf32>
  %d = ckpt.dropout %y p = 0.5 : tensor<0x4xf32>
  %n:3 = ckpt.layer_norm %d normalized_shape = [4] : (tensor<0x4xf32>) -> (tensor<0x4xf32>, tensor<0x1xf32>, tensor<0x1xf32>)
  %l = ckpt.reduce_sum %n#0 : tensor<0x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
