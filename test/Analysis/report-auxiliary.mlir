// A forward result after the loss is an activation the step returns: the
// memory simulator keeps it live until the end, like the loss, and never
// counts it as a returned gradient. Peak, by hand, while the second product
// of the gradient of w * w runs: the parameter w (4096 B); the activations
// x, tanh(x) (4096 B each: nothing but the return reads tanh(x)) and the
// loss (4 B); the broadcast loss gradient and the two products (4096 B
// each) as temporaries.
// RUN: ckpt-opt %s --ckpt-autodiff=keep-forward=false --ckpt-report="remarks=1 output=%t.txt" -verify-diagnostics -o /dev/null
// RUN: FileCheck %s --input-file=%t.txt

// CHECK: simulated peak: 24580 B (24.004 KiB) while running ckpt.mul
// CHECK: activations: 8196 B (8.004 KiB)
// CHECK: gradients: 0 B
// CHECK: simulated peak without returned gradients: 24580 B

// expected-remark @below {{saved parameter %arg1: 'tensor<1024xf32>', 4096 bytes, read by 2 backward op(s)}}
// expected-remark @below {{training step @auxiliary_train: saved activations 0 bytes in 0 tensors; parameters 4096 bytes in 1 tensors; constants 0 bytes in 0 tensors; simulated peak 24580 bytes (parameters 4096, activations 8196, constants 0, gradients 0, temporaries 12288)}}
func.func @auxiliary(%x: tensor<1024xf32>, %w: tensor<1024xf32> {ckpt.param})
    -> (tensor<f32>, tensor<1024xf32>) {
  %t = ckpt.tanh %x : tensor<1024xf32>
  %m = ckpt.mul %w, %w : tensor<1024xf32>
  %l = ckpt.reduce_sum %m : tensor<1024xf32> -> tensor<f32>
  return %l, %t : tensor<f32>, tensor<1024xf32>
}
