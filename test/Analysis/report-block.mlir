// The saved tensors and simulated peak of the design's MLP block, as
// remarks. Saved activations: the first linear's input x (8 MiB), the GELU
// input (32 MiB) and the second linear's input (32 MiB); the second linear's
// weight is a saved parameter. Peak, by hand: parameters 8398848 B,
// activations 75497476 B (the saved tensors and the loss), and while the
// second weight's gradient (4 MiB) is computed: dy (8 MiB) and the first
// linear's output gradient (32 MiB) as temporaries (the product reads dy
// transposed in place).
// RUN: ckpt-opt %s --ckpt-autodiff --ckpt-report="remarks=1 output=%t.txt" -verify-diagnostics -o /dev/null
// RUN: FileCheck %s --input-file=%t.txt

// Forward FLOPs: two linears 2 * 4096 * 512 * 2048 each plus their biases
// (4096 * 2048 and 4096 * 512), GELU 8 per element (8 * 4096 * 2048), the
// residual add and the mean (4096 * 512 each). Backward: three products of
// 2 * 4096 * 512 * 2048 (dW2, the second linear's input gradient, dW1; x
// needs none), gelu_grad 12 per element, the bias gradients' sums
// (4096 * 512 and 4096 * 2048) and the mean's division (4096 * 512).
// CHECK: training step @block_train
// CHECK: simulated peak: 130033668 B (124.010 MiB) while running ckpt.matmul at report-block.mlir:[[@LINE+16]]:9
// CHECK: compute:
// CHECK-NEXT: forward: 17261658112 FLOPs
// CHECK-NEXT: backward: 25883049984 FLOPs

// expected-remark @below {{saved activation %arg0: 'tensor<8x512x512xf32>', 8388608 bytes, read by 1 backward op(s)}}
// expected-remark @below {{saved parameter %arg3: 'tensor<512x2048xf32>', 4194304 bytes, read by 1 backward op(s)}}
// expected-remark @below {{training step @block_train: saved activations 75497472 bytes in 3 tensors; parameters 4194304 bytes in 1 tensors; constants 0 bytes in 0 tensors; simulated peak 130033668 bytes (parameters 8398848, activations 75497476, constants 0, gradients 4194304, temporaries 41943040); forward 17261658112 FLOPs, backward 25883049984 FLOPs}}
func.func @block(%x: tensor<8x512x512xf32>,
                 %w1: tensor<2048x512xf32> {ckpt.param}, %b1: tensor<2048xf32> {ckpt.param},
                 %w2: tensor<512x2048xf32> {ckpt.param}, %b2: tensor<512xf32> {ckpt.param})
    -> tensor<f32> {
  // expected-remark @below {{saved activation %0: 'tensor<8x512x2048xf32>', 33554432 bytes, read by 1 backward op(s)}}
  %h1 = ckpt.linear %x, %w1, %b1 : (tensor<8x512x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) -> tensor<8x512x2048xf32>
  // expected-remark @below {{saved activation %1: 'tensor<8x512x2048xf32>', 33554432 bytes, read by 1 backward op(s)}}
  %h2 = ckpt.gelu %h1 : tensor<8x512x2048xf32>
  %h3 = ckpt.linear %h2, %w2, %b2 : (tensor<8x512x2048xf32>, tensor<512x2048xf32>, tensor<512xf32>) -> tensor<8x512x512xf32>
  %y  = ckpt.add %x, %h3 : tensor<8x512x512xf32>
  %l  = ckpt.reduce_mean %y : tensor<8x512x512xf32> -> tensor<f32>
  return %l : tensor<f32>
}
