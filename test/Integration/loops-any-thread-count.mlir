// The step's loops (everything but matrix products) compute each output
// element in one thread, its sums in loop order: the gradients of a step of
// norms, softmax, GELU and reductions over 256 x 512 elements (parallel
// loops, above the sequential threshold) are bit-identical on one, two and
// three threads.
// RUN: rm -rf %t && mkdir -p %t
// RUN: ckpt-opt %s --ckpt-pipeline=strategy=none -o %t/step.mlir
// RUN: ckpt-run %t/step.mlir --seed 2 --cpu-threads 1 --out %t/one | FileCheck %s
// RUN: ckpt-run %t/step.mlir --seed 2 --cpu-threads 2 --out %t/two > /dev/null
// RUN: ckpt-run %t/step.mlir --seed 2 --cpu-threads 3 --out %t/three > /dev/null
// RUN: diff -r %t/one %t/two
// RUN: diff -r %t/one %t/three
// CHECK: grad of argument 0: sum {{.*}}, l2 {{[1-9]}}
func.func @f(%x: tensor<256x512xf32> {ckpt.param}, %w: tensor<512xf32> {ckpt.param}, %b: tensor<512xf32> {ckpt.param}) -> tensor<f32> {
  %n:3 = ckpt.layer_norm %x weight %w bias %b normalized_shape = [512] : (tensor<256x512xf32>, tensor<512xf32>, tensor<512xf32>) -> (tensor<256x512xf32>, tensor<256x1xf32>, tensor<256x1xf32>)
  %g = ckpt.gelu %n#0 : tensor<256x512xf32>
  %s = ckpt.softmax %g dim = 1 : tensor<256x512xf32>
  %p = ckpt.mul %s, %x : (tensor<256x512xf32>, tensor<256x512xf32>) -> tensor<256x512xf32>
  %l = ckpt.reduce_sum %p : tensor<256x512xf32> -> tensor<f32>
  return %l : tensor<f32>
}
