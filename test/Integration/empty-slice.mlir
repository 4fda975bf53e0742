// A slice that takes nothing from the end of a dimension (the part of a
// head that rotary embeddings leave out, when they cover all of it: phi3)
// lowers and runs; its gradient is zero, the rest's is exact.
// RUN: %check_gradients | FileCheck %s
// CHECK: gradient check: passed
func.func @empty_slice(%x: tensor<2x4xf64> {ckpt.param}) -> tensor<f64> {
  %all = ckpt.slice %x dim = 1 start = 0 end = 4 : tensor<2x4xf64> -> tensor<2x4xf64>
  %none = ckpt.slice %x dim = 1 start = 4 end = 4 : tensor<2x4xf64> -> tensor<2x0xf64>
  %t = ckpt.tanh %all : tensor<2x4xf64>
  %j = ckpt.concat %t, %none dim = 1 : (tensor<2x4xf64>, tensor<2x0xf64>) -> tensor<2x4xf64>
  %l = ckpt.reduce_sum %j : tensor<2x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
