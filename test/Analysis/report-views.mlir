// A saved view's memory is what it views, and the report names it
// (`views`): here the linear layers' weight gradients read a view of the
// input (which no plan frees) and a view of the tanh's result (%0).
// RUN: ckpt-opt %s --ckpt-autodiff --ckpt-report="format=json output=-" -o /dev/null | FileCheck %s

// CHECK:      "saved_tensors": [
// CHECK:        "producer": "ckpt.reshape",
// CHECK:        "views": "argument 0"
// CHECK:        "producer": "ckpt.reshape",
// CHECK:        "views": "%0"
// CHECK:      "saved_totals": {
// CHECK-NEXT:   "activations": {
// CHECK-NEXT:     "bytes": 1024,
// CHECK-NEXT:     "count": 2
func.func @views(%x: tensor<4x32xf32>, %w: tensor<8x64xf32> {ckpt.param},
                 %v: tensor<8x64xf32> {ckpt.param}) -> tensor<f32> {
  %t = ckpt.tanh %x : tensor<4x32xf32>
  %xv = ckpt.reshape %x : tensor<4x32xf32> -> tensor<2x64xf32>
  %tv = ckpt.reshape %t : tensor<4x32xf32> -> tensor<2x64xf32>
  %a = ckpt.linear %xv, %w : (tensor<2x64xf32>, tensor<8x64xf32>) -> tensor<2x8xf32>
  %b = ckpt.linear %tv, %v : (tensor<2x64xf32>, tensor<8x64xf32>) -> tensor<2x8xf32>
  %s = ckpt.add %a, %b : tensor<2x8xf32>
  %l = ckpt.reduce_mean %s : tensor<2x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
